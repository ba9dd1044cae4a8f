import { f, parseDuration, registerRateLimit, type RateLimit } from '@svc/engine';
import { WindowTable, windowTableBytes } from '@svc/engine/kit';
import { checkCost } from './cost.js';

const spec = f.object({
  count: f
    .int()
    .default(1000)
    .describe('The number of accesses allowed per interval.')
    .validate((n) => (n < 1 ? 'count must be at least 1' : undefined)),
  interval: f.duration().default('1s').describe('The interval over which count accesses are allowed.'),
  max_keys: f
    .int()
    .default(4096)
    .describe(
      'How many keys (buckets besides the unkeyed one) the table holds. When a new key finds its neighbourhood full, it takes over the bucket whose window started longest ago (an ended window first), and an evicted key starts afresh: a full table errs towards admitting.',
    )
    .validate((n) => (n < 1 || n > 2 ** 24 ? 'max_keys must be between 1 and 16777216' : undefined)),
});

/**
 * A fixed-window limit of `count` per `interval` per key, held in memory shared by every thread
 * of the stream (the engine's {@link WindowTable}: a SharedArrayBuffer guarded by an Atomics spin
 * lock held for a few instructions), so that processors on all pipeline threads draw from one
 * budget per key. An access without a key uses the table's unkeyed window.
 */
export class LocalRateLimit implements RateLimit {
  private readonly table: WindowTable;

  constructor(
    sab: SharedArrayBuffer,
    private readonly count: number,
    private readonly intervalMs: number,
    now: () => number = Date.now,
  ) {
    this.table = new WindowTable(sab, now);
  }

  access(key?: string, cost = 1): number {
    checkCost(cost);
    // A cost above count would never fit: it takes a whole fresh window instead.
    const w = this.table.take(key, this.count, this.intervalMs, Math.min(cost, this.count));
    return w.blocked ? Math.max(1, w.resetMs) : 0;
  }
}

registerRateLimit('local', {
  summary: 'Allows count accesses per interval (per key), shared by every component and thread of the stream.',
  description:
    'The local kind does not coordinate across running instances (use `redis` for that). Each key given to an access has its own bucket, in a table of `max_keys` held in memory shared by the pipeline threads.',
  config: spec,
  examples: ['rate_limit_resources:\n  - label: api\n    local:\n      count: 100\n      interval: 1s\n'],
  factory: (conf, ctx) =>
    new LocalRateLimit(ctx.sharedBuffer(`rate_limit:${ctx.label}`, windowTableBytes(conf.max_keys)), conf.count, parseDuration(conf.interval)),
});
