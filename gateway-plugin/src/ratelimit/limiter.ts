/**
 * What every rate limit algorithm answers for one request against one limit, and which algorithm
 * svc.conf selects. Tyk's precedence (internal/rate/limiter.go, session_manager.go): fixed window,
 * then sentinel, then the rolling log, else the distributed token bucket, which itself hands low
 * limits to the rolling log when `drl_threshold` says so.
 */
import type { GatewayConfig } from '../conf/gateway-config.js';
import type { Smoothing } from '../sessions/session.js';

/** One limit to check: `rate` requests per `per` seconds, counted under `key`. */
export interface Limit {
  key: string;
  rate: number;
  per: number;
  /** The rolling limiter's smoothing, when the session or access right has it enabled. */
  smoothing?: Smoothing;
}

export interface Verdict {
  blocked: boolean;
  /** The limit as the client is told it (X-RateLimit-Limit). */
  limit: number;
  remaining: number;
  /** Ms until a request would be admitted again (0 when it was). */
  resetMs: number;
}

export interface Limiter {
  check(limit: Limit): Verdict | Promise<Verdict>;
  close(): Promise<void>;
}

export type Algorithm = 'fixed-window' | 'sentinel' | 'rolling' | 'distributed';

export function algorithmOf(config: GatewayConfig): Algorithm {
  if (config.enable_fixed_window_rate_limiter) return 'fixed-window';
  if (config.enable_sentinel_rate_limiter) return 'sentinel';
  if (config.enable_shared_store_rolling_limiter) return 'rolling';
  return 'distributed';
}

/**
 * Why a config cannot rate limit as asked, or undefined. The rolling log and the sentinel are
 * cluster-wide logs kept in the shared store: without `storage` there is none (Tyk has no
 * in-memory variant either), and silently counting another way would not be what was asked.
 */
export function algorithmProblem(config: GatewayConfig): string | undefined {
  const algorithm = algorithmOf(config);
  if (config.storage === undefined && (algorithm === 'rolling' || algorithm === 'sentinel')) {
    const field = algorithm === 'rolling' ? 'enable_shared_store_rolling_limiter' : 'enable_sentinel_rate_limiter';
    return `${field} needs the shared store: add "storage" (Redis) to svc.conf, or use the default distributed limiter or enable_fixed_window_rate_limiter, which count in memory`;
  }
  return undefined;
}

/** The smoothing object as Tyk validates it (apidef RateLimitSmoothing.Err): anything else is off. */
export function smoothingOn(s: Smoothing | undefined): s is Smoothing {
  return s !== undefined && s.enabled === true && s.step > 0 && s.delay > 0 && s.threshold > 0 && s.trigger > 0;
}
