/**
 * `redis` cache (Redpanda Connect's): GET, SET (with PX when there is a ttl), SET NX for add and
 * DEL, each key behind `prefix`. A ttl of 0 (no `default_ttl`, no per-item ttl) sets no expiry.
 * A failing command is retried with exponential back-off (`retries`) until `max_elapsed_time`,
 * then the operation fails (the processor that asked flags its message). One client for all
 * pipeline threads (`mainThread`): workers hold no Redis connections of their own.
 */
type CreateClient = (typeof import('@redis/client'))['createClient'];
import {
  Backoff,
  ErrorCode,
  SvcError,
  errorMessage,
  f,
  parseDuration,
  redactUrl,
  registerCache,
  scrubSecrets,
  sleep,
  tlsConnectOptions,
  tlsSpec,
  type Cache,
  type Infer,
  type Logger,
} from '@svc/engine';
import { connectBounded } from './first-connect.js';

const spec = f.object({
  url: f
    .string()
    .url()
    .describe(
      'The URL of the target Redis server. Database is optional and is supplied as the URL path: `redis://[[user]:password@]host[:port][/db]` (`rediss://` for TLS; `tcp://` reads as `redis://`).',
    ),
  kind: f
    .enum(['simple', 'cluster', 'failover'])
    .default('simple')
    .advanced()
    .describe('Specifies a simple, cluster-aware, or failover-aware redis client (only `simple` here: the others are refused at start).'),
  master: f.string().default('').advanced().describe('Name of the redis master when `kind` is `failover`'),
  tls: tlsSpec,
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
  private readonly client;
  private readonly prefix: string;
  private readonly ttlMs: number;
  private readonly retry: { initial: number; max: number; elapsed: number };
  private down = false;

  constructor(
    private readonly conf: Conf,
    createClient: CreateClient,
    bufferType: unknown,
    private readonly logger: Logger,
  ) {
    const url = conf.url.replace(/^tcp:\/\//, 'redis://');
    const tls = tlsConnectOptions(conf.tls);
    this.client = createClient({
      url,
      // Rejects at once while disconnected: the retries below decide how long to wait.
      disableOfflineQueue: true,
      socket: { ...(tls ? { tls: true, ...tls } : {}), reconnectStrategy: (n: number) => Math.min(50 * 2 ** n, 2_000) } as never,
    }).withTypeMapping({ [bufferType as number]: Buffer } as never);
    this.client.on('error', (err: unknown) => this.failed(err));
    this.prefix = conf.prefix ?? '';
    this.ttlMs = conf.default_ttl === undefined ? 0 : parseDuration(conf.default_ttl);
    this.retry = {
      initial: parseDuration(conf.retries.initial_interval),
      max: parseDuration(conf.retries.max_interval),
      elapsed: parseDuration(conf.retries.max_elapsed_time),
    };
  }

  async start(): Promise<void> {
    await connectBounded(this.client, (err) => this.failed(err));
  }

  private failed(err: unknown): void {
    if (this.down) return;
    this.down = true;
    this.logger.error(`redis cache: cannot reach Redis at ${redactUrl(this.conf.url)}: ${scrubSecrets(errorMessage(err), [], [this.conf.url])}`);
  }

  /** Runs `cmd`, retrying a failure with back-off until max_elapsed_time (0: forever). */
  private async run<T>(cmd: Array<string | Buffer>): Promise<T> {
    try {
      const r = (await this.client.sendCommand(cmd as string[])) as T;
      if (this.down) this.recovered();
      return r;
    } catch (err) {
      return this.retried<T>(cmd, err);
    }
  }

  private async retried<T>(cmd: Array<string | Buffer>, first: unknown): Promise<T> {
    const backoff = new Backoff(this.retry.initial, this.retry.max);
    const start = Date.now();
    let err = first;
    for (;;) {
      this.failed(err);
      const wait = backoff.next();
      if (this.retry.elapsed > 0 && Date.now() - start + wait > this.retry.elapsed) {
        throw new SvcError(ErrorCode.Processing, scrubSecrets(errorMessage(err), [], [this.conf.url]), { cause: err });
      }
      await sleep(wait);
      try {
        const r = (await this.client.sendCommand(cmd as string[])) as T;
        this.recovered();
        return r;
      } catch (e) {
        err = e;
      }
    }
  }

  private recovered(): void {
    if (!this.down) return;
    this.down = false;
    this.logger.info(`redis cache: Redis at ${redactUrl(this.conf.url)} answers again`);
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

  async close(): Promise<void> {
    if (this.client.isOpen) await this.client.close().catch(() => this.client.destroy());
    else this.client.destroy();
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
  factory: async (conf, ctx) => {
    if (conf.kind !== 'simple') throw new SvcError(ErrorCode.ConfigLint, `redis cache kind "${conf.kind}" is not implemented here: use kind: simple`);
    if (!/^(rediss?|tcp):\/\//.test(conf.url)) throw new SvcError(ErrorCode.ConfigLint, 'redis cache url must start with redis://, rediss:// or tcp://');
    const { createClient, RESP_TYPES } = await import('@redis/client');
    const c = new RedisCache(conf, createClient, RESP_TYPES.BLOB_STRING, ctx.logger);
    await c.start();
    return c;
  },
});
