/**
 * Windows in memory shared by every thread of a gateway process: one counter per key, each
 * access naming its own limit. A window opens at a key's first access and lasts `perMs`; it
 * admits `capacity` units, then refuses until it ends: Tyk's in-memory bucket (the DRL's
 * `memorycache` bucket and its local fixed window behave so). Quotas use it too, with the renewal
 * rate as the window (no renewal: a window that never ends).
 *
 * The table is a SharedArrayBuffer guarded by an Atomics spin lock held for a bounded probe and
 * a few stores, so worker threads draw from one exact budget per key. Keys are told apart by two
 * 32-bit murmur-style hashes, not stored (a 64-bit collision between live keys is about n²/2⁶⁵).
 * A full neighbourhood gives up its stalest window (an ended one first): a full table errs
 * towards admitting, never towards refusing.
 *
 * Layout (Int32): header [lock, seed, instances, 0…] then buckets of
 * [fpHi, fpLo, used, startHi, startLo, 0] (start = ms since the epoch, split in two).
 */
const LOCK = 0;
const SEED = 1;
/** The number of live gateway instances the distributed limiter divides limits by (see drl.ts). */
const INSTANCES = 2;
const HEADER = 8;
const BUCKET = 6;
const FP_HI = 0;
const FP_LO = 1;
const USED = 2;
const START_HI = 3;
const START_LO = 4;
const PROBE = 32;
/** A window that never ends (a quota with no renewal). */
export const FOREVER = Number.MAX_SAFE_INTEGER;

export interface WindowState {
  /** True when the access did not fit: nothing was taken. */
  blocked: boolean;
  /** Units left in the window after this access. */
  remaining: number;
  /** Ms until the window ends (FOREVER for a window that never ends). */
  resetMs: number;
}

function slotsFor(maxKeys: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(2, maxKeys * 2)));
}

export function windowTableBytes(maxKeys: number): number {
  return (HEADER + slotsFor(maxKeys) * BUCKET) * 4;
}

export class WindowTable {
  private readonly cells: Int32Array;
  private readonly mask: number;
  private readonly seed: number;

  constructor(
    sab: SharedArrayBuffer,
    private readonly now: () => number = Date.now,
  ) {
    this.cells = new Int32Array(sab);
    const slots = (this.cells.length - HEADER) / BUCKET;
    if (!Number.isInteger(slots) || slots < 2 || (slots & (slots - 1)) !== 0) throw new RangeError('a window table needs windowTableBytes(maxKeys) bytes');
    this.mask = slots - 1;
    Atomics.compareExchange(this.cells, SEED, 0, (Math.random() * 2 ** 31) | 1);
    this.seed = Atomics.load(this.cells, SEED);
  }

  /** Live gateway instances sharing the limits (1 unless the distributed limiter says more). */
  get instances(): number {
    return Math.max(1, Atomics.load(this.cells, INSTANCES));
  }

  set instances(n: number) {
    Atomics.store(this.cells, INSTANCES, Math.max(1, Math.floor(n)));
  }

  /**
   * Takes `cost` units from `key`'s window of `capacity` units per `perMs`. `capacity` and
   * `perMs` are the caller's limit as it is now: a changed limit applies from the next window.
   */
  take(key: string, capacity: number, perMs: number, cost = 1): WindowState {
    const c = this.cells;
    while (Atomics.compareExchange(c, LOCK, 0, 1) !== 0) {
      // Spin: the critical section is a bounded probe and a few stores.
    }
    try {
      const at = this.find(key);
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
    const hi = fmix(a ^ key.length) | 1;
    const lo = fmix(b ^ Math.imul(key.length, 0x85ebca6b));
    let stalest = -1;
    let stalestStart = Infinity;
    const probe = Math.min(PROBE, this.mask + 1);
    for (let i = 0; i < probe; i++) {
      const at = HEADER + ((lo + i) & this.mask) * BUCKET;
      if (c[at + FP_HI] === hi && c[at + FP_LO] === lo) return at;
      if (c[at + FP_HI] === 0) return this.claim(at, hi, lo);
      const start = c[at + START_HI]! * 2 ** 32 + (c[at + START_LO]! >>> 0);
      if (start < stalestStart) {
        stalestStart = start;
        stalest = at;
      }
    }
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

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}
