/**
 * The connection fields every Redis component shares (Redpanda Connect's `url`, `kind`, `master`,
 * `client_name`, `tls`) and the one way a component opens a client from them: @redis/client with
 * bulk strings as Buffers (bytes stay bytes), commands refused at once while disconnected (the
 * component decides how to wait), reconnects with back-off, and errors told without the password.
 */
import { ErrorCode, SvcError, errorMessage, f, redactUrl, scrubSecrets, tlsConnectOptions, tlsSpec, type Infer, type Logger } from '@svc/engine';
import { connectBounded } from './first-connect.js';

export const redisClientFields = {
  url: f
    .string()
    .url()
    .validate((u) => (u.split(',').every((one) => /^(rediss?|tcp):\/\//.test(one.trim())) ? undefined : 'url must start with redis://, rediss:// or tcp://'))
    .describe(
      'The URL of the target Redis server. Database is optional and is supplied as the URL path: `redis://[[user]:password@]host[:port][/db]` (`rediss://` for TLS; `tcp://` reads as `redis://`).',
    ),
  kind: f
    .enum(['simple', 'cluster', 'failover'])
    .default('simple')
    .advanced()
    .describe('Specifies a simple, cluster-aware, or failover-aware redis client (only `simple` here: the others are refused at start).'),
  master: f.string().default('').advanced().describe('Name of the redis master when `kind` is `failover`'),
  client_name: f.string().default('').advanced().describe('The client name set on each connection (`CLIENT SETNAME`); empty sets none.'),
  tls: tlsSpec,
};

export type RedisClientConfig = Infer<ReturnType<typeof f.object<typeof redisClientFields>>>;

type Lib = typeof import('@redis/client');
/** A client whose bulk strings are Buffers. */
export type RedisClient = ReturnType<Lib['createClient']>;

/** Replies as they come off the wire: Buffers for bulk strings, numbers, arrays, null. */
export type Reply = Buffer | number | string | boolean | null | Reply[] | Map<Reply, Reply>;

/**
 * One Redis connection of a component: opens it from the shared fields, logs an outage once when
 * it starts and once when it ends, and keeps the URL's password out of every message.
 */
export class RedisConnection {
  readonly client: RedisClient;
  private down = false;
  private closed = false;

  private constructor(
    private readonly conf: RedisClientConfig,
    lib: Lib,
    private readonly what: string,
    private readonly logger: Logger,
    exactIntegers: boolean,
  ) {
    const first = conf.url.split(',')[0]!.trim();
    const url = first.replace(/^tcp:\/\//, 'redis://');
    const tls = tlsConnectOptions(conf.tls);
    this.client = lib
      .createClient({
        url,
        ...(conf.client_name !== '' ? { name: conf.client_name } : {}),
        RESP: 3,
        disableOfflineQueue: true,
        socket: { ...(tls ? { tls: true, ...tls } : {}), reconnectStrategy: (n: number) => Math.min(50 * 2 ** n, 2_000) } as never,
      })
      .withTypeMapping({
        [lib.RESP_TYPES.BLOB_STRING]: Buffer,
        [lib.RESP_TYPES.SIMPLE_STRING]: Buffer,
        // Maps keep their order and their keys' bytes.
        [lib.RESP_TYPES.MAP]: Map,
        // Replies a user sees whole (the redis processor): integers keep every digit.
        ...(exactIntegers ? { [lib.RESP_TYPES.NUMBER]: String, [lib.RESP_TYPES.BIG_NUMBER]: String } : {}),
      } as never) as unknown as RedisClient;
    this.client.on('error', (err: unknown) => this.failed(err));
    this.client.on('ready', () => this.recovered());
  }

  /**
   * Checks the fields, loads the client library (only when a Redis component is built) and
   * connects, waiting a bounded time: Redis being down at start-up is an outage the component
   * rides out, not a start-up error. The client speaks RESP3 (maps, sets and booleans as Redis 6+
   * sends them, as Redpanda Connect's go-redis v9 does); `exactIntegers` gives integers as text.
   */
  static async open(conf: RedisClientConfig, what: string, logger: Logger, exactIntegers = false): Promise<RedisConnection> {
    if (conf.kind !== 'simple') throw new SvcError(ErrorCode.ConfigLint, `${what}: kind "${conf.kind}" is not implemented here: use kind: simple`);
    const c = new RedisConnection(conf, await import('@redis/client'), what, logger, exactIntegers);
    await connectBounded(c.client, (err) => c.failed(err));
    return c;
  }

  get ready(): boolean {
    return this.client.isReady;
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
    if (this.down || this.closed) return;
    this.down = true;
    this.logger.error(`${this.what}: cannot reach Redis at ${this.where}: ${this.scrub(err)}`);
  }

  private recovered(): void {
    if (!this.down) return;
    this.down = false;
    this.logger.info(`${this.what}: Redis at ${this.where} answers again`);
  }

  /** Sends one command; bulk strings come back as Buffers. */
  send<T = Reply>(args: ReadonlyArray<string | Buffer>): Promise<T> {
    return this.client.sendCommand(args as string[]) as Promise<T>;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.client.isOpen) await this.client.close().catch(() => this.client.destroy());
    else this.client.destroy();
  }
}
