/**
 * Syslog (RFC 5424) as influxdata/go-syslog v3's rfc5424 machine reads it for Benthos' parse_log:
 * `<pri>version timestamp host app procid msgid structured-data [message]`, `-` for a nil value.
 */
import { DATE_TIME, checkDay, dateTimeAt, fail, isDigit, isGraph, readField, readPriority, scanOffset, scanShape, utf8 } from './syslog-scan.js';
import { formatRfc3339Nano } from './syslog-time.js';

const VERSION_ERROR = 'expecting a version value in the range 1-999';
const TIMESTAMP_ERROR = 'expecting a RFC3339MICRO timestamp or a nil value';
const SD_ERROR = 'expecting a structured data section containing one or more elements (`[id( key="value")*]+`) or a nil value';
const SDID_ERROR = 'expecting a structured data element id (from 1 to max 32 US-ASCII characters; except `=`, ` `, `]`, and `"`';
const SDID_DUPLICATE = 'duplicate structured data element id';
const SDPARAM_ERROR =
  'expecting a structured data parameter (`key="value"`, both part from 1 to max 32 US-ASCII characters; key cannot contain `=`, ` `, `]`, and `"`, while value cannot contain `]`, backslash, and `"` unless escaped)';
const ESCAPE_ERROR = 'expecting chars `]`, `"`, and `\\` to be escaped within param value';
const MSG_ERROR = 'expecting a free-form optional message in UTF-8 (starting with or without BOM)';
const PARSE_ERROR = 'parsing error';

const sdNameChar = (c: string | undefined) => isGraph(c) && c !== '=' && c !== ']' && c !== '"';

/**
 * Parses one message; throws a SyslogError as go-syslog reports it. The result is as Go's
 * encoding/json writes Benthos' map: keys in sorted order (structured data's too).
 */
export function parseRfc5424(bytes: Buffer): Record<string, unknown> {
  const s = bytes.toString('latin1');
  const out: Record<string, unknown> = {};
  const { priority, end } = readPriority(s);
  let p = end;
  if (!isDigit(s[p]) || s[p] === '0') fail(VERSION_ERROR, p);
  let q = p + 1;
  while (isDigit(s[q]) && q - p < 3) q++;
  if (isDigit(s[q])) fail(VERSION_ERROR, q);
  if (s[q] !== ' ') fail(PARSE_ERROR, q);
  const version = Number(s.slice(p, q));
  p = q + 1;
  let timestamp: string | undefined;
  if (s[p] === '-') {
    p++;
  } else {
    const date = scanShape(s, p, DATE_TIME);
    if (typeof date !== 'number') fail(TIMESTAMP_ERROR, date.bad);
    let at = date;
    let fraction = '';
    if (s[at] === '.') {
      while (isDigit(s[at + 1 + fraction.length]) && fraction.length < 6) fraction += s[at + 1 + fraction.length];
      if (fraction === '') fail(TIMESTAMP_ERROR, at + 1);
      at += 1 + fraction.length;
    }
    const offset = scanOffset(s, at);
    if ('bad' in offset) fail(TIMESTAMP_ERROR, offset.bad);
    const t = { ...dateTimeAt(s, p), fraction, offset: offset.offset };
    const text = s.slice(p, offset.end);
    checkDay(t, text, offset.end);
    // Go writes back what was read unless the fraction ends in 0 or the zone is +00:00 / -00:00 (`Z`)
    timestamp = fraction.endsWith('0') || (offset.offset === 0 && s[at] !== 'Z') ? formatRfc3339Nano(t) : text;
    p = offset.end;
  }
  if (s[p] !== ' ') fail(TIMESTAMP_ERROR, p);
  const hostname = readField(s, p + 1, 255, 'expecting an hostname (from 1 to max 255 US-ASCII characters) or a nil value');
  p += 1 + hostname.length;
  const appname = readField(s, p + 1, 48, 'expecting an app-name (from 1 to max 48 US-ASCII characters) or a nil value');
  p += 1 + appname.length;
  const procid = readField(s, p + 1, 128, 'expecting a procid (from 1 to max 128 US-ASCII characters) or a nil value');
  p += 1 + procid.length;
  const msgid = readField(s, p + 1, 32, 'expecting a msgid (from 1 to max 32 US-ASCII characters) or a nil value');
  p += 1 + msgid.length + 1;
  let structured: Record<string, Record<string, string>> | undefined;
  if (s[p] === '-') {
    p++;
  } else if (s[p] === '[') {
    structured = {};
    while (s[p] === '[') p = readElement(s, p + 1, structured);
    if (p < s.length && s[p] !== ' ') fail(SD_ERROR, p);
  } else {
    fail(SD_ERROR, p);
  }
  let message = '';
  if (p < s.length) {
    if (s[p] !== ' ') fail(PARSE_ERROR, p);
    const text = bytes.subarray(p + 1);
    message = text.toString('utf8');
    // the decoder writes U+FFFD for each invalid sequence; only then is it worth a closer look
    if (message.includes('\ufffd') && !Buffer.from(message, 'utf8').equals(text)) fail(MSG_ERROR, p + 1 + firstInvalidUtf8(text));
  }
  // assigned in sorted order
  if (appname !== '-') out.appname = utf8(appname);
  out.facility = priority >> 3;
  if (hostname !== '-') out.hostname = utf8(hostname);
  if (message) out.message = message;
  if (msgid !== '-') out.msgid = utf8(msgid);
  out.priority = priority;
  if (procid !== '-') out.procid = utf8(procid);
  out.severity = priority & 7;
  if (structured) out.structureddata = sorted(structured, (params) => sorted(params, (v) => v));
  if (timestamp !== undefined) out.timestamp = timestamp;
  out.version = version;
  return out;
}

/** The object with its keys in sorted order (defined: an id or a name may be `__proto__`). */
function sorted<T, U>(o: Record<string, T>, value: (v: T) => U): Record<string, U> {
  const out: Record<string, U> = {};
  for (const k of Object.keys(o).sort()) Object.defineProperty(out, k, { value: value(o[k]!), enumerable: true, writable: true, configurable: true });
  return out;
}

/** One `id( name="value")*]` after its `[`: adds it to `into`, gives where it ends. */
function readElement(s: string, p: number, into: Record<string, Record<string, string>>): number {
  let q = p;
  while (sdNameChar(s[q]) && q - p < 32) q++;
  if (q === p || (s[q] !== ' ' && s[q] !== ']')) fail(SDID_ERROR, q);
  const id = utf8(s.slice(p, q));
  if (Object.hasOwn(into, id)) fail(SDID_DUPLICATE, q);
  const params: Record<string, string> = {};
  Object.defineProperty(into, id, { value: params, enumerable: true, writable: true, configurable: true });
  while (s[q] === ' ') {
    const start = q + 1;
    let r = start;
    while (sdNameChar(s[r]) && r - start < 32) r++;
    if (r === start || s[r] !== '=' || s[r + 1] !== '"') fail(SDPARAM_ERROR, r === start || s[r] !== '=' ? r : r + 1);
    const name = utf8(s.slice(start, r));
    r += 2;
    let value = '';
    for (;;) {
      const c = s[r];
      if (c === undefined) fail(SDPARAM_ERROR, r);
      if (c === '"') break;
      if (c === ']') fail(ESCAPE_ERROR, r);
      if (c === '\\') {
        const next = s[r + 1];
        if (next !== '"' && next !== ']' && next !== '\\') fail(ESCAPE_ERROR, r + 1);
        value += next;
        r += 2;
        continue;
      }
      value += c;
      r++;
    }
    Object.defineProperty(params, name, { value: utf8(value), enumerable: true, writable: true, configurable: true });
    q = r + 1;
  }
  if (s[q] !== ']') fail(SDPARAM_ERROR, q);
  return q + 1;
}

/** The offset of the first byte that is not part of valid UTF-8 (RFC 3629, as go-syslog's utf8char). */
function firstInvalidUtf8(b: Buffer): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    const [n, lo, hi] =
      c < 0x80
        ? [0, 0, 0]
        : c >= 0xc2 && c <= 0xdf
          ? [1, 0x80, 0xbf]
          : c === 0xe0
            ? [2, 0xa0, 0xbf]
            : c === 0xed
              ? [2, 0x80, 0x9f]
              : c >= 0xe1 && c <= 0xef
                ? [2, 0x80, 0xbf]
                : c === 0xf0
                  ? [3, 0x90, 0xbf]
                  : c === 0xf4
                    ? [3, 0x80, 0x8f]
                    : c >= 0xf1 && c <= 0xf3
                      ? [3, 0x80, 0xbf]
                      : [-1, 0, 0];
    if (n < 0) return i;
    for (let k = 1; k <= n; k++) {
      const t = b[i + k];
      if (t === undefined || t < (k === 1 ? lo : 0x80) || t > (k === 1 ? hi : 0xbf)) return i + k;
    }
    i += n + 1;
  }
  return b.length;
}
