/**
 * The client address Tyk judges a request by, and its IP allow and deny lists (Tyk v5.14.0
 * `request/real_ip.go` RealIP, `gateway/mw_ip_whitelist.go`, `mw_ip_blacklist.go`):
 *
 * - `X-Real-IP` (its first line) when it parses as an address;
 * - else `X-Forwarded-For` (its first line, split at commas): with svc.conf
 *   `http_server_options.xff_depth` 0 the leftmost entry, with N the N-th from the right; a depth
 *   beyond the entries gives no address (Tyk's choice: a misconfiguration is not buried), an entry
 *   that does not parse falls through to the connection's address;
 * - else the connection's address.
 *
 * Addresses compare as Go's net.IP does: an IPv4 address equals its IPv4-mapped IPv6 form; a
 * CIDR written as IPv4 holds IPv4 (and mapped) addresses only, one written as IPv6 IPv6 only.
 * An entry of a list that is neither an address nor a CIDR matches nothing, as in Tyk.
 */
import type { IncomingMessage } from 'node:http';

/** An address as 16 bytes (IPv4 as ::ffff:a.b.c.d) and whether Go's To4 would see IPv4. */
interface Ip {
  bytes: Uint8Array;
  v4: boolean;
}

const V4 =
  /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)$/;

function parseV4(s: string): number[] | undefined {
  const m = V4.exec(s);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])] : undefined;
}

function mapped(b: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/** Go's net.ParseIP: dotted IPv4 (no leading zeros) or IPv6 (`::`, an IPv4 tail; no zone). */
export function parseIp(s: string): Ip | undefined {
  const four = parseV4(s);
  if (four) {
    const bytes = new Uint8Array(16);
    bytes[10] = 0xff;
    bytes[11] = 0xff;
    bytes.set(four, 12);
    return { bytes, v4: true };
  }
  if (!s.includes(':')) return undefined;
  const words: number[] = [];
  let gap = -1;
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const parts = (h: string): string[] => (h === '' ? [] : h.split(':'));
  const groups = halves.length === 2 ? [parts(halves[0]!), parts(halves[1]!)] : [parts(halves[0]!)];
  for (let g = 0; g < groups.length; g++) {
    if (g === 1) gap = words.length;
    const list = groups[g]!;
    for (let i = 0; i < list.length; i++) {
      const p = list[i]!;
      if (i === list.length - 1 && g === groups.length - 1 && p.includes('.')) {
        const tail = parseV4(p);
        if (!tail) return undefined;
        words.push((tail[0]! << 8) | tail[1]!, (tail[2]! << 8) | tail[3]!);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(p)) return undefined;
        words.push(parseInt(p, 16));
      }
    }
  }
  if (gap < 0 ? words.length !== 8 : words.length > 7) return undefined;
  const full = gap < 0 ? words : [...words.slice(0, gap), ...new Array<number>(8 - words.length).fill(0), ...words.slice(gap)];
  const bytes = new Uint8Array(16);
  full.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  return { bytes, v4: mapped(bytes) };
}

/** One entry of a list: Go's ParseCIDR first, then ParseIP; undefined when it is neither. */
interface ListEntry {
  ip: Ip;
  /** Prefix length over the address's own width (32 for IPv4 networks, 128 for IPv6); absent for a single address. */
  bits?: number;
  /** Written as an IPv4 network (Go's IPNet with a 4-byte IP). */
  v4Net?: boolean;
}

function parseEntry(s: string): ListEntry | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) {
    const ip = parseIp(s);
    return ip && { ip };
  }
  const addr = s.slice(0, slash);
  const len = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(len)) return undefined;
  const ip = parseIp(addr);
  if (!ip) return undefined;
  const written4 = parseV4(addr) !== undefined;
  const bits = Number(len);
  if (bits > (written4 ? 32 : 128)) return undefined;
  // A mapped IPv6 network is an IPv4 one in Go (To4 succeeds): its mask's last 32 bits count.
  if (written4) return { ip, bits, v4Net: true };
  return ip.v4 ? { ip, bits: Math.max(0, bits - 96), v4Net: true } : { ip, bits, v4Net: false };
}

function within(ip: Ip, e: ListEntry): boolean {
  if (e.bits === undefined) return ip.v4 === e.ip.v4 && ip.bytes.every((b, i) => b === e.ip.bytes[i]);
  if (e.v4Net !== ip.v4) return false;
  const start = e.v4Net ? 12 : 0;
  let left = e.bits;
  for (let i = start; i < 16 && left > 0; i++, left -= 8) {
    const mask = left >= 8 ? 0xff : (0xff << (8 - left)) & 0xff;
    if ((ip.bytes[i]! & mask) !== (e.ip.bytes[i]! & mask)) return false;
  }
  return true;
}

/** Compiled lists, per list object (an API is immutable; a reload makes new ones). */
const compiled = new WeakMap<readonly string[], ListEntry[]>();

/** True when `ip` (the client's, maybe none) is one of `list`'s addresses or in one of its CIDRs. */
export function ipListed(ip: Ip | undefined, list: readonly string[]): boolean {
  if (ip === undefined) return false;
  let entries = compiled.get(list);
  if (entries === undefined) compiled.set(list, (entries = list.map(parseEntry).filter((e): e is ListEntry => e !== undefined)));
  return entries.some((e) => within(ip, e));
}

/** A header's first line as Go's Header.Get reads it (Node joins repeated lines with ", "). */
function firstHeader(req: IncomingMessage, name: string): string | undefined {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) return raw[i + 1];
  return undefined;
}

/** Tyk's RealIP of the live request, parsed (undefined: no address, which no list holds). */
export function clientIp(req: IncomingMessage, xffDepth: number): Ip | undefined {
  const real = firstHeader(req, 'x-real-ip');
  if (real) {
    const ip = parseIp(real);
    if (ip) return ip;
  }
  const xff = firstHeader(req, 'x-forwarded-for');
  if (xff) {
    const entries = xff.split(',');
    if (xffDepth < 0 || xffDepth > entries.length) return undefined;
    const ip = parseIp((xffDepth === 0 ? entries[0]! : entries[entries.length - xffDepth]!).trim());
    if (ip) return ip;
  }
  return parseIp(req.socket.remoteAddress ?? '');
}
