/**
 * Fixed windows keyed by string, in memory shared by every thread that holds the buffer: the
 * table behind the `local` rate limit and the gateway's in-memory limits and quotas. Invariant:
 * threads sharing the buffer draw from one exact budget per key. A key's window opens at its first
 * access and lasts `perMs`; it admits `capacity` units, then refuses until it ends (Tyk's
 * in-memory bucket and Benthos' `local` rate limit both behave so). {@link FOREVER} is a window
 * that never ends (a quota with no renewal). Besides the keyed windows there is one unkeyed window
 * (`key` undefined), which lives in the header.
 *
 * The table is a SharedArrayBuffer guarded by one Atomics spin lock held for a bounded probe and
 * a few stores: shorter than a per-bucket lock's own bookkeeping would be. Keys are told apart by
 * a seeded 64-bit hash (two 32-bit halves: FNV-1a and a murmur-style multiply, each finished with
 * murmur3's avalanche), not stored: two live keys collide with odds about n²/2⁶⁵; the seed is
 * random per buffer, so keys cannot be chosen ahead to collide. A bucket is never emptied once
 * taken, only taken over, so a key lives within PROBE buckets of its home and a lookup stops at
 * the first empty one. A full neighbourhood gives up its stalest window (an ended one first): a
 * full table errs towards admitting, never towards refusing.
 *
 * Layout (Int32): header [lock, seed, 0, unkeyed used, unkeyed startHi, unkeyed startLo, 0, 0],
 * then buckets of [fpHi, fpLo, used, startHi, startLo] (start = ms since the epoch, in two halves).
 */
const LOCK = 0;
const SEED = 1;
const HEADER = 8;
const FP_HI = 0;
const FP_LO = 1;
const USED = 2;
const START_HI = 3;
const START_LO = 4;
const BUCKET = 5;
/** The unkeyed window overlays the header: its fingerprint ints (the seed and a spare) are never read for it. */
const UNKEYED = 1;
/** How far from its home bucket a key may live; also how many buckets an eviction compares. */
const PROBE = 32;

/** A window that never ends (a quota with no renewal). */
export const FOREVER = Number.MAX_SAFE_INTEGER;

/** What one access to a window found. */
export interface WindowState {
  /** True when the access did not fit: nothing was taken. */
  blocked: boolean;
  /** Units left in the window after this access. */
  remaining: number;
  /** Ms until the window ends ({@link FOREVER} for a window that never ends). */
  resetMs: number;
}

/** Buckets for `maxKeys` keys: a power of two at twice the keys, so probes stay short. */
function slotsFor(maxKeys: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(2, maxKeys * 2)));
}

/** Bytes of shared memory a table for `maxKeys` keys takes (ask the engine for a shared buffer of this size). */
export function windowTableBytes(maxKeys: number): number {
  return (HEADER + slotsFor(maxKeys) * BUCKET) * 4;
}

export class WindowTable {
  private readonly cells: Int32Array;
  private readonly mask: number;
  private readonly probe: number;
  private readonly seed: number;

  /** `sab`: {@link windowTableBytes} bytes, zeroed or already a table (another thread's). */
  constructor(
    sab: SharedArrayBuffer,
    private readonly now: () => number = Date.now,
  ) {
    this.cells = new Int32Array(sab);
    const slots = (this.cells.length - HEADER) / BUCKET;
    if (!Number.isInteger(slots) || slots < 2 || (slots & (slots - 1)) !== 0)
      throw new RangeError(`a window table needs windowTableBytes(maxKeys) bytes, not ${sab.byteLength}`);
    this.mask = slots - 1;
    this.probe = Math.min(PROBE, slots);
    // The first thread to get here picks the seed; the others read it.
    Atomics.compareExchange(this.cells, SEED, 0, (Math.random() * 2 ** 32) | 1);
    this.seed = Atomics.load(this.cells, SEED);
  }

  /**
   * Takes `cost` units from `key`'s window (undefined: the unkeyed one) of `capacity` units per
   * `perMs`. `capacity` and `perMs` are the caller's limit as it is now: a changed limit applies
   * from the next window. A refused access takes nothing.
   */
  take(key: string | undefined, capacity: number, perMs: number, cost = 1): WindowState {
    const c = this.cells;
    while (Atomics.compareExchange(c, LOCK, 0, 1) !== 0) {
      // Spin: the critical section is a bounded probe and a few stores.
    }
    try {
      const at = key === undefined ? UNKEYED : this.find(key);
      const now = this.now();
      let start = c[at + START_HI]! * 2 ** 32 + (c[at + START_LO]! >>> 0);
      if (start === 0 || (perMs !== FOREVER && now - start >= perMs)) {
        start = now;
        c[at + START_HI] = Math.floor(now / 2 ** 32);
        c[at + START_LO] = (now % 2 ** 32) | 0;
        c[at + USED] = 0;
      }
      const used = c[at + USED]!;
      const resetMs = perMs === FOREVER ? FOREVER : Math.max(0, start + perMs - now);
      if (used + cost > capacity) return { blocked: true, remaining: Math.max(0, capacity - used), resetMs };
      c[at + USED] = used + cost;
      return { blocked: false, remaining: capacity - used - cost, resetMs };
    } finally {
      Atomics.store(c, LOCK, 0);
    }
  }

  /** The bucket of `key` (its offset), taking an empty one or the stalest neighbour if it has none. */
  private find(key: string): number {
    const c = this.cells;
    let a = 0x811c9dc5 ^ this.seed;
    let b = this.seed ^ 0x9e3779b9;
    for (let i = 0; i < key.length; i++) {
      const ch = key.charCodeAt(i);
      a = Math.imul(a ^ ch, 0x01000193);
      b = Math.imul(b ^ ch, 0x5bd1e995);
      b ^= b >>> 15;
    }
    // hi is odd, never 0: a 0 marks an empty bucket.
    const hi = fmix(a ^ key.length) | 1;
    const lo = fmix(b ^ Math.imul(key.length, 0x85ebca6b));
    let stalest = -1;
    let stalestStart = Infinity;
    for (let i = 0; i < this.probe; i++) {
      const at = HEADER + ((lo + i) & this.mask) * BUCKET;
      const fhi = c[at + FP_HI];
      if (fhi === hi && c[at + FP_LO] === lo) return at;
      if (fhi === 0) return this.claim(at, hi, lo);
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
    c[at + USED] = 0;
    c[at + START_HI] = 0;
    c[at + START_LO] = 0;
    return at;
  }
}

/** murmur3's 32-bit finaliser: every input bit reaches every output bit. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}
