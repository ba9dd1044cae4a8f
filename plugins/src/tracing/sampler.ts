/**
 * Head sampling of root spans, decided before a backend is asked for anything: an unsampled
 * message costs one call here and no span object at all (a backend's own non-recording spans
 * would cost an allocation and random ids per message). Spans with a remote parent follow the
 * parent's decision instead.
 */
export interface HeadSampler {
  sample(): boolean;
}

export const ALWAYS: HeadSampler = { sample: () => true };
export const NEVER: HeadSampler = { sample: () => false };

/** Samples a fraction of traces (0..1). */
export function ratioSampler(ratio: number): HeadSampler {
  if (!(ratio > 0)) return NEVER;
  if (ratio >= 1) return ALWAYS;
  return { sample: () => Math.random() < ratio };
}

/** At most `perSecond` traces a second (a token bucket holding up to one second's worth). */
export function rateLimitingSampler(perSecond: number): HeadSampler {
  if (!(perSecond > 0)) return NEVER;
  const capacity = Math.max(1, perSecond);
  let tokens = capacity;
  let last = performance.now();
  return {
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
