/**
 * The X-RateLimit-* headers, as Tyk sends them (internal/rate/headers.go). With
 * `rate_limit_response_headers` "quotas" (the default) every proxied answer carries the session's
 * quota for the API: its access right's when that has a limit, else the session's; 0 without a
 * session. With "rate_limits", the rate limit the request met (on 429 answers too), and nothing
 * when none applied.
 */
import type { GatewayRequest } from '../kernel/request.js';

const LIMIT = 'x-ratelimit-limit';
const REMAINING = 'x-ratelimit-remaining';
const RESET = 'x-ratelimit-reset';

export function limitHeaders(req: GatewayRequest, source: string): Record<string, string> | undefined {
  if (source === 'rate_limits') {
    const r = req.rateLimit;
    return r === undefined ? undefined : { [LIMIT]: String(r.limit), [REMAINING]: String(Math.max(0, r.remaining)), [RESET]: String(r.resetAt) };
  }
  const s = req.session?.state;
  const right = s?.access_rights?.[req.apiId]?.limit;
  const q = right !== undefined && (right.rate || right.per || right.quota_max || right.quota_renewal_rate) ? right : s;
  return { [LIMIT]: String(q?.quota_max ?? 0), [REMAINING]: String(q?.quota_remaining ?? 0), [RESET]: String(q?.quota_renews ?? 0) };
}
