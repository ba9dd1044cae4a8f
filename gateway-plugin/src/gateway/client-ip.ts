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

/** An address: IPv4 (also an IPv4-mapped IPv6 one, as Go's To4 sees it) as a 32-bit number, IPv6 as eight 16-bit words. */
type Ip = { v4: true; n: number } | { v4: false; w: number[] };

/** Dotted IPv4 as Go reads it (four decimal parts up to 255, no leading zeros), or -1. */
function parseV4(s: string): number {
  let n = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 46; /* a final '.' closes the last part */
    if (c === 46) {
      if (digits === 0 || parts === 4) return -1;
      n = n * 256 + part;
      parts++;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && part === 0) return -1; // a leading zero
      part = part * 10 + (c - 48);
      if (part > 255) return -1;
      digits++;
    } else return -1;
  }
  return parts === 4 ? n : -1;
}

/** Go's net.ParseIP: dotted IPv4 or IPv6 (`::`, an IPv4 tail; no zone). */
export function parseIp(s: string): Ip | undefined {
  const four = parseV4(s);
  if (four >= 0) return { v4: true, n: four };
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
        if (tail < 0) return undefined;
        words.push(Math.floor(tail / 65536), tail % 65536);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(p)) return undefined;
        words.push(parseInt(p, 16));
      }
    }
  }
  if (gap < 0 ? words.length !== 8 : words.length > 7) return undefined;
  const w = gap < 0 ? words : [...words.slice(0, gap), ...new Array<number>(8 - words.length).fill(0), ...words.slice(gap)];
  const mapped = w[0] === 0 && w[1] === 0 && w[2] === 0 && w[3] === 0 && w[4] === 0 && w[5] === 0xffff;
  return mapped ? { v4: true, n: w[6]! * 65536 + w[7]! } : { v4: false, w };
}

/** One entry of a list: Go's ParseCIDR first, then ParseIP; undefined when it is neither. */
interface ListEntry {
  ip: Ip;
  /** Prefix length over the address's own width (32 for IPv4 networks, 128 for IPv6); absent for a single address. */
  bits?: number;
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
  const bits = Number(len);
  const written4 = parseV4(addr) >= 0;
  if (bits > (written4 ? 32 : 128)) return undefined;
  // A mapped IPv6 network is an IPv4 one in Go (To4 succeeds): the last 32 bits of its mask count.
  return { ip, bits: ip.v4 && !written4 ? Math.max(0, bits - 96) : bits };
}

function within(ip: Ip, e: ListEntry): boolean {
  const net = e.ip;
  if (ip.v4 !== net.v4) return false;
  if (ip.v4 && net.v4) {
    if (e.bits === undefined) return ip.n === net.n;
    const mask = e.bits === 0 ? 0 : (0xffffffff << (32 - e.bits)) >>> 0;
    return (ip.n & mask) >>> 0 === (net.n & mask) >>> 0;
  }
  if (ip.v4 || net.v4) return false;
  let left = e.bits ?? 128;
  for (let i = 0; i < 8 && left > 0; i++, left -= 16) {
    const mask = left >= 16 ? 0xffff : (0xffff << (16 - left)) & 0xffff;
    if ((ip.w[i]! & mask) !== (net.w[i]! & mask)) return false;
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

/** A header's first line as Go's Header.Get reads it (Node joins repeated lines with ", "); `name` lower-case. */
export function firstHeader(req: IncomingMessage, name: string): string | undefined {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) return raw[i + 1];
  return undefined;
}

/** Every line of a header, in order (Go's Header[name]); `name` lower-case. */
export function headerLines(req: IncomingMessage, name: string): string[] {
  const raw = req.rawHeaders;
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) out.push(raw[i + 1]!);
  return out;
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
