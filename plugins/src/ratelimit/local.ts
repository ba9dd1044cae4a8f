import { f, parseDuration, registerRateLimit, type RateLimit } from '@svc/engine';

const spec = f.object({
  count: f.int().default(1000).describe('The number of accesses allowed per interval.').validate((n) => (n < 1 ? 'count must be at least 1' : undefined)),
  interval: f.duration().default('1s').describe('The interval over which count accesses are allowed.'),
});

// Shared layout (Int32 slots): [lock, remaining, windowStartHigh, windowStartLow]
const LOCK = 0;
const REMAINING = 1;
const START_HI = 2;
const START_LO = 3;

/**
 * A fixed-window limit of `count` per `interval`, held in memory shared by every thread of the
 * stream (a SharedArrayBuffer guarded by an Atomics spin lock held for a few instructions), so
 * that processors on all pipeline threads draw from one budget.
 */
export class LocalRateLimit implements RateLimit {
  private readonly cells: Int32Array;

  constructor(
    sab: SharedArrayBuffer,
    private readonly count: number,
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.cells = new Int32Array(sab);
  }

  access(): number {
    const c = this.cells;
    while (Atomics.compareExchange(c, LOCK, 0, 1) !== 0) {
      // Spin: the critical section is a handful of instructions.
    }
    try {
      const now = this.now();
      const start = c[START_HI]! * 2 ** 32 + (c[START_LO]! >>> 0);
      if (start === 0 || now - start >= this.intervalMs) {
        c[START_HI] = Math.floor(now / 2 ** 32);
        c[START_LO] = now % 2 ** 32 | 0;
        c[REMAINING] = this.count;
      }
      if (c[REMAINING]! > 0) {
        c[REMAINING]!--;
        return 0;
      }
      const startNow = c[START_HI]! * 2 ** 32 + (c[START_LO]! >>> 0);
      return Math.max(1, startNow + this.intervalMs - now);
    } finally {
      Atomics.store(c, LOCK, 0);
    }
  }
}

registerRateLimit('local', {
  summary: 'Allows count accesses per interval, shared by every component and thread of the stream.',
  description: 'The local kind does not coordinate across running instances.',
  config: spec,
  examples: ['rate_limit_resources:\n  - label: api\n    local:\n      count: 100\n      interval: 1s\n'],
  factory: (conf, ctx) => new LocalRateLimit(ctx.sharedBuffer(`rate_limit:${ctx.label}`, 16), conf.count, parseDuration(conf.interval)),
});
