/**
 * Rate limits counted in this process's memory (svc.conf without `storage`): the distributed
 * limiter on one instance and the fixed window are then the same thing, Tyk's in-memory bucket
 * of `rate` per `per` from a key's first request (the engine's WindowTable), exact across threads
 * and, with `processes`, across processes (the primary's table).
 */
import type { Limit, Limiter, Verdict } from './limiter.js';
import type { WindowState } from '@svc/engine/kit';
import type { Windows } from './shared-table.js';

export class MemoryLimiter implements Limiter {
  constructor(private readonly table: Windows) {}

  check(limit: Limit): Verdict | Promise<Verdict> {
    const verdict = (w: WindowState): Verdict => ({ blocked: w.blocked, limit: limit.rate, remaining: w.remaining, resetMs: w.blocked ? w.resetMs : 0 });
    const w = this.table.take(limit.key, limit.rate, limit.per * 1000);
    return w instanceof Promise ? w.then(verdict) : verdict(w);
  }

  async close(): Promise<void> {}
}
