/** Counts in-flight work up to a limit; `acquire` waits for a free slot. */
export class Semaphore {
  private used = 0;
  private readonly waiters: Array<() => void> = [];
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  get inFlight(): number {
    return this.used;
  }

  /** Takes a slot; returns undefined when one was free at once (no promise to await). */
  acquire(): Promise<void> | undefined {
    if (this.used < this.limit) {
      this.used++;
      return undefined;
    }
    return new Promise((r) =>
      this.waiters.push(() => {
        this.used++;
        r();
      }),
    );
  }

  release(): void {
    this.used--;
    const next = this.waiters.shift();
    if (next) next();
    else if (this.used === 0 && this.idleWaiters.length) {
      const ws = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of ws) w();
    }
  }

  /** Resolves once nothing is in flight. */
  idle(): Promise<void> {
    if (this.used === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }
}
