/**
 * Tyk's local session cache (svc.conf `local_session_cache`, on unless
 * `disable_cached_session_state`): a session read from the shared store (Redis) is kept in this
 * process for 10 seconds (Tyk: `SessionCache = cache.New(10, 5)`; v5.14 reads neither
 * `cached_session_timeout` nor `cached_session_eviction`), so an auth key costs one Redis read per
 * key and process every 10 s instead of one per request. Only found sessions are kept, as Tyk.
 *
 * A write through this engine (the management API, a session derived from a JWT) drops the entry
 * here and, with processes, in every other process before it resolves, so a deleted key is refused
 * at once by every process of this engine. A write by another gateway on the same Redis is seen
 * within the 10 s, as between Tyk nodes.
 */
import type { ProcessLink } from '@svc/engine/kit';
import type { SessionStore } from './session-store.js';
import type { SessionState } from './session.js';

/** How long a session read from the store is served from memory (Tyk's fixed 10 s). */
export const SESSION_CACHE_MS = 10_000;
/** At most this many sessions are kept; the oldest make room (a key seen within 10 s is read once more). */
const MAX_CACHED = 100_000;

interface Cached {
  session: SessionState;
  until: number;
}

export class CachedSessionStore implements SessionStore {
  readonly shared: boolean;
  private readonly cache = new Map<string, Cached>();
  /** Counts writes: a read that a write overtook is not kept (it may hold the session from before). */
  private writes = 0;
  private readonly unlink: (() => void) | undefined;

  constructor(
    private readonly store: SessionStore,
    /** The other processes of this engine, told of every write (undefined: one process). */
    private readonly link: ProcessLink | undefined,
    /** The gateway's name: its processes' broadcasts name it. */
    private readonly gateway: string,
    private readonly now: () => number = Date.now,
  ) {
    this.shared = store.shared;
    this.unlink = link?.on(this.topic(), (keyId) => {
      this.writes++;
      this.cache.delete(String(keyId));
    });
  }

  private topic(): string {
    return `svc.gateway.session-written:${this.gateway}`;
  }

  async get(keyId: string): Promise<SessionState | undefined> {
    const hit = this.cache.get(keyId);
    if (hit !== undefined) {
      if (hit.until > this.now()) return hit.session;
      this.cache.delete(keyId);
    }
    const writes = this.writes;
    const session = await this.store.get(keyId);
    if (session !== undefined && writes === this.writes) {
      if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(keyId, { session, until: this.now() + SESSION_CACHE_MS });
    }
    return session;
  }

  async set(keyId: string, session: SessionState, ttlSeconds?: number): Promise<void> {
    await this.store.set(keyId, session, ttlSeconds);
    await this.written(keyId);
  }

  async delete(keyId: string): Promise<boolean> {
    const deleted = await this.store.delete(keyId);
    await this.written(keyId);
    return deleted;
  }

  keys(): Promise<string[]> {
    return this.store.keys();
  }

  /** Drops `keyId` here and in every other process. */
  private async written(keyId: string): Promise<void> {
    this.writes++;
    this.cache.delete(keyId);
    await this.link?.broadcast(this.topic(), keyId);
  }

  close(): Promise<void> {
    this.unlink?.();
    this.cache.clear();
    return this.store.close();
  }
}
