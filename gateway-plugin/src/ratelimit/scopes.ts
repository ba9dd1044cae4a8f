/**
 * Which limits a request meets, at Tyk's five scopes in its order: (1) API-level
 * per-endpoint, (2) API-level (`global_rate_limit`), (3) key-level per-endpoint, (4) key-level
 * per-API (`access_rights[api].limit`), (5) key-level global (the session's rate and per). At
 * each level the most specific configured limit applies and the others are inherited, not added
 * (Tyk's RateLimitForAPI.getSession and SessionLimiter.ForwardMessage): a matching endpoint
 * limit replaces the API's; a key's per-API limit replaces its global one.
 *
 * Counter keys: API level `rate-limit-apilimiter-<org><api>[-<method:path>]`; key level
 * `rate-limit-[<allowance scope>-]<key id>[-<method:path>]`, so a per-API limit (a policy with
 * per-API limits sets the scope to the API id) counts apart from the key's global allowance,
 * which every API the key reaches shares.
 */
import type { ApiSpec, EndpointRateLimit } from '../apis/api-spec.js';
import type { GatewayRequest } from '../kernel/request.js';
import { endpointMatches, endpointPath, pathMatchingOf } from '../apis/endpoints.js';
import type { AccessLimit, SessionState, Smoothing } from '../sessions/session.js';
import type { Limit } from './limiter.js';

const PREFIX = 'rate-limit-';

/** A key-level check: the rate limit (if any) and the quota (if any) of one session for one API. */
export interface KeyLimits {
  rate?: Limit;
  quota?: { key: string; max: number; renewalSeconds: number };
  /** The access right has no entry for this API: Tyk refuses with a rate limit failure. */
  noRight?: boolean;
}

/** Scopes 1 and 2: the API-level limit this request meets, or undefined (none, or disabled). */
export function apiLimit(api: ApiSpec, req: GatewayRequest): Limit | undefined {
  if (api.disableRateLimit) return undefined;
  const base = `${PREFIX}apilimiter-${api.orgId}${api.id}`;
  const path = endpointPath(api, req.path);
  const ep = api.endpointRateLimits.find((e: EndpointRateLimit) => e.rate > 0 && e.per > 0 && endpointMatches(e, req.method, path, pathMatchingOf(api)));
  if (ep !== undefined) return { key: `${base}-${ep.method}:${ep.path}`, rate: ep.rate, per: ep.per };
  const g = api.globalRateLimit;
  return g.rate > 0 && g.per > 0 ? { key: base, rate: g.rate, per: g.per } : undefined;
}

interface EndpointLimitEntry {
  path?: string;
  methods?: Array<{ name?: string; limit?: { rate?: number; per?: number } }>;
}

function limitIsEmpty(l: AccessLimit | undefined): boolean {
  return l === undefined || (!l.rate && !l.per && !l.quota_max && !l.quota_renewal_rate);
}

/** Scopes 3 to 5, and the quota, for a session on an API. */
export function keyLimits(api: ApiSpec, req: GatewayRequest, keyId: string, session: SessionState): KeyLimits {
  const rights = session.access_rights;
  let limit: AccessLimit;
  let scope = '';
  let endpoints: EndpointLimitEntry[] = [];
  if (rights !== undefined && Object.keys(rights).length > 0) {
    const right = rights[api.id];
    if (right === undefined) return { noRight: true };
    limit = limitIsEmpty(right.limit) ? sessionLimit(session) : right.limit!;
    scope = typeof right.allowance_scope === 'string' ? right.allowance_scope : '';
    if (Array.isArray(right.endpoints)) endpoints = right.endpoints as EndpointLimitEntry[];
  } else limit = sessionLimit(session);

  const base = `${PREFIX}${scope ? `${scope}-` : ''}${keyId}`;
  const out: KeyLimits = {};
  let rate = limit.rate ?? 0;
  let per = limit.per ?? 0;
  let key = base;
  const path = endpointPath(api, req.path);
  for (const e of endpoints) {
    if (typeof e.path !== 'string' || !endpointMatches({ path: e.path, method: '' }, req.method, path, pathMatchingOf(api))) continue;
    const m = e.methods?.find((x) => typeof x.name === 'string' && x.name.toUpperCase() === req.method);
    if (m === undefined) continue;
    rate = m.limit?.rate ?? 0;
    per = m.limit?.per ?? 0;
    key = `${base}-${req.method}:${e.path}`;
    break;
  }
  if (rate > 0 && per > 0) out.rate = { key, rate, per, ...(smoothingOf(limit, session) ? { smoothing: smoothingOf(limit, session)! } : {}) };
  const quotaMax = limit.quota_max ?? 0;
  if (quotaMax > 0) out.quota = { key: `quota-${scope ? `${scope}-` : ''}${keyId}`, max: quotaMax, renewalSeconds: limit.quota_renewal_rate ?? 0 };
  return out;
}

function sessionLimit(s: SessionState): AccessLimit {
  return {
    rate: s.rate ?? 0,
    per: s.per ?? 0,
    quota_max: s.quota_max ?? 0,
    quota_renewal_rate: s.quota_renewal_rate ?? 0,
    ...(s.smoothing ? { smoothing: s.smoothing } : {}),
  };
}

/** The access right's smoothing when it has one enabled, else the session's (Tyk's limitRedis). */
function smoothingOf(limit: AccessLimit, session: SessionState): Smoothing | undefined {
  return limit.smoothing?.enabled ? limit.smoothing : session.smoothing;
}
