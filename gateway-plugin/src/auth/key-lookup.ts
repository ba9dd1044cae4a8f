/**
 * Finding a key's session as Tyk does (`CheckSessionAndIdentityForValidKey`): keys shorter than
 * 3 characters are unknown; the store names tried are those of `storeKeyCandidates` (hashed when
 * `hash_keys`); a session whose policies cannot be applied counts as not found. The applied
 * session is kept per stored session object and state version, so an unchanged key does not have
 * its policies applied again on every request (treat it as read-only).
 */
import type { ApiSpec } from '../apis/api-spec.js';
import type { GatewayState } from '../kernel/state.js';
import { applyPolicies } from '../sessions/apply-policies.js';
import { storeKeyCandidates } from '../sessions/key-hash.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { SessionState } from '../sessions/session.js';

const MIN_TOKEN_LENGTH = 3;

export interface FoundKey {
  /** The name the session is stored under (the key's hash when `hash_keys`). */
  name: string;
  session: SessionState;
}

interface Applied {
  version: number;
  orgId: string;
  session: SessionState | undefined;
}

const appliedCache = new WeakMap<SessionState, Applied>();

/** The session with its policies applied, or undefined when they cannot be (Tyk: key not found). */
export function appliedSession(stored: SessionState, state: GatewayState, orgId: string): SessionState | undefined {
  const hit = appliedCache.get(stored);
  if (hit !== undefined && hit.version === state.version && hit.orgId === orgId) return hit.session;
  const copy = structuredClone(stored);
  const err = applyPolicies(copy, (id) => state.policy(id), orgId);
  const session = err === undefined ? copy : undefined;
  appliedCache.set(stored, { version: state.version, orgId, session });
  return session;
}

function readNow(store: SessionStore, name: string): SessionState | undefined | Promise<SessionState | undefined> {
  const sync = (store as { read?: (k: string) => SessionState | undefined }).read;
  return typeof sync === 'function' ? sync.call(store, name) : store.get(name);
}

export async function findKey(state: GatewayState, api: ApiSpec, key: string): Promise<FoundKey | undefined> {
  if (key.length < MIN_TOKEN_LENGTH) return undefined;
  const names = storeKeyCandidates(key, api.orgId, state.config.hash_key_function ?? '', state.config.hash_keys === true);
  for (const name of names) {
    const found = readNow(state.sessions, name);
    const stored = found instanceof Promise ? await found : found;
    if (stored === undefined) continue;
    const session = appliedSession(stored, state, api.orgId);
    return session === undefined ? undefined : { name, session };
  }
  return undefined;
}
