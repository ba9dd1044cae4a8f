/**
 * Sessions in Redis (svc.conf `storage`), where Tyk keeps them: `apikey-<key id>` (the key id is
 * the key's hash when `hash_keys`: the caller names it, see key-hash.ts), the session as Tyk's
 * JSON, with a TTL when the session has a lifetime. Several gateway processes (and Tyk itself)
 * reading the same Redis see the same keys.
 *
 * `enable_cluster` with `addrs` uses a Redis Cluster client (best effort: keys() scans every
 * master); otherwise `host`/`port` (or the first of `addrs`), `username`, `password`, `database`.
 * The connection is opened on first use, so making the store never blocks start-up.
 */
import { createClient, createCluster } from '@redis/client';
import type { StorageConfig } from '../conf/gateway-config.js';
import type { SessionStore } from './session-store.js';
import type { SessionState } from './session.js';

/** Tyk's prefix for session keys (`RedisCluster{KeyPrefix: "apikey-"}`). */
export const SESSION_KEY_PREFIX = 'apikey-';

type Client = ReturnType<typeof createClient>;
/** How long a caller waits for the first connection before its call fails. */
const CONNECT_WAIT_MS = 2_000;
type Cluster = ReturnType<typeof createCluster>;

function splitAddr(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':');
  return i < 0 ? { host: addr, port: 6379 } : { host: addr.slice(0, i), port: Number(addr.slice(i + 1)) || 6379 };
}

export class RedisSessionStore implements SessionStore {
  readonly shared = true;
  private readonly client: Client | undefined;
  private readonly cluster: Cluster | undefined;
  private ready: Promise<unknown> | undefined;
  private connected = false;
  private lastError = '';

  constructor(
    conf: StorageConfig,
    private readonly prefix = SESSION_KEY_PREFIX,
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

  private async redis(): Promise<Client | Cluster> {
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
        `cannot connect to Redis for sessions${this.lastError ? `: ${this.lastError}` : ''}; check svc.conf storage (host, port, credentials) and that Redis is up`,
      );
    return c;
  }

  async get(keyId: string): Promise<SessionState | undefined> {
    const raw = await (await this.redis()).get(this.prefix + keyId);
    if (raw === null || raw === undefined) return undefined;
    try {
      const v: unknown = JSON.parse(String(raw));
      // Tyk: "Couldn't unmarshal session object" is a key not found.
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as SessionState) : undefined;
    } catch {
      return undefined;
    }
  }

  async set(keyId: string, session: SessionState, ttlSeconds = 0): Promise<void> {
    const r = await this.redis();
    const value = JSON.stringify(session);
    if (ttlSeconds > 0) await r.set(this.prefix + keyId, value, { expiration: { type: 'EX', value: Math.ceil(ttlSeconds) } });
    else await r.set(this.prefix + keyId, value);
  }

  async delete(keyId: string): Promise<boolean> {
    return (await (await this.redis()).del(this.prefix + keyId)) > 0;
  }

  async keys(): Promise<string[]> {
    const r = await this.redis();
    const nodes: Client[] = this.cluster ? await Promise.all(this.cluster.masters.map((m) => this.cluster!.nodeClient(m) as Promise<Client>)) : [r as Client];
    const out = new Set<string>();
    for (const node of nodes) {
      for await (const batch of node.scanIterator({ MATCH: `${this.prefix}*`, COUNT: 1000 })) {
        for (const k of batch) out.add(String(k).slice(this.prefix.length));
      }
    }
    return [...out];
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
