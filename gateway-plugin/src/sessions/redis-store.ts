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
import type { StorageConfig } from '../conf/gateway-config.js';
import { RedisConnection, type RedisClient } from './redis-connection.js';
import type { SessionStore } from './session-store.js';
import type { SessionState } from './session.js';

/** Tyk's prefix for session keys (`RedisCluster{KeyPrefix: "apikey-"}`). */
export const SESSION_KEY_PREFIX = 'apikey-';

export class RedisSessionStore implements SessionStore {
  readonly shared = true;
  private readonly connection: RedisConnection;

  constructor(
    conf: StorageConfig | RedisConnection,
    private readonly prefix = SESSION_KEY_PREFIX,
  ) {
    this.connection = conf instanceof RedisConnection ? conf : new RedisConnection(conf, 'sessions');
  }

  private redis(): Promise<RedisClient> {
    return this.connection.redis();
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
    const nodes = await this.connection.nodes();
    const out = new Set<string>();
    for (const node of nodes) {
      for await (const batch of node.scanIterator({ MATCH: `${this.prefix}*`, COUNT: 1000 })) {
        for (const k of batch) out.add(String(k).slice(this.prefix.length));
      }
    }
    return [...out];
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}
