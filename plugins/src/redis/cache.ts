/**
 * `redis` cache (Redpanda Connect's): GET, SET (with PX when there is a ttl), SET NX for add and
 * DEL, each key behind `prefix`. A ttl of 0 (no `default_ttl`, no per-item ttl) sets no expiry.
 * A failing command is retried with exponential back-off (`retries`) until `max_elapsed_time`,
 * then the operation fails (the processor that asked flags its message). One client for all
 * pipeline threads (`mainThread`): workers hold no Redis connections of their own.
 */
import { ErrorCode, SvcError, f, parseDuration, registerCache, type Cache, type Infer } from '@svc/engine';
import { Backoff, sleep } from '@svc/engine/kit';
import { RedisConnection, redisClientFields } from './client.js';

const spec = f.object({
  ...redisClientFields,
  prefix: f.string().optional().describe('An optional string to prefix item keys with in order to prevent collisions with similar services.'),
  default_ttl: f.duration().optional().advanced().describe('An optional default TTL to set for items, calculated from the moment the item is cached.'),
  retries: f
    .object({
      initial_interval: f.duration().default('500ms').describe('The initial period to wait between retry attempts.'),
      max_interval: f.duration().default('1s').describe('The maximum period to wait between retry attempts.'),
      max_elapsed_time: f.duration().default('5s').describe('The maximum period to wait before retry attempts are abandoned. If zero then no limit is used.'),
    })
    .advanced()
    .describe('Determine time intervals and cut offs for retry attempts.'),
});
type Conf = Infer<typeof spec>;

export class RedisCache implements Cache {
  private readonly prefix: string;
  private readonly ttlMs: number;
  private readonly retry: { initial: number; max: number; elapsed: number };

  constructor(
    conf: Conf,
    private readonly conn: RedisConnection,
  ) {
    this.prefix = conf.prefix ?? '';
    this.ttlMs = conf.default_ttl === undefined ? 0 : parseDuration(conf.default_ttl);
    this.retry = {
      initial: parseDuration(conf.retries.initial_interval),
      max: parseDuration(conf.retries.max_interval),
      elapsed: parseDuration(conf.retries.max_elapsed_time),
    };
  }

  /** Runs `cmd`, retrying a failure with back-off until max_elapsed_time (0: forever). */
  private async run<T>(cmd: Array<string | Buffer>): Promise<T> {
    try {
      return await this.conn.send<T>(cmd);
    } catch (err) {
      return this.retried<T>(cmd, err);
    }
  }

  private async retried<T>(cmd: Array<string | Buffer>, first: unknown): Promise<T> {
    const backoff = new Backoff(this.retry.initial, this.retry.max);
    const start = Date.now();
    let err = first;
    for (;;) {
      this.conn.failed(err);
      const wait = backoff.next();
      if (this.retry.elapsed > 0 && Date.now() - start + wait > this.retry.elapsed) {
        throw new SvcError(ErrorCode.Processing, this.conn.scrub(err), { cause: err });
      }
      await sleep(wait);
      try {
        return await this.conn.send<T>(cmd);
      } catch (e) {
        err = e;
      }
    }
  }

  /** The SET command, with PX when there is a ttl (the item's, else default_ttl). */
  private setCommand(key: string, value: Buffer, ttlMs: number | undefined, nx: boolean): Array<string | Buffer> {
    const cmd: Array<string | Buffer> = ['SET', this.prefix + key, value];
    if (nx) cmd.push('NX');
    const t = ttlMs ?? this.ttlMs;
    if (t > 0) cmd.push('PX', String(Math.max(1, Math.round(t))));
    return cmd;
  }

  async get(key: string): Promise<Buffer | undefined> {
    const v = await this.run<Buffer | null>(['GET', this.prefix + key]);
    return v ?? undefined;
  }

  async set(key: string, value: Buffer, ttlMs?: number): Promise<void> {
    await this.run(this.setCommand(key, value, ttlMs, false));
  }

  async add(key: string, value: Buffer, ttlMs?: number): Promise<boolean> {
    return (await this.run<unknown>(this.setCommand(key, value, ttlMs, true))) !== null;
  }

  async delete(key: string): Promise<void> {
    await this.run(['DEL', this.prefix + key]);
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}

registerCache('redis', {
  summary: 'Use a Redis instance as a cache. The expiration can be set to zero or an empty string in order to set no expiration.',
  description: [
    'Items are strings in Redis under `prefix` + key; an add is `SET NX`, so every process using the same Redis and prefix deduplicates against one set of keys.',
    'A failing operation is retried (`retries`) before it fails; the outage is logged once when it starts and once when it ends.',
    'One client serves every pipeline thread: on a worker thread each operation is handed to the main thread.',
  ].join('\n'),
  config: spec,
  mainThread: true,
  examples: ['cache_resources:\n  - label: shared\n    redis:\n      url: redis://localhost:6379\n      prefix: "svc:"\n      default_ttl: 1h\n'],
  factory: async (conf, ctx) => new RedisCache(conf, await RedisConnection.open(conf, 'redis cache', ctx.logger)),
});
