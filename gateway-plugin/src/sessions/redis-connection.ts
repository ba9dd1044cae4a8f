/**
 * One connection to the Redis of svc.conf's `storage`, shared by what the gateway keeps there
 * (sessions, rate limits, quotas). `enable_cluster` with `addrs` uses a Redis Cluster client;
 * otherwise `host`/`port` (or the first of `addrs`), `username`, `password`, `database`. It
 * opens on first use, so making it never blocks start-up; during an outage a command fails at
 * once (no offline queue) and the client reconnects in the background. The client library itself
 * (hundreds of command modules, a third of a second of CPU) is required when a connection object
 * is made (a gateway with storage, at start-up), not when the package is imported: an engine that
 * has the gateway installed but runs none never pays for it. (A synchronous require of this
 * CommonJS library: an import() still loading when the process shuts down can crash Node 20.)
 */
import { createRequire } from 'node:module';
import type * as RedisLib from '@redis/client';
import type { StorageConfig } from '../conf/gateway-config.js';

type Client = ReturnType<typeof RedisLib.createClient>;
/** How long a caller waits for the first connection before its call fails. */
const CONNECT_WAIT_MS = 2_000;
type Cluster = ReturnType<typeof RedisLib.createCluster>;
export type RedisClient = Client | Cluster;

function splitAddr(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':');
  return i < 0 ? { host: addr, port: 6379 } : { host: addr.slice(0, i), port: Number(addr.slice(i + 1)) || 6379 };
}

function isCluster(c: RedisClient): c is Cluster {
  return 'masters' in c;
}

export class RedisConnection {
  private client: Client | Cluster | undefined;
  private ready: Promise<unknown> | undefined;
  private connected = false;
  private lastError = '';

  /** @redis/client, for the clients and for its constants (the response cache's type mapping). */
  readonly lib: typeof RedisLib = createRequire(import.meta.url)('@redis/client') as typeof RedisLib;

  constructor(
    private readonly conf: StorageConfig,
    private readonly purpose: string,
  ) {}

  /** The client for `conf`, made on first need. */
  private make(): Client | Cluster {
    const { createClient, createCluster } = this.lib;
    const conf = this.conf;
    const auth = { username: conf.username || undefined, password: conf.password || undefined };
    const reconnectStrategy = (n: number) => Math.min(50 * 2 ** n, 2_000);
    if (conf.enable_cluster && conf.addrs.length > 0) {
      const cluster: Cluster = createCluster({
        rootNodes: conf.addrs.map((a) => ({ socket: splitAddr(a) })),
        defaults: { ...auth, socket: { reconnectStrategy } },
      });
      cluster.on('error', (err: unknown) => this.failed(err));
      return cluster;
    }
    const { host, port } = conf.addrs.length > 0 && !conf.host ? splitAddr(conf.addrs[0]!) : { host: conf.host || '127.0.0.1', port: conf.port || 6379 };
    // Without an offline queue a command during an outage fails at once instead of waiting.
    const client: Client = createClient({
      ...auth,
      database: conf.database || 0,
      disableOfflineQueue: true,
      socket: { host, port, connectTimeout: CONNECT_WAIT_MS, reconnectStrategy },
    });
    client.on('error', (err: unknown) => this.failed(err));
    return client;
  }

  /** Redis errors repeat during an outage: kept (without credentials: the client never puts them in its messages) for the next caller's error. */
  private failed(err: unknown): void {
    this.lastError = err instanceof Error ? err.message : String(err);
  }

  /** The connected client; throws (naming no credential) when Redis cannot be reached within a short wait. */
  async redis(): Promise<RedisClient> {
    if (this.connected) return this.client!;
    this.client ??= this.make();
    // The first connection keeps trying in the background (reconnectStrategy); a caller waits
    // for it at most CONNECT_WAIT_MS.
    this.ready ??= this.client.connect().then(
      () => (this.connected = true),
      (err: unknown) => {
        this.ready = undefined;
        this.failed(err);
      },
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.ready, new Promise((r) => (timer = setTimeout(r, CONNECT_WAIT_MS)))]);
    clearTimeout(timer);
    if (!this.connected)
      throw new Error(
        `cannot connect to Redis for ${this.purpose}${this.lastError ? `: ${this.lastError}` : ''}; check svc.conf storage (host, port, credentials) and that Redis is up`,
      );
    return this.client!;
  }

  /** The clients to scan for keys: every master of a cluster, or the one client. */
  async nodes(): Promise<Client[]> {
    const r = await this.redis();
    return isCluster(r) ? Promise.all(r.masters.map((m) => r.nodeClient(m) as Promise<Client>)) : [r];
  }

  async close(): Promise<void> {
    const c = this.client;
    if (this.ready === undefined || c === undefined) return;
    if (!this.connected) {
      c.destroy();
      return;
    }
    try {
      await c.close();
    } catch {
      c.destroy();
    }
  }
}
