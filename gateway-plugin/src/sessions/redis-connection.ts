/**
 * One connection to the Redis of svc.conf's `storage`, shared by what the gateway keeps there
 * (sessions, rate limits, quotas). `enable_cluster` with `addrs` uses a Redis Cluster client;
 * otherwise `host`/`port` (or the first of `addrs`), `username`, `password`, `database`. It
 * opens on first use, so making it never blocks start-up; during an outage a command fails at
 * once (no offline queue) and the client reconnects in the background.
 */
import { createClient, createCluster } from '@redis/client';
import type { StorageConfig } from '../conf/gateway-config.js';

type Client = ReturnType<typeof createClient>;
/** How long a caller waits for the first connection before its call fails. */
const CONNECT_WAIT_MS = 2_000;
type Cluster = ReturnType<typeof createCluster>;
export type RedisClient = Client | Cluster;

function splitAddr(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':');
  return i < 0 ? { host: addr, port: 6379 } : { host: addr.slice(0, i), port: Number(addr.slice(i + 1)) || 6379 };
}

export class RedisConnection {
  private readonly client: Client | undefined;
  private readonly cluster: Cluster | undefined;
  private ready: Promise<unknown> | undefined;
  private connected = false;
  private lastError = '';

  constructor(
    conf: StorageConfig,
    private readonly purpose: string,
  ) {
    const auth = { username: conf.username || undefined, password: conf.password || undefined };
    const reconnectStrategy = (n: number) => Math.min(50 * 2 ** n, 2_000);
    if (conf.enable_cluster && conf.addrs.length > 0) {
      this.cluster = createCluster({
        rootNodes: conf.addrs.map((a) => ({ socket: splitAddr(a) })),
        defaults: { ...auth, socket: { reconnectStrategy } },
      });
      this.cluster.on('error', (err: unknown) => this.failed(err));
    } else {
      const { host, port } = conf.addrs.length > 0 && !conf.host ? splitAddr(conf.addrs[0]!) : { host: conf.host || '127.0.0.1', port: conf.port || 6379 };
      // Without an offline queue a command during an outage fails at once instead of waiting.
      this.client = createClient({
        ...auth,
        database: conf.database || 0,
        disableOfflineQueue: true,
        socket: { host, port, connectTimeout: CONNECT_WAIT_MS, reconnectStrategy },
      });
      this.client.on('error', (err: unknown) => this.failed(err));
    }
  }

  /** Redis errors repeat during an outage: kept (without credentials: the client never puts them in its messages) for the next caller's error. */
  private failed(err: unknown): void {
    this.lastError = err instanceof Error ? err.message : String(err);
  }

  /** The connected client; throws (naming no credential) when Redis cannot be reached within a short wait. */
  async redis(): Promise<RedisClient> {
    const c = (this.cluster ?? this.client)!;
    if (this.connected) return c;
    // The first connection keeps trying in the background (reconnectStrategy); a caller waits
    // for it at most CONNECT_WAIT_MS.
    this.ready ??= c.connect().then(
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
    return c;
  }

  /** The clients to scan for keys: every master of a cluster, or the one client. */
  async nodes(): Promise<Client[]> {
    const r = await this.redis();
    return this.cluster ? Promise.all(this.cluster.masters.map((m) => this.cluster!.nodeClient(m) as Promise<Client>)) : [r as Client];
  }

  async close(): Promise<void> {
    const c = this.cluster ?? this.client;
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
