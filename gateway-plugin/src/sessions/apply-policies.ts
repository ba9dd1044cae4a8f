/**
 * Policies applied to a session as Tyk applies them (internal/policy/apply.go `Apply` at v5.14.0),
 * for the fields this gateway uses: access rights (merged: versions, allowed_urls), rate and
 * per, quota, tags, meta_data, is_inactive, per-API and partitioned policies. Several policies
 * combine their rate limits by the highest effective rate (the lowest per/rate), Tyk's
 * 5.4.0 rule. Returns Tyk's error text when the policies cannot be applied, else undefined.
 */
import type { AccessDefinition, AccessLimit, AllowedUrl, Policy, SessionState } from './session.js';

export type PolicyLookup = (id: string) => Policy | undefined;

/** The policy ids of a session (`PolicyIDs`): `apply_policies`, else `apply_policy_id`. */
export function policyIdsOf(s: SessionState): string[] | undefined {
  if (s.apply_policies && s.apply_policies.length > 0) return s.apply_policies;
  if (s.apply_policy_id) return [s.apply_policy_id];
  return undefined;
}

/** Seconds between two requests at this limit; 0 when there is no limit. */
function interval(l: { rate?: number; per?: number }): number {
  const rate = l.rate ?? 0;
  const per = l.per ?? 0;
  return rate > 0 && per > 0 ? per / rate : 0;
}

const emptyRate = (l: { rate?: number; per?: number }): boolean => !l.rate || !l.per;

function limitIsEmpty(l: AccessLimit | undefined): boolean {
  return l === undefined || (!l.rate && !l.per && !l.quota_max && !l.quota_renewal_rate && !l.quota_remaining);
}

function policyLimit(p: Policy): AccessLimit {
  const l: AccessLimit = { rate: p.rate ?? 0, per: p.per ?? 0, quota_max: p.quota_max ?? 0, quota_renewal_rate: p.quota_renewal_rate ?? 0 };
  if (p.smoothing) l.smoothing = p.smoothing;
  return l;
}

interface LimitRecord extends AccessLimit {
  set_by?: string;
}

type Right = AccessDefinition & { limit: LimitRecord; allowance_scope?: string };

function mergeAllowedUrls(a: AllowedUrl[] = [], b: AllowedUrl[] = []): AllowedUrl[] {
  const out = a.map((u) => ({ url: u.url, methods: [...u.methods] }));
  for (const u of b) {
    const same = out.find((o) => o.url === u.url);
    if (same) {
      for (const m of u.methods) if (!same.methods.includes(m)) same.methods.push(m);
    } else out.push({ url: u.url, methods: [...u.methods] });
  }
  return out;
}

/** `ApplyRateLimits`: the policy's limit wins where it allows the higher rate. */
function applyRateLimits(session: SessionState, p: Policy, api: LimitRecord): void {
  const pl = policyLimit(p);
  if (emptyRate(pl)) return;
  if (emptyRate(api) || interval(api) > interval(pl)) {
    api.rate = pl.rate;
    api.per = pl.per;
    if (pl.smoothing) api.smoothing = pl.smoothing;
    else delete api.smoothing;
  }
  if (emptyRate(session) || interval(session) > interval(pl)) {
    session.rate = pl.rate;
    session.per = pl.per;
    if (pl.smoothing) session.smoothing = pl.smoothing;
    else delete session.smoothing;
  }
}

function partitionsOf(p: Policy): { quota: boolean; rate: boolean; acl: boolean; complexity: boolean; perApi: boolean; any: boolean } {
  const q = p.partitions ?? {};
  const quota = q.quota === true;
  const rate = q.rate_limit === true;
  const acl = q.acl === true;
  const complexity = q.complexity === true;
  return { quota, rate, acl, complexity, perApi: q.per_api === true, any: quota || rate || acl || complexity };
}

/**
 * Applies the session's policies to it in place. `orgId` (the API's) must match a policy's
 * `org_id` when both are set.
 */
export function applyPolicies(session: SessionState, lookup: PolicyLookup, orgId = ''): string | undefined {
  const ids = policyIdsOf(session);
  session.meta_data ??= {};

  // ClearSession: the policies' partitions are recomputed from the policies alone.
  for (const id of ids ?? []) {
    const p = lookup(id);
    if (!p) break;
    const part = partitionsOf(p);
    if (part.quota || !part.any) {
      session.quota_max = 0;
      session.quota_remaining = 0;
    }
    if (part.rate || !part.any) {
      session.rate = 0;
      session.per = 0;
      delete session.smoothing;
    }
  }

  const rights: Record<string, Right> = {};
  const tags = new Set<string>();
  const didAcl = new Set<string>();
  const didQuota = new Set<string>();
  const didRate = new Set<string>();
  let didPerApi = false;
  let didPartition = false;
  let inactive = ids && ids.length > 0 ? false : session.is_inactive === true;

  for (const id of ids ?? []) {
    const p = lookup(id);
    if (!p) {
      if (ids!.length > 1) continue;
      return `policy not found: "${id}"`;
    }
    if (orgId && p.org_id && p.org_id !== orgId) return 'attempting to apply policy from different organisation to key, skipping';
    const part = partitionsOf(p);
    if (part.perApi && part.any) return `cannot apply policy ${p.id} which has per_api and any of partitions set`;

    if (part.perApi) {
      if (didPartition) return 'cannot apply multiple policies when some have per_api set and some are partitioned';
      for (const [apiId, ad] of Object.entries(p.access_rights ?? {})) {
        const r: Right = { ...structuredClone(ad), limit: limitIsEmpty(ad.limit) ? policyLimit(p) : { ...structuredClone(ad.limit!) } };
        const scope = limitIsEmpty(ad.limit) ? p.id : apiId;
        r.allowance_scope = scope;
        r.limit.set_by = scope;
        const curr = rights[apiId];
        if (curr) {
          // applyAPILevelLimits: the higher rate and the higher quota of the two.
          if (interval(r.limit) > interval(curr.limit)) {
            r.limit.rate = curr.limit.rate;
            r.limit.per = curr.limit.per;
            r.limit.set_by = curr.limit.set_by;
            r.allowance_scope = curr.allowance_scope;
          }
          if ((curr.limit.quota_max ?? 0) === -1 || ((r.limit.quota_max ?? 0) !== -1 && (curr.limit.quota_max ?? 0) > (r.limit.quota_max ?? 0))) {
            r.limit.quota_max = curr.limit.quota_max;
          }
        }
        rights[apiId] = r;
        didAcl.add(apiId);
        didQuota.add(apiId);
        didRate.add(apiId);
      }
      if (Object.keys(p.access_rights ?? {}).length > 0) didPerApi = true;
    } else {
      if (part.any && didPerApi) return 'cannot apply multiple policies when some have per_api set and some are partitioned';
      for (const apiId of Object.keys(p.access_rights ?? {})) rights[apiId] ??= { api_id: apiId, limit: {} };
      for (const [apiId, v] of Object.entries(p.access_rights ?? {})) {
        const ar = rights[apiId]!;
        if (!part.any || part.acl) {
          didAcl.add(apiId);
          ar.api_id = v.api_id || apiId;
          if (v.api_name !== undefined) ar.api_name = v.api_name;
          ar.versions = [...new Set([...(ar.versions ?? []), ...(v.versions ?? [])])];
          ar.allowed_urls = mergeAllowedUrls(ar.allowed_urls, v.allowed_urls);
          ar.limit.set_by = p.id;
        }
        if (!part.any || part.quota) {
          didQuota.add(apiId);
          const qm = p.quota_max ?? 0;
          const cur = ar.limit.quota_max ?? 0;
          if (cur !== -1 && (qm === -1 || qm > cur)) {
            ar.limit.quota_max = qm;
            const sq = session.quota_max ?? 0;
            if (sq !== -1 && (qm === -1 || qm > sq)) session.quota_max = qm;
          }
          if ((p.quota_renewal_rate ?? 0) > (ar.limit.quota_renewal_rate ?? 0)) {
            ar.limit.quota_renewal_rate = p.quota_renewal_rate;
            if ((p.quota_renewal_rate ?? 0) > (session.quota_renewal_rate ?? 0)) session.quota_renewal_rate = p.quota_renewal_rate;
          }
        }
        if (!part.any || part.rate) {
          didRate.add(apiId);
          applyRateLimits(session, p, ar.limit);
        }
      }
      // A policy without access rights (a "master" policy) sets the session's own limits.
      if (Object.keys(p.access_rights ?? {}).length === 0) {
        if (!part.any || part.rate) {
          session.rate = p.rate ?? 0;
          session.per = p.per ?? 0;
        }
        if (!part.any || part.quota) {
          session.quota_max = p.quota_max ?? 0;
          session.quota_renewal_rate = p.quota_renewal_rate ?? 0;
        }
      }
      didPartition = part.any;
    }

    inactive = inactive || p.is_inactive === true;
    for (const t of p.tags ?? []) tags.add(t);
    Object.assign(session.meta_data, p.meta_data ?? {});
  }

  session.is_inactive = inactive;
  for (const t of session.tags ?? []) tags.add(t);
  session.tags = [...tags];

  if (!ids) {
    for (const [apiId, ad] of Object.entries(session.access_rights ?? {})) {
      if (!limitIsEmpty(ad.limit)) ad.allowance_scope = apiId;
    }
    return undefined;
  }

  const setBy = new Set(
    Object.values(rights)
      .map((r) => r.limit.set_by)
      .filter((s) => s),
  );
  for (const [k, v] of Object.entries(rights)) {
    if (!didAcl.has(k)) {
      delete rights[k];
      continue;
    }
    if (!didRate.has(k)) {
      v.limit.rate = session.rate ?? 0;
      v.limit.per = session.per ?? 0;
    }
    if (!didQuota.has(k)) {
      v.limit.quota_max = session.quota_max ?? 0;
      v.limit.quota_renewal_rate = session.quota_renewal_rate ?? 0;
    }
    if (setBy.size > 1 && !v.allowance_scope && v.limit.set_by) v.allowance_scope = v.limit.set_by;
    delete v.limit.set_by;
  }

  // One API in all: the session's own limits are that API's (updateSessionRootVars).
  if (didQuota.size === 1 && didRate.size === 1) {
    for (const v of Object.values(rights)) {
      session.rate = v.limit.rate ?? 0;
      session.per = v.limit.per ?? 0;
      session.quota_max = v.limit.quota_max ?? 0;
      session.quota_renewal_rate = v.limit.quota_renewal_rate ?? 0;
    }
  }
  if (didAcl.size > 0) session.access_rights = rights;
  session.allowance = session.rate;
  if (Object.keys(rights).length === 0) return 'key has no valid policies to be applied';
  return undefined;
}
