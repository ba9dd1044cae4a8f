/**
 * The connection fields every Redis component shares (Redpanda Connect's `url`, `kind`, `master`,
 * `client_name`, `tls`) and the one way a component opens a client from them: @redis/client with
 * bulk strings as Buffers (bytes stay bytes), commands refused at once while disconnected (the
 * component decides how to wait), reconnects with back-off, and errors told without the password.
 */
import { ErrorCode, SvcError, errorMessage, f, redactUrl, scrubSecrets, tlsConnectOptions, tlsSpec, type Infer, type Logger } from '@svc/engine';
import { FirstConnect } from './first-connect.js';
import { openHandle, type RedisHandle } from './topology.js';

export const redisClientFields = {
  url: f
    .string()
    .url()
    .validate((u) => (u.split(',').every((one) => /^(rediss?|tcp):\/\//.test(one.trim())) ? undefined : 'url must start with redis://, rediss:// or tcp://'))
    .describe(
      'The URL of the target Redis server. Database is optional and is supplied as the URL path: `redis://[[user]:password@]host[:port][/db]` (`rediss://` for TLS; `tcp://` reads as `redis://`). With `kind: cluster` or `failover`, a comma-separated list: cluster nodes, or Sentinels.',
    ),
  kind: f
    .enum(['simple', 'cluster', 'failover'])
    .default('simple')
    .advanced()
    .describe(
      "Specifies a simple, cluster-aware, or failover-aware redis client. `cluster`: `url` lists some of the nodes (comma-separated) and each command goes to the node owning its key (keys one command names together, such as the streams of one `redis_streams` input, must share a hash slot: use a `{tag}`). `failover`: `url` lists the Sentinels and `master` names the master they watch; its user, password and database are the master's.",
    ),
  master: f.string().default('').advanced().describe('Name of the redis master when `kind` is `failover`'),
  client_name: f.string().default('').advanced().describe('The client name set on each connection (`CLIENT SETNAME`); empty sets none.'),
  tls: tlsSpec,
};

export type RedisClientConfig = Infer<ReturnType<typeof f.object<typeof redisClientFields>>>;

/** Replies as they come off the wire: Buffers for bulk strings, numbers, arrays, null. */
export type Reply = Buffer | number | string | boolean | null | Reply[] | Map<Reply, Reply>;

/**
 * One Redis connection of a component: opens it from the shared fields, logs an outage once when
 * it starts and once when it ends, and keeps the URL's password out of every message.
 */
export class RedisConnection {
  private readonly handle: RedisHandle;
  private down = false;
  private closed = false;
  private readonly first = new FirstConnect();

  private constructor(
    private readonly conf: RedisClientConfig,
    lib: typeof import('@redis/client'),
    private readonly what: string,
    private readonly logger: Logger,
    exactIntegers: boolean,
  ) {
    this.handle = openHandle(
      conf,
      lib,
      {
        tls: tlsConnectOptions(conf.tls) as Record<string, unknown> | undefined,
        reconnect: (n: number) => Math.min(50 * 2 ** n, 2_000),
        closed: () => this.closed,
        typeMapping: {
          [lib.RESP_TYPES.BLOB_STRING]: Buffer,
          [lib.RESP_TYPES.SIMPLE_STRING]: Buffer,
          // Maps keep their order and their keys' bytes.
          [lib.RESP_TYPES.MAP]: Map,
          // Replies a user sees whole (the redis processor): integers keep every digit.
          ...(exactIntegers ? { [lib.RESP_TYPES.NUMBER]: String, [lib.RESP_TYPES.BIG_NUMBER]: String } : {}),
        },
      },
      { failed: (err) => this.failed(err), ready: () => this.recovered() },
    );
  }

  /**
   * Checks the fields, loads the client library (only when a Redis component is built) and
   * connects, waiting a bounded time: Redis being down at start-up is an outage the component
   * rides out, not a start-up error. The client speaks RESP3 (maps, sets and booleans as Redis 6+
   * sends them, as Redpanda Connect's go-redis v9 does); `exactIntegers` gives integers as text.
   */
  static async open(conf: RedisClientConfig, what: string, logger: Logger, exactIntegers = false): Promise<RedisConnection> {
    if (conf.kind === 'failover' && conf.master === '')
      throw new SvcError(ErrorCode.ConfigLint, `${what}: kind failover needs master: the name the Sentinels know the master by`);
    const c = new RedisConnection(conf, await import('@redis/client'), what, logger, exactIntegers);
    await c.first.run(
      () => c.handle.connect(),
      (err) => c.failed(err),
    );
    return c;
  }

  get ready(): boolean {
    return this.handle.isReady;
  }

  /** The URL with its password replaced, for messages. */
  get where(): string {
    return redactUrl(this.conf.url);
  }

  /** An error's text with the URL's password taken out. */
  scrub(err: unknown): string {
    return scrubSecrets(errorMessage(err), [], [this.conf.url]);
  }

  failed(err: unknown): void {
    this.first.settle();
    if (this.down || this.closed) return;
    this.down = true;
    this.logger.error(`${this.what}: cannot reach Redis at ${this.where}: ${this.scrub(err)}`);
  }

  private recovered(): void {
    this.first.settle();
    if (!this.down) return;
    this.down = false;
    this.logger.info(`${this.what}: Redis at ${this.where} answers again`);
  }

  /** Sends one command; bulk strings come back as Buffers. */
  send<T = Reply>(args: ReadonlyArray<string | Buffer>): Promise<T> {
    return this.handle.send(args) as Promise<T>;
  }

  /** Subscribes to a channel (or a pattern); the client subscribes again after a reconnect. */
  subscribe(channel: string, listener: (message: Buffer, channel: Buffer) => void, patterns: boolean): Promise<unknown> {
    return this.handle.subscribe(channel, listener, patterns);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.handle.isOpen) await this.handle.close().catch(() => this.handle.destroy());
    else this.handle.destroy();
  }
}
