/**
 * BSD syslog (RFC 3164) as influxdata/go-syslog v3's rfc3164 machine reads it for Benthos'
 * parse_log: `<pri>Mmm dd hh:mm:ss host tag[procid]: message`, the timestamp optionally RFC 3339.
 * A Stamp timestamp has no year: the configured one is added, and it is read as UTC then shown
 * in the configured zone (Go's AddDate then In).
 */
import { DATE_TIME, HHMMSS, type ShapeStep, checkDay, dateTimeAt, fail, readField, readPriority, scanOffset, scanShape, utf8 } from './syslog-scan.js';
import { formatRfc3339Nano, inZone, type WallTime } from './syslog-time.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const STAMP_ERROR = 'expecting a Stamp timestamp';
const EITHER_ERROR = 'expecting a Stamp or a RFC3339 timestamp';
const HOSTNAME_ERROR = 'expecting an hostname (from 1 to max 255 US-ASCII characters)';
const TAG_ERROR = 'expecting an alphanumeric tag (max 32 characters)';

/** `Jan _2 15:04:05`. */
const STAMP: ShapeStep[] = [
  (c) => MONTHS.some((m) => m[0] === c),
  (c, s, at, start) => MONTHS.some((m) => m.startsWith(s.slice(start, at) + c)),
  (c, s, at, start) => MONTHS.includes(s.slice(start, at) + c),
  (c) => c === ' ',
  (c) => ' 123'.includes(c),
  (c, s, at) => (s[at - 1] === ' ' ? '123456789' : s[at - 1] === '3' ? '01' : '0123456789').includes(c),
  (c) => c === ' ',
  ...HHMMSS,
];

export interface Rfc3164Options {
  rfc3339: boolean;
  /** The year a Stamp timestamp gets (0: none, as Go's zero year). */
  year: number;
  /** The zone a Stamp timestamp is shown in. */
  zone: string;
}

const visible = (c: string) => c >= ' ' && c !== '\x7f';
const tagChar = (c: string) => c > ' ' && c <= '~' && c !== ':' && c !== '[';
const printable = (c: string) => c >= ' ' && c <= '~';

/** Parses one message; throws a SyslogError as go-syslog reports it. */
export function parseRfc3164(bytes: Buffer, o: Rfc3164Options): Record<string, unknown> {
  const s = bytes.toString('latin1');
  const out: Record<string, unknown> = {};
  const { priority, end } = readPriority(s);
  let p = end;
  const stamp = scanShape(s, p, STAMP);
  out.priority = priority;
  out.facility = priority >> 3;
  out.severity = priority & 7;
  // a whole Stamp not followed by a space stops go-syslog's machine without an error: what it has
  if (typeof stamp === 'number' && s[stamp] !== ' ') return out;
  let time: WallTime;
  if (typeof stamp === 'number') {
    const text = s.slice(p, stamp);
    const month = MONTHS.indexOf(text.slice(0, 3)) + 1;
    const wall: WallTime = {
      year: o.year,
      month,
      day: Number(text.slice(4, 6)),
      hour: Number(text.slice(7, 9)),
      minute: Number(text.slice(10, 12)),
      second: Number(text.slice(13, 15)),
      fraction: '',
      offset: 0,
    };
    checkDay({ ...wall, year: 0 }, text, stamp);
    time = inZone(wall, o.zone);
    p = stamp;
  } else if (o.rfc3339 && /[0-9]/.test(s[p] ?? '')) {
    const date = scanShape(s, p, DATE_TIME);
    const offset = typeof date === 'number' ? scanOffset(s, date) : date;
    if ('bad' in offset) fail(EITHER_ERROR, offset.bad);
    if (s[offset.end] !== ' ') fail(EITHER_ERROR, offset.end);
    time = { ...dateTimeAt(s, p), offset: offset.offset };
    checkDay(time, s.slice(p, offset.end), offset.end);
    p = offset.end;
  } else {
    fail(o.rfc3339 && !/[A-Za-z]/.test(s[p] ?? '') ? EITHER_ERROR : STAMP_ERROR, typeof stamp === 'number' ? stamp : stamp.bad);
  }
  const hostname = readField(s, p + 1, 255, HOSTNAME_ERROR);
  p += 1 + hostname.length + 1;
  if (p >= s.length || !visible(s[p]!)) fail(TAG_ERROR, p);
  // `tag[procid]: ` before the message is optional: what of it was read stays, as in go-syslog
  let tag: string | undefined;
  let procid: string | undefined;
  let q = p;
  while (q < s.length && q - p < 32 && tagChar(s[q]!)) q++;
  let messageAt = p;
  let bodyAt: number | undefined;
  if (q > p && (s[q] === ':' || s[q] === '[')) {
    tag = s.slice(p, q);
    if (s[q] === '[') {
      // go-syslog marks the procid where the message would start: a message after a broken
      // `tag[procid]` prefix starts there
      messageAt = q + 1;
      const close = s.indexOf(']', q + 1);
      const content = close < 0 ? undefined : s.slice(q + 1, close);
      if (content !== undefined && [...content].every(printable)) {
        procid = content;
        q = close + 1;
      } else q = -1;
    }
    if (q >= 0 && s[q] === ':' && s[q + 1] === ' ' && q + 2 < s.length) bodyAt = q + 2;
  }
  let message: string | undefined = s.slice(bodyAt ?? messageAt);
  if (![...message].every(visible)) message = undefined;
  out.timestamp = formatRfc3339Nano(time);
  out.hostname = utf8(hostname);
  if (tag !== undefined && tag !== '-') out.appname = utf8(tag);
  if (procid !== undefined && procid !== '' && procid !== '-') out.procid = utf8(procid);
  if (message) out.message = utf8(message);
  return out;
}
