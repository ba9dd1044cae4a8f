/**
 * Head sampling of root spans, decided before a backend is asked for anything: an unsampled
 * message costs no span object at all (a backend's own non-recording spans would cost an
 * allocation and random ids per message), and with `skip` not even a call per message. Spans
 * with a remote parent follow the parent's decision instead.
 */
export interface HeadSampler {
  /** Decides for the next root. */
  sample(): boolean;
  /**
   * Decides for up to `n` next roots at once: how many of them in a row, from the first, are
   * sampled out (0 when the next one is to be sampled, or when it cannot tell ahead). Those
   * decisions are taken: the caller starts no span for them.
   */
  skip(n: number): number;
}

export const ALWAYS: HeadSampler = { sample: () => true, skip: () => 0 };
export const NEVER: HeadSampler = { sample: () => false, skip: (n) => n };

/**
 * Samples a fraction of traces (0..1). A run of independent draws at probability `ratio` is drawn
 * as the lengths of the gaps between sampled roots (geometric), so that `skip` can pass a whole
 * gap at once: the same decisions, one random number per sampled root instead of one per root.
 */
export function ratioSampler(ratio: number): HeadSampler {
  if (!(ratio > 0)) return NEVER;
  if (ratio >= 1) return ALWAYS;
  const logMiss = Math.log1p(-ratio);
  /** Roots still to sample out before the next sampled one. */
  const draw = (): number => Math.floor(Math.log(1 - Math.random()) / logMiss);
  let gap = draw();
  return {
    sample() {
      if (gap > 0) {
        gap--;
        return false;
      }
      gap = draw();
      return true;
    },
    skip(n) {
      const k = gap < n ? gap : n;
      gap -= k;
      return k;
    },
  };
}

/** At most `perSecond` traces a second (a token bucket holding up to one second's worth). */
export function rateLimitingSampler(perSecond: number): HeadSampler {
  if (!(perSecond > 0)) return NEVER;
  const capacity = Math.max(1, perSecond);
  let tokens = capacity;
  let last = performance.now();
  return {
    skip: () => 0,
    sample() {
      const now = performance.now();
      tokens = Math.min(capacity, tokens + ((now - last) / 1000) * perSecond);
      last = now;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}
