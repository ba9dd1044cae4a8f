/**
 * Sessions in memory when the gateway runs as several processes (`processes`, svc.conf without
 * `storage`): every process holds a copy (reads are local and synchronous, as in
 * {@link MemorySessionStore}), the primary keeps the one the others start from, and a write
 * resolves once every process has it. So a key created through the management API, whichever
 * process took the call, is valid in every process for the next request; deleted, refused at once.
 */
import { type ProcessLink, ReplicatedMap } from '@svc/engine/kit';
import type { SessionStore } from './session-store.js';
import type { SessionState } from './session.js';

export class ProcessSessionStore implements SessionStore {
  /** The sessions live in this engine's memory: a session derived per request is not written (see SessionStore.shared). */
  readonly shared = false;
  private readonly map: ReplicatedMap<SessionState>;

  private constructor(link: ProcessLink, gateway: string) {
    this.map = new ReplicatedMap<SessionState>(link, `svc.gateway.sessions:${gateway}`);
  }

  /** The sessions of gateway `gateway`, with what the other processes wrote already. */
  static async open(link: ProcessLink, gateway: string): Promise<ProcessSessionStore> {
    const store = new ProcessSessionStore(link, gateway);
    await store.map.load();
    return store;
  }

  get(keyId: string): Promise<SessionState | undefined> {
    return Promise.resolve(this.map.get(keyId));
  }

  /** The session now, without a promise (the hot path of an in-memory lookup). */
  read(keyId: string): SessionState | undefined {
    return this.map.get(keyId);
  }

  set(keyId: string, session: SessionState, ttlSeconds = 0): Promise<void> {
    return this.map.set(keyId, session, ttlSeconds > 0 ? Date.now() + ttlSeconds * 1000 : 0);
  }

  delete(keyId: string): Promise<boolean> {
    return this.map.delete(keyId);
  }

  keys(): Promise<string[]> {
    return Promise.resolve(this.map.keys());
  }

  close(): Promise<void> {
    this.map.close();
    return Promise.resolve();
  }
}
