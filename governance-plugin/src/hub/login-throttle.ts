/**
 * Failed logins are counted per client address (an IPv6 address by its /64, what one host is
 * usually given), never per user: wrong passwords from one place must not lock the admin out
 * everywhere. Failures are answered as they come until the `FREE_FAILURES`th; from it on, each
 * makes that address wait before its next try, from 15 s doubling up to 15 min, and a try during the wait is refused
 * (429 with Retry-After) before any password is checked. A success from the address clears its
 * count; an address that failed nothing for an hour starts over. Memory is bounded: past
 * `MAX_KEYS` addresses the oldest are forgotten.
 */
const FREE_FAILURES = 10;
const FIRST_WAIT_MS = 15_000;
const MAX_WAIT_MS = 15 * 60_000;
const FORGET_AFTER_MS = 3600_000;
const MAX_KEYS = 10_000;

interface Failures {
  count: number;
  last: number;
  /** No try before this. */
  until: number;
}

/** The part of an address that names a client: IPv4 whole, IPv6 its first four groups. */
export function clientOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const groups = head === '' ? [] : head.split(':');
  if (tail !== undefined) {
    const rest = tail === '' ? [] : tail.split(':');
    groups.push(...Array<string>(Math.max(0, 8 - groups.length - rest.length)).fill('0'), ...rest);
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export class LoginThrottle {
  private readonly clients = new Map<string, Failures>();

  /** Seconds until a login from `address` may be tried; 0 when it may now. */
  retryAfter(address: string, now = Date.now()): number {
    const f = this.current(clientOf(address), now);
    return f === undefined || f.until <= now ? 0 : Math.ceil((f.until - now) / 1000);
  }

  failed(address: string, now = Date.now()): void {
    const key = clientOf(address);
    let f = this.current(key, now);
    if (f === undefined) {
      if (this.clients.size >= MAX_KEYS) this.clients.delete(this.clients.keys().next().value as string);
      f = { count: 0, last: now, until: 0 };
      this.clients.set(key, f);
    }
    f.count++;
    f.last = now;
    if (f.count >= FREE_FAILURES) f.until = now + Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.min(f.count - FREE_FAILURES, 20));
  }

  succeeded(address: string): void {
    this.clients.delete(clientOf(address));
  }

  private current(key: string, now: number): Failures | undefined {
    const f = this.clients.get(key);
    if (f === undefined) return undefined;
    if (now - f.last < FORGET_AFTER_MS || f.until > now) return f;
    this.clients.delete(key);
    return undefined;
  }
}
