/**
 * Rate limits counted in this process's memory (svc.conf without `storage`): the distributed
 * limiter on one instance and the fixed window are then the same thing, Tyk's in-memory bucket
 * of `rate` per `per` from a key's first request (the engine's WindowTable), exact across threads.
 */
import type { Limit, Limiter, Verdict } from './limiter.js';
import type { WindowTable } from '@svc/engine/kit';

export class MemoryLimiter implements Limiter {
  constructor(private readonly table: WindowTable) {}

  check(limit: Limit): Verdict {
    const w = this.table.take(limit.key, limit.rate, limit.per * 1000);
    return { blocked: w.blocked, limit: limit.rate, remaining: w.remaining, resetMs: w.blocked ? w.resetMs : 0 };
  }

  async close(): Promise<void> {}
}
