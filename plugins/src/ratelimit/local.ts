import { f, parseDuration, registerRateLimit, type RateLimit } from '@svc/engine';
import { checkCost } from './cost.js';
import { KeyHasher } from './key-hash.js';

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

/*
 * Shared layout, all Int32 slots (Atomics need an Int32Array):
 *
 *   header: [lock, seed, defaultRemaining, defaultStartHi, defaultStartLo, 0, 0, 0]
 *   then `slots` buckets of BUCKET ints: [fingerprintHi, fingerprintLo, remaining, startHi, startLo]
 *
 * One lock guards the whole table: every critical section is a bounded probe (at most PROBE
 * buckets) and a few stores, shorter than a per-bucket lock's own bookkeeping would be.
 * A bucket is never emptied once taken, only taken over, so a key is always within PROBE
 * buckets of its home and no empty bucket comes before it: a lookup stops at the first empty one.
 */
const LOCK = 0;
const SEED = 1;
/** The unkeyed bucket overlays the header: its fingerprint ints are the lock and the seed, which take() never touches. */
const UNKEYED = 0;
const HEADER = 8;
const FP_HI = 0;
const FP_LO = 1;
const REMAINING = 2;
const START_HI = 3;
const START_LO = 4;
const BUCKET = 5;
/** How far from its home bucket a key may live; also how many buckets an eviction compares. */
const PROBE = 32;

/** Buckets for `maxKeys` keys: a power of two at twice the keys, so probes stay short. */
export function tableSlots(maxKeys: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(2, maxKeys * 2)));
}

/** Bytes of shared memory a table for `maxKeys` keys takes. */
export function tableBytes(maxKeys: number): number {
  return (HEADER + tableSlots(maxKeys) * BUCKET) * 4;
}

/**
 * A fixed-window limit of `count` per `interval` per key, held in memory shared by every thread
 * of the stream (a SharedArrayBuffer guarded by an Atomics spin lock held for a few instructions),
 * so that processors on all pipeline threads draw from one budget per key.
 *
 * Keys are told apart by a seeded 64-bit hash, not stored: two keys that collide on all 64 bits
 * would share a bucket (about n²/2⁶⁵ for n live keys). The seed is random per stream, so keys
 * cannot be chosen ahead to collide.
 */
export class LocalRateLimit implements RateLimit {
  private readonly cells: Int32Array;
  private readonly mask: number;
  private readonly probe: number;
  private readonly hasher: KeyHasher;

  constructor(
    sab: SharedArrayBuffer,
    private readonly count: number,
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.cells = new Int32Array(sab);
    const slots = Math.floor((this.cells.length - HEADER) / BUCKET);
    if (slots < 0 || (slots & (slots - 1)) !== 0)
      throw new RangeError(`a local rate limit needs ${HEADER * 4} bytes plus a power of two of ${BUCKET * 4}-byte buckets (see tableBytes)`);
    this.mask = slots - 1;
    this.probe = Math.min(PROBE, slots);
    // The first thread to get here picks the seed; the others read it.
    const seed = (Math.random() * 2 ** 32) | 1;
    Atomics.compareExchange(this.cells, SEED, 0, seed);
    this.hasher = new KeyHasher(Atomics.load(this.cells, SEED));
  }

  access(key?: string, cost = 1): number {
    checkCost(cost);
    const c = this.cells;
    while (Atomics.compareExchange(c, LOCK, 0, 1) !== 0) {
      // Spin: the critical section is a bounded probe and a few stores.
    }
    try {
      const now = this.now();
      return this.take(key === undefined ? UNKEYED : this.find(key), cost, now);
    } finally {
      Atomics.store(c, LOCK, 0);
    }
  }

  /** Takes `cost` from the bucket at `at` (its fields at at+REMAINING…); the wait, 0 when taken. */
  private take(at: number, cost: number, now: number): number {
    const c = this.cells;
    let start = c[at + START_HI]! * 2 ** 32 + (c[at + START_LO]! >>> 0);
    if (start === 0 || now - start >= this.intervalMs) {
      start = now;
      c[at + START_HI] = Math.floor(now / 2 ** 32);
      c[at + START_LO] = (now % 2 ** 32) | 0;
      c[at + REMAINING] = this.count;
    }
    const remaining = c[at + REMAINING]!;
    // A cost above count would never fit: it takes a whole fresh window instead.
    if (remaining >= cost || remaining === this.count) {
      c[at + REMAINING] = Math.max(0, remaining - cost);
      return 0;
    }
    return Math.max(1, start + this.intervalMs - now);
  }

  /** The bucket of `key` (its offset), taking an empty one or the stalest neighbour if it has none. */
  private find(key: string): number {
    const c = this.cells;
    this.hasher.hash(key);
    const hi = this.hasher.hi;
    const lo = this.hasher.lo;
    let stalest = -1;
    let stalestStart = Infinity;
    for (let i = 0; i < this.probe; i++) {
      const at = HEADER + ((lo + i) & this.mask) * BUCKET;
      const fhi = c[at + FP_HI]!;
      const flo = c[at + FP_LO]!;
      if (fhi === hi && flo === lo) return at;
      if (fhi === 0 && flo === 0) return this.claim(at, hi, lo);
      const start = c[at + START_HI]! * 2 ** 32 + (c[at + START_LO]! >>> 0);
      if (start < stalestStart) {
        stalestStart = start;
        stalest = at;
      }
    }
    // Full neighbourhood: an ended window is older than any live one, so it goes first.
    return this.claim(stalest, hi, lo);
  }

  private claim(at: number, hi: number, lo: number): number {
    const c = this.cells;
    c[at + FP_HI] = hi;
    c[at + FP_LO] = lo;
    c[at + START_HI] = 0;
    c[at + START_LO] = 0;
    return at;
  }
}

registerRateLimit('local', {
  summary: 'Allows count accesses per interval (per key), shared by every component and thread of the stream.',
  description:
    'The local kind does not coordinate across running instances (use `redis` for that). Each key given to an access has its own bucket, in a table of `max_keys` held in memory shared by the pipeline threads.',
  config: spec,
  examples: ['rate_limit_resources:\n  - label: api\n    local:\n      count: 100\n      interval: 1s\n'],
  factory: (conf, ctx) => new LocalRateLimit(ctx.sharedBuffer(`rate_limit:${ctx.label}`, tableBytes(conf.max_keys)), conf.count, parseDuration(conf.interval)),
});
