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

/**
 * Sleeps that one `stop()` ends early (each resolves false), for a component with many waits
 * at once (one per write in flight): a shared AbortSignal would carry a listener per wait and
 * Node warns (MaxListenersExceededWarning) past ten.
 */
export class Sleeps {
  private readonly wakers = new Set<() => void>();
  private ended = false;

  /** Resolves true after `ms`, or false at once (or as soon as) `stop()` is called. */
  sleep(ms: number): Promise<boolean> {
    if (this.ended) return Promise.resolve(false);
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wakers.delete(wake);
        resolve(true);
      }, ms);
      const wake = () => {
        clearTimeout(t);
        resolve(false);
      };
      this.wakers.add(wake);
    });
  }

  /** Ends every sleep under way and every later one. */
  stop(): void {
    this.ended = true;
    for (const w of this.wakers) w();
    this.wakers.clear();
  }

  get stopped(): boolean {
    return this.ended;
  }
}
