/**
 * The messages a gateway's state travels in between threads, over one `BroadcastChannel` per
 * gateway (named {@link channelName}). The main thread owns the state and publishes every change
 * with the state's version, which grows by one per change; a worker's replica applies them in
 * order. Messages from one sender arrive in the order sent, so a replica that has a snapshot at
 * version V needs only the changes after V.
 */
import type { ApiSpec } from '../apis/api-spec.js';
import type { GatewayConfig } from '../conf/gateway-config.js';
import type { Policy, SessionState } from '../sessions/session.js';

export function channelName(gateway: string): string {
  return `svc.gateway.state:${gateway}`;
}

/** A session as it travels: its key, the session, and when it expires (ms since the epoch; 0 never). */
export type SessionEntry = [keyId: string, session: SessionState, expiresAt: number];

/**
 * Main thread → workers. `epoch` names the main thread's state: a gateway started again under
 * the same name (a stream replaced) counts its versions from the start, and a replica that sees a
 * new epoch starts over from its snapshot instead of taking the new versions for old ones.
 */
export type Published =
  | {
      t: 'snapshot';
      epoch: string;
      version: number;
      config: GatewayConfig;
      apis: ApiSpec[];
      policies: Policy[];
      /** Every session when the store is this process's memory; null when it is shared (Redis): ask. */
      sessions: SessionEntry[] | null;
    }
  | { t: 'apis'; epoch: string; version: number; apis: ApiSpec[] }
  | { t: 'policies'; epoch: string; version: number; policies: Policy[] }
  | { t: 'session'; epoch: string; version: number; keyId: string; session: SessionState | null; expiresAt: number }
  /** The answer to request `id` of one replica: the version its write became, or a session read. */
  | { t: 'reply'; id: string; version?: number; session?: SessionState | null; error?: string };

/** Workers → main thread. */
export type Request =
  | { t: 'hello' }
  | { t: 'set'; id: string; keyId: string; session: SessionState; ttl: number }
  | { t: 'delete'; id: string; keyId: string }
  | { t: 'get'; id: string; keyId: string };
