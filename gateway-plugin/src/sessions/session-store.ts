/**
 * Where sessions live: in memory (shared by this process's threads through the gateway state's
 * channel) or in Redis (`storage` in svc.conf, shared by gateway processes). Keys are stored
 * hashed when `hash_keys` is on, as Tyk does.
 */
import type { SessionState } from './session.js';

export interface SessionStore {
  /**
   * True when the sessions are shared beyond this process (Redis): a session derived per request
   * (a JWT identity's) is written there, as Tyk does. False in memory: every thread derives it
   * again from the policies, and writing it would only churn the threads' replicas.
   */
  readonly shared: boolean;
  get(keyId: string): Promise<SessionState | undefined>;
  /** Creates or replaces a session; `ttlSeconds` > 0 expires it (Tyk's session_lifetime). */
  set(keyId: string, session: SessionState, ttlSeconds?: number): Promise<void>;
  delete(keyId: string): Promise<boolean>;
  /** The stored key ids (hashes when `hash_keys`). */
  keys(): Promise<string[]>;
  close(): Promise<void>;
}
