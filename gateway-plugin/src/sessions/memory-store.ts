/**
 * Sessions in this process's memory (svc.conf without `storage`). Expired entries are dropped
 * when read.
 */
import type { SessionStore } from './session-store.js';
import type { SessionState } from './session.js';

interface Entry {
  session: SessionState;
  /** ms since the epoch; 0 = never. */
  expiresAt: number;
}

export class MemorySessionStore implements SessionStore {
  readonly shared = false;
  private readonly entries = new Map<string, Entry>();

  get(keyId: string): Promise<SessionState | undefined> {
    return Promise.resolve(this.read(keyId));
  }

  /** The session now, without a promise (the hot path of an in-memory lookup). */
  read(keyId: string): SessionState | undefined {
    const e = this.entries.get(keyId);
    if (e === undefined) return undefined;
    if (e.expiresAt !== 0 && e.expiresAt <= Date.now()) {
      this.entries.delete(keyId);
      return undefined;
    }
    return e.session;
  }

  set(keyId: string, session: SessionState, ttlSeconds = 0): Promise<void> {
    this.entries.set(keyId, { session, expiresAt: ttlSeconds > 0 ? Date.now() + ttlSeconds * 1000 : 0 });
    return Promise.resolve();
  }

  delete(keyId: string): Promise<boolean> {
    return Promise.resolve(this.entries.delete(keyId));
  }

  keys(): Promise<string[]> {
    return Promise.resolve([...this.entries.keys()].filter((k) => this.read(k) !== undefined));
  }

  /** Every live session with its expiry (ms since the epoch; 0 never): a worker replica's snapshot. */
  entriesNow(): Array<[keyId: string, session: SessionState, expiresAt: number]> {
    const now = Date.now();
    const out: Array<[string, SessionState, number]> = [];
    for (const [k, e] of this.entries) if (e.expiresAt === 0 || e.expiresAt > now) out.push([k, e.session, e.expiresAt]);
    return out;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
