/**
 * The primary's bounded store of text values (a response cache every process of the stream
 * shares): entries expire at their `expiresAt` (ms since the epoch), and past `maxBytes` of values
 * the oldest entries go first. Invariant: the values held never total more than `maxBytes`; a value
 * larger than that is not kept.
 */
export class ExpiringStore {
  /** In write order: the oldest first (a write re-inserts). */
  private readonly entries = new Map<string, { value: string; expiresAt: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string, now = Date.now()): string | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (e.expiresAt <= now) {
      this.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: string, expiresAt: number): void {
    this.delete(key);
    if (value.length > this.maxBytes) return;
    this.entries.set(key, { value, expiresAt });
    this.bytes += value.length;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  /** Drops every entry whose key starts with `prefix` (a response cache's API); returns how many. */
  deletePrefix(prefix: string): number {
    let n = 0;
    for (const key of [...this.entries.keys()])
      if (key.startsWith(prefix)) {
        this.delete(key);
        n++;
      }
    return n;
  }

  private delete(key: string): void {
    const e = this.entries.get(key);
    if (e === undefined) return;
    this.entries.delete(key);
    this.bytes -= e.value.length;
  }
}
