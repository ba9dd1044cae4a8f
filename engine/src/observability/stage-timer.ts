import { isSampledTimer, type SampledTimer, type Timer } from './metrics.js';

/** While timed batches end closer together than this (ms), a stage times fewer of them... */
const TIMING_FAST_MS = 1;
/** ... and when further apart than this, more of them. */
const TIMING_SLOW_MS = 10;
const MAX_STRIDE = 1024;

/**
 * Times a stage: `_batch_latency` per batch and `_latency` per message. Every batch is counted;
 * while timed batches end less than a millisecond apart, only every `stride`-th batch is timed
 * (the stride adapts, up to 1024) and stands for the batches in between. A clock read costs about
 * as much as a whole noop batch, so at millions of messages a second the hot path reads the clock
 * for a few hundred batches a second instead of every one; the quantiles are then those of a
 * uniform sample, the counts stay exact and the sums are estimated. A timer that cannot be
 * sampled (a custom exporter's) is timed on every batch.
 */
export class StageTimer {
  private readonly sampled: boolean;
  private stride = 1;
  private pending = 0;
  private lastAt = -Infinity;
  /** The number of batches the batch `begin()` just chose to time stands for. */
  weight = 1;

  constructor(
    private readonly perMessage: Timer,
    private readonly perBatch: Timer,
    /** False when metrics are off: nothing is timed. */
    private readonly enabled: boolean,
    /** True: `_latency` is the batch's time for each of its messages (read → ack); false: divided among them. */
    private readonly shared = false,
  ) {
    this.sampled = isSampledTimer(perMessage) && isSampledTimer(perBatch);
  }

  /** Per batch: `performance.now()` when this batch is timed, else -1. */
  begin(): number {
    if (!this.enabled) return -1;
    if (!this.sampled) {
      this.weight = 1;
      return performance.now();
    }
    (this.perBatch as SampledTimer).tally(1);
    (this.perMessage as SampledTimer).tally(1);
    if (++this.pending < this.stride) return -1;
    this.weight = this.pending;
    this.pending = 0;
    return performance.now();
  }

  /** The end of a batch of `n` messages that `begin()` timed (with its `weight`). */
  end(t0: number, n: number, weight: number): void {
    if (t0 < 0) return;
    const now = performance.now();
    const s = (now - t0) / 1000;
    const each = this.shared ? s : n > 0 ? s / n : -1;
    if (!this.sampled) {
      this.perBatch.observe(s);
      if (each >= 0) this.perMessage.observe(each);
      return;
    }
    (this.perBatch as SampledTimer).observeSampled(s, weight);
    if (each >= 0) (this.perMessage as SampledTimer).observeSampled(each, weight);
    const gap = now - this.lastAt;
    this.lastAt = now;
    if (gap < TIMING_FAST_MS) {
      if (this.stride < MAX_STRIDE) this.stride *= 2;
    } else if (gap > TIMING_SLOW_MS && this.stride > 1) {
      this.stride >>= 1;
    }
  }
}
