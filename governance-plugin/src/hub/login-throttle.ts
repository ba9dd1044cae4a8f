/**
 * Failed logins are counted per user name and per client address over a fixed window; once
 * either reaches its limit, logins for that user (or from that address) are refused with 429
 * and Retry-After until the window ends, before any password is checked. A success clears the
 * user's count. Memory is bounded: past `MAX_KEYS` counters the oldest are forgotten.
 */
const WINDOW_MS = 5 * 60_000;
const PER_USER = 10;
const PER_ADDRESS = 30;
const MAX_KEYS = 10_000;

interface Window {
  start: number;
  failures: number;
}

export class LoginThrottle {
  private readonly windows = new Map<string, Window>();

  /** Seconds until `username` from `address` may try again; 0 when it may now. */
  retryAfter(username: string, address: string, now = Date.now()): number {
    let wait = 0;
    for (const [key, limit] of [
      [`user:${username}`, PER_USER],
      [`addr:${address}`, PER_ADDRESS],
    ] as const) {
      const w = this.current(key, now);
      if (w !== undefined && w.failures >= limit) wait = Math.max(wait, Math.ceil((w.start + WINDOW_MS - now) / 1000));
    }
    return wait;
  }

  failed(username: string, address: string, now = Date.now()): void {
    for (const key of [`user:${username}`, `addr:${address}`]) {
      const w = this.current(key, now);
      if (w !== undefined) w.failures++;
      else {
        if (this.windows.size >= MAX_KEYS) this.windows.delete(this.windows.keys().next().value as string);
        this.windows.set(key, { start: now, failures: 1 });
      }
    }
  }

  succeeded(username: string): void {
    this.windows.delete(`user:${username}`);
  }

  private current(key: string, now: number): Window | undefined {
    const w = this.windows.get(key);
    if (w === undefined) return undefined;
    if (now - w.start < WINDOW_MS) return w;
    this.windows.delete(key);
    return undefined;
  }
}
