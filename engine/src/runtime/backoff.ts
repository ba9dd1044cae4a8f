/** Exponential back-off with jitter, for reconnects and retries. */
export class Backoff {
  private attempt = 0;
  constructor(
    private readonly initialMs = 50,
    private readonly maxMs = 30_000,
  ) {}

  /** The next wait in milliseconds: doubles each time up to the maximum, with ±20% jitter. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    return Math.round(base * (0.8 + Math.random() * 0.4));
  }

  reset(): void {
    this.attempt = 0;
  }

  get attempts(): number {
    return this.attempt;
  }
}

/** Resolves after `ms`; resolves early (with false) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
