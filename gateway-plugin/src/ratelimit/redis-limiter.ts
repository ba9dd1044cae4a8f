/**
 * Rate limits counted in Redis (svc.conf `storage`), shared by every gateway process that uses
 * it, with the algorithms of Tyk's session limiter (gateway/session_manager.go at v5.14.0):
 *
 * - rolling: the sliding log, one atomic script per request that logs blocked requests too
 *   (spike arrest: a client stays blocked until it calls below the limit for a whole window);
 *   with smoothing, the allowance the log is held to moves between `threshold` and the rate;
 *   `enable_non_transactional_rate_limiter` runs the same commands pipelined instead of in one
 *   script (faster for Redis, not atomic: two processes may both see the last free slot).
 * - sentinel: once the log says block, a `<key>.BLOCKED` key with a TTL of `per` blocks at once
 *   for `per`; the log is written in the background.
 * - fixed window: one counter expiring `per` after its window's first request.
 *
 * Redis down: the check throws; the processor answers as `rate_limit_fail_open` says.
 */
import { randomBytes } from 'node:crypto';
import type { RedisConnection } from '../sessions/redis-connection.js';
import { smoothingOn, type Algorithm, type Limit, type Limiter, type Verdict } from './limiter.js';
import { FIXED_WINDOW, SLIDING_LOG_ADD, SMOOTHING, runScript } from './redis-scripts.js';

/** A smoothing allowance change (an event `RateLimitSmoothingUp` / `RateLimitSmoothingDown`). */
export interface SmoothingChange {
  event: 'RateLimitSmoothingUp' | 'RateLimitSmoothingDown';
  key: string;
  allowance: number;
  previous: number;
  rate: number;
}

export interface RedisLimiterOptions {
  algorithm: Exclude<Algorithm, 'distributed'>;
  pipelined: boolean;
  onSmoothing?: (change: SmoothingChange) => void;
}

const SENTINEL_SUFFIX = '.BLOCKED';
/** Member suffixes keep two processes' entries logged in the same µs apart. */
const instanceTag = randomBytes(4).toString('hex');
let sequence = 0;

export class RedisLimiter implements Limiter {
  constructor(
    private readonly connection: RedisConnection,
    private readonly options: RedisLimiterOptions,
  ) {}

  check(limit: Limit): Promise<Verdict> {
    switch (this.options.algorithm) {
      case 'fixed-window':
        return this.fixedWindow(limit);
      case 'sentinel':
        return this.sentinel(limit);
      default:
        return this.rolling(limit, 1);
    }
  }

  private async fixedWindow(limit: Limit): Promise<Verdict> {
    const r = await this.connection.redis();
    const [count, ttl] = (await runScript(r, FIXED_WINDOW, [limit.key], [String(Math.max(1, Math.round(limit.per * 1000)))])) as [number, number];
    const blocked = count > limit.rate;
    return { blocked, limit: limit.rate, remaining: Math.max(0, limit.rate - count), resetMs: blocked ? ttl : 0 };
  }

  /**
   * The sliding log. `subtractor` is Tyk's: the log is read before this request is added (1),
   * and the sentinel blocks one request early since its log is written behind it (2).
   */
  private async rolling(limit: Limit, subtractor: number): Promise<Verdict> {
    const r = await this.connection.redis();
    const nowUs = Date.now() * 1000 + (sequence++ % 1000);
    const per = Math.max(1, Math.ceil(limit.per));
    const member = `${nowUs}-${instanceTag}-${sequence}`;
    let count: number;
    let earliestUs = nowUs;
    if (this.options.pipelined) {
      const replies = await r
        .multi()
        .zRemRangeByScore(limit.key, '-inf', nowUs - limit.per * 1e6)
        .zCard(limit.key)
        .zAdd(limit.key, { score: nowUs, value: member })
        .expire(limit.key, per)
        .execAsPipeline();
      count = Number(replies[1]);
    } else {
      const reply = (await runScript(
        r,
        SLIDING_LOG_ADD,
        [limit.key],
        [String(nowUs), String(nowUs - limit.per * 1e6), String(limit.rate), String(per), member],
      )) as [number, number, string];
      count = reply[0];
      earliestUs = Number(reply[2]);
    }
    let allowed = limit.rate;
    if (smoothingOn(limit.smoothing)) allowed = await this.smooth(limit, count);
    const blocked = count > allowed - subtractor;
    const resetMs = blocked ? Math.max(0, Math.ceil((earliestUs + limit.per * 1e6 - nowUs) / 1000)) : 0;
    return { blocked, limit: allowed, remaining: Math.max(0, allowed - count - 1), resetMs };
  }

  private async smooth(limit: Limit, count: number): Promise<number> {
    const s = limit.smoothing!;
    const r = await this.connection.redis();
    const ttl = Math.max(60, Math.ceil(limit.per * 2 + s.delay * 2));
    const [allowance, change, previous] = (await runScript(
      r,
      SMOOTHING,
      [`${limit.key}-allowance`],
      [String(Date.now()), String(count), String(limit.rate), String(s.threshold), String(s.step), String(s.trigger), String(s.delay), String(ttl)],
    )) as [number, number, number];
    if (change !== 0)
      this.options.onSmoothing?.({ event: change > 0 ? 'RateLimitSmoothingUp' : 'RateLimitSmoothingDown', key: limit.key, allowance, previous, rate: count });
    return allowance;
  }

  private async sentinel(limit: Limit): Promise<Verdict> {
    const r = await this.connection.redis();
    const sentinelKey = limit.key + SENTINEL_SUFFIX;
    const ttl = await r.pTTL(sentinelKey);
    // The log is written behind the answer, as Tyk's deferred limitRedis.
    void this.rolling(limit, 2).then(
      (v) =>
        v.blocked ? r.set(sentinelKey, '1', { expiration: { type: 'PX', value: Math.max(1, Math.round(limit.per * 1000)) }, condition: 'NX' }) : undefined,
      () => undefined,
    );
    const blocked = ttl > 0;
    return { blocked, limit: limit.rate, remaining: 0, resetMs: blocked ? ttl : 0 };
  }

  async close(): Promise<void> {}
}
