/**
 * The session a policy makes, as Tyk's `generateSessionFromPolicy` (gateway/api.go at v5.14.0)
 * builds it for a key the gateway derives itself (a JWT's identity, an OAuth token): the policy's
 * rate (also the allowance), per, quota, access rights, inactive flag and tags, under `orgId`.
 */
import type { Policy, SessionState } from './session.js';

export function policySession(p: Policy, orgId: string): SessionState {
  return {
    org_id: orgId,
    allowance: p.rate ?? 0,
    rate: p.rate ?? 0,
    per: p.per ?? 0,
    quota_max: p.quota_max ?? 0,
    quota_renewal_rate: p.quota_renewal_rate ?? 0,
    access_rights: structuredClone(p.access_rights ?? {}),
    is_inactive: p.is_inactive === true,
    tags: [...(p.tags ?? [])],
  };
}

/** When a key made from `p` now expires (Unix seconds): `key_expires_in` from now, 0 for never. */
export function policyExpiry(p: Policy): number {
  return (p.key_expires_in ?? 0) > 0 ? Math.trunc(Date.now() / 1000) + p.key_expires_in! : 0;
}
