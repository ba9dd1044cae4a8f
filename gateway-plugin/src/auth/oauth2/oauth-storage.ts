/**
 * Where Tyk's OAuth 2.0 server keeps its data (gateway/oauth_manager.go, `RedisOsinStorageInterface`):
 * per API under `oauth-data.<api id>.` — clients (`oauth-clientid.<id>`, Tyk's JSON), the org's
 * client index list (`oauth-client-index.<org>`), authorize codes (`oauth-authorize.<code>`), access
 * data (`oauth-access.<token hash>`), refresh tokens (`oauth-refresh.<token>`) and each client's
 * tokens (the sorted set `oauth-client-tokens.<id>`, scored by expiry). The access token's session
 * itself is an ordinary key of the session store (`apikey-<hash>`), so a bearer token is checked as
 * an auth key is.
 *
 * With svc.conf `storage` this is Redis under Tyk's names, so several processes, several svc nodes
 * and Tyk itself agree. Without it, one map for the gateway: with processes, kept by the primary
 * (a write resolves once every process has it), else in this process.
 */
import { type ProcessLink, ReplicatedMap, processLink } from '@svc/engine/kit';
import type { StorageConfig } from '../../conf/gateway-config.js';
import type { GatewayState } from '../../kernel/state.js';
import { RedisConnection } from '../../sessions/redis-connection.js';

/** A member of a sorted set with its score (for client tokens: the Unix second it expires). */
export interface Scored {
  member: string;
  score: number;
}

/** The primitives Tyk's OAuth storage uses, on full key names. */
export interface OAuthStorage {
  get(key: string): Promise<string | undefined>;
  /** `ttlSeconds` > 0 expires the key. */
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  del(key: string): Promise<void>;
  /** Appends `member` to the list `key` after removing it (Tyk's index: LREM then RPUSH). */
  listPut(key: string, member: string): Promise<void>;
  listRemove(key: string, member: string): Promise<void>;
  listRange(key: string, max: number): Promise<string[]>;
  zadd(key: string, member: string, score: number): Promise<void>;
  /** Members scored `min` or more, lowest first, at most `max` of them. */
  zrangeFrom(key: string, min: number, max: number): Promise<Scored[]>;
  /** How many members are scored `min` or more. */
  zcountFrom(key: string, min: number): Promise<number>;
  /** Removes the members scored exactly `score` (Tyk's RemoveAccess: ZREMRANGEBYSCORE s s). */
  zremScore(key: string, score: number): Promise<void>;
  /** Removes the members scored `max` or less (Tyk's purge of lapsed tokens). */
  zremUpTo(key: string, max: number): Promise<void>;
}

class RedisOAuthStorage implements OAuthStorage {
  constructor(private readonly connection: RedisConnection) {}

  private redis() {
    return this.connection.redis();
  }

  async get(key: string): Promise<string | undefined> {
    const v = await (await this.redis()).get(key);
    return v === null || v === undefined ? undefined : String(v);
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    const r = await this.redis();
    if (ttlSeconds > 0) await r.set(key, value, { expiration: { type: 'EX', value: Math.ceil(ttlSeconds) } });
    else await r.set(key, value);
  }

  async del(key: string): Promise<void> {
    await (await this.redis()).del(key);
  }

  async listPut(key: string, member: string): Promise<void> {
    const r = await this.redis();
    await r.lRem(key, 0, member);
    await r.rPush(key, member);
  }

  async listRemove(key: string, member: string): Promise<void> {
    await (await this.redis()).lRem(key, 0, member);
  }

  async listRange(key: string, max: number): Promise<string[]> {
    return (await (await this.redis()).lRange(key, 0, max - 1)).map(String);
  }

  async zadd(key: string, member: string, score: number): Promise<void> {
    await (await this.redis()).zAdd(key, { score, value: member });
  }

  async zrangeFrom(key: string, min: number, max: number): Promise<Scored[]> {
    const rows = await (await this.redis()).zRangeByScoreWithScores(key, min, '+inf', { LIMIT: { offset: 0, count: max } });
    return rows.map((r) => ({ member: String(r.value), score: Number(r.score) }));
  }

  async zcountFrom(key: string, min: number): Promise<number> {
    return Number(await (await this.redis()).zCount(key, min, '+inf'));
  }

  async zremScore(key: string, score: number): Promise<void> {
    await (await this.redis()).zRemRangeByScore(key, score, score);
  }

  async zremUpTo(key: string, max: number): Promise<void> {
    await (await this.redis()).zRemRangeByScore(key, '-inf', max);
  }
}

/** The map's values: a string, a list, or a sorted set (member → score). */
type Value = string | string[] | Record<string, number>;

/** Where the in-memory storage keeps its values: this process's map, or one every process shares. */
interface ValueMap {
  get(key: string): Value | undefined;
  set(key: string, value: Value, expiresAt: number): Promise<void>;
  delete(key: string): Promise<unknown>;
}

/** A LocalMap drops its expired entries once every this many writes (a read drops the one it finds). */
const SWEEP_EVERY = 1000;

class LocalMap implements ValueMap {
  private readonly entries = new Map<string, { value: Value; expiresAt: number }>();
  private writes = 0;
  get(key: string): Value | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (e.expiresAt !== 0 && e.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }
  set(key: string, value: Value, expiresAt: number): Promise<void> {
    this.entries.set(key, { value, expiresAt });
    if (++this.writes % SWEEP_EVERY === 0) {
      const now = Date.now();
      for (const [k, e] of this.entries) if (e.expiresAt !== 0 && e.expiresAt <= now) this.entries.delete(k);
    }
    return Promise.resolve();
  }
  delete(key: string): Promise<boolean> {
    return Promise.resolve(this.entries.delete(key));
  }
}

/** Without Redis, the most live tokens one client may hold. */
export const MAX_MEMORY_TOKENS = 10_000;

class MemoryOAuthStorage implements OAuthStorage {
  constructor(private readonly map: ValueMap) {}

  get(key: string): Promise<string | undefined> {
    const v = this.map.get(key);
    return Promise.resolve(typeof v === 'string' ? v : undefined);
  }

  set(key: string, value: string, ttlSeconds: number): Promise<void> {
    return this.map.set(key, value, ttlSeconds > 0 ? Date.now() + ttlSeconds * 1000 : 0);
  }

  async del(key: string): Promise<void> {
    await this.map.delete(key);
  }

  private list(key: string): string[] {
    const v = this.map.get(key);
    return Array.isArray(v) ? v : [];
  }

  private zset(key: string): Record<string, number> {
    const v = this.map.get(key);
    return v !== undefined && typeof v === 'object' && !Array.isArray(v) ? v : {};
  }

  listPut(key: string, member: string): Promise<void> {
    return this.map.set(key, [...this.list(key).filter((m) => m !== member), member], 0);
  }

  listRemove(key: string, member: string): Promise<void> {
    return this.map.set(
      key,
      this.list(key).filter((m) => m !== member),
      0,
    );
  }

  listRange(key: string, max: number): Promise<string[]> {
    return Promise.resolve(this.list(key).slice(0, max));
  }

  /**
   * The set is one value (every process gets all of it on a write): expired members are dropped
   * here, and a set of MAX_MEMORY_TOKENS live members takes no more (the token is refused rather
   * than kept where revoke_all could not find it; Redis has no such bound).
   */
  zadd(key: string, member: string, score: number): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    const z = new Map(Object.entries(this.zset(key)).filter(([, s]) => s >= now));
    if (z.size >= MAX_MEMORY_TOKENS && !z.has(member))
      return Promise.reject(new Error(`more than ${MAX_MEMORY_TOKENS} live tokens for one OAuth client in memory`));
    z.set(member, score);
    return this.map.set(key, Object.fromEntries(z), 0);
  }

  private sortedFrom(key: string, min: number): Scored[] {
    return Object.entries(this.zset(key))
      .filter(([, s]) => s >= min)
      .map(([member, score]) => ({ member, score }))
      .sort((a, b) => a.score - b.score || (a.member < b.member ? -1 : 1));
  }

  zrangeFrom(key: string, min: number, max: number): Promise<Scored[]> {
    return Promise.resolve(this.sortedFrom(key, min).slice(0, max));
  }

  zcountFrom(key: string, min: number): Promise<number> {
    return Promise.resolve(this.sortedFrom(key, min).length);
  }

  zremScore(key: string, score: number): Promise<void> {
    const kept = Object.entries(this.zset(key)).filter(([, s]) => s !== score);
    return this.map.set(key, Object.fromEntries(kept), 0);
  }

  zremUpTo(key: string, max: number): Promise<void> {
    const kept = Object.entries(this.zset(key)).filter(([, s]) => s > max);
    return this.map.set(key, Object.fromEntries(kept), 0);
  }
}

const storages = new WeakMap<GatewayState, Promise<OAuthStorage>>();

async function open(state: GatewayState, storage: StorageConfig | undefined, link: ProcessLink | undefined): Promise<OAuthStorage> {
  if (storage !== undefined) return new RedisOAuthStorage(new RedisConnection(storage, 'OAuth 2.0'));
  if (link === undefined) return new MemoryOAuthStorage(new LocalMap());
  const map = new ReplicatedMap<Value>(link, `svc.gateway.oauth:${state.name}`);
  await map.load();
  return new MemoryOAuthStorage(map);
}

/** The OAuth storage of `state`'s gateway, opened on first use. */
export function oauthStorage(state: GatewayState): Promise<OAuthStorage> {
  let s = storages.get(state);
  if (s === undefined) {
    s = open(state, state.config.storage, processLink());
    // A failed open (the primary did not answer) is tried again by the next caller.
    s.catch(() => storages.delete(state));
    storages.set(state, s);
  }
  return s;
}
