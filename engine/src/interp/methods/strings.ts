/**
 * String methods. Lengths and slices count UTF-8 bytes, as Go strings do, so results match
 * Bloblang on non-ASCII text.
 */
import { posix } from 'node:path';
import { QueryError, typeError } from '../errors.js';
import { sprintf } from '../gofmt.js';
import { goTitle, goToLower, goToUpper, goUnescapeHTML, goUnquote } from '../gostrings.js';
import { type ParamSpec, asInt, asString, defineMethod, methods, simpleMethod } from '../registry.js';
import { parseJson } from '../../message/json.js';
import { readFirstValue } from '../../message/go-json-syntax.js';
import { Timestamp, equals, float64, isObject, toBytes, toJSON, toStr } from '../values.js';

interface Targets {
  /** Bytes in, bytes out (a string result as bytes, an array's strings as bytes), as Benthos' `[]byte` cases. */
  bytesOut?: boolean;
  /** A timestamp is read as its RFC 3339 text, as Benthos' IGetString-free methods do. */
  timestamps?: boolean;
}

/** A method on string (or bytes) targets. */
function strMethod(name: string, params: ParamSpec[], impl: (s: string, args: unknown[]) => unknown, targets: Targets = {}): void {
  simpleMethod(name, params, (v, args) => {
    if (typeof v === 'string') return impl(v, args);
    if (v instanceof Uint8Array) return targets.bytesOut ? asBytes(impl(toStr(v), args)) : impl(toStr(v), args);
    if (targets.timestamps && v instanceof Timestamp) return impl(toStr(v), args);
    throw typeError(v, 'string');
  });
}

/** A string result as bytes (and an array of strings as an array of bytes). */
function asBytes(r: unknown): unknown {
  if (typeof r === 'string') return Buffer.from(r, 'utf8');
  if (Array.isArray(r)) return r.map(asBytes);
  return r;
}

const BYTES_OUT: Targets = { bytesOut: true };
const TIMESTAMPS: Targets = { timestamps: true };

strMethod('uppercase', [], (s) => goToUpper(s), BYTES_OUT);
strMethod('lowercase', [], (s) => goToLower(s), BYTES_OUT);
strMethod('capitalize', [], (s) => goTitle(s), BYTES_OUT);

/** Go's strings.TrimSpace / strings.Trim(cutset). */
strMethod(
  'trim',
  [{ name: 'cutset', type: 'string', optional: true }],
  (s, [cutset]) => {
    if (cutset === undefined) return s.replace(/^[\s\u0085]+|[\s\u0085]+$/g, '');
    const set = new Set(Array.from(asString(cutset)));
    const chars = Array.from(s);
    let a = 0;
    let b = chars.length;
    while (a < b && set.has(chars[a]!)) a++;
    while (b > a && set.has(chars[b - 1]!)) b--;
    return chars.slice(a, b).join('');
  },
  BYTES_OUT,
);
strMethod(
  'trim_prefix',
  [{ name: 'prefix', type: 'string' }],
  (s, [p]) => {
    const prefix = asString(p);
    return s.startsWith(prefix) ? s.slice(prefix.length) : s;
  },
  BYTES_OUT,
);
strMethod(
  'trim_suffix',
  [{ name: 'suffix', type: 'string' }],
  (s, [p]) => {
    const suffix = asString(p);
    return suffix !== '' && s.endsWith(suffix) ? s.slice(0, s.length - suffix.length) : s;
  },
  BYTES_OUT,
);
strMethod('has_prefix', [{ name: 'value', type: 'string' }], (s, [p]) => s.startsWith(asString(p)));
strMethod('has_suffix', [{ name: 'value', type: 'string' }], (s, [p]) => s.endsWith(asString(p)));
strMethod(
  'replace_all',
  [
    { name: 'old', type: 'string' },
    { name: 'new', type: 'string' },
  ],
  (s, [o, n]) => replaceAll(s, asString(o), asString(n)),
  BYTES_OUT,
);
/** The (old, new) pairs of replace_all_many; an odd count or a non-string is an error. */
function replacementPairs(vals: unknown): [string, string][] {
  if (!Array.isArray(vals)) throw typeError(vals, 'array');
  if (vals.length % 2 !== 0) throw new QueryError(`invalid arg, replacements should be in pairs and must therefore be even: ${toStr(vals)}`);
  const pairs: [string, string][] = [];
  for (let i = 0; i < vals.length; i += 2) {
    for (const k of [i, i + 1]) {
      if (typeof vals[k] !== 'string') throw new QueryError(`invalid replacement value at index ${k}: ${typeError(vals[k], 'string').message}`);
    }
    pairs.push([vals[i] as string, vals[i + 1] as string]);
  }
  return pairs;
}

/** Benthos applies the pairs one after another (strings.ReplaceAll per pair), not as one pass. */
function replaceMany(s: string, pairs: [string, string][]): string {
  for (const [o, n] of pairs) s = replaceAll(s, o, n);
  return s;
}

/** Go's strings.ReplaceAll: an empty `old` inserts `rep` around every rune. */
function replaceAll(s: string, old: string, rep: string): string {
  if (old === '') return rep + Array.from(s).join(rep) + (s === '' ? '' : rep);
  return s.split(old).join(rep);
}

defineMethod('replace_all_many', {
  params: [{ name: 'values' }],
  build(a) {
    const str = (v: unknown): string => {
      if (typeof v !== 'string' && !(v instanceof Uint8Array)) throw typeError(v, 'string');
      return toStr(v);
    };
    const out = (v: unknown, s: string): unknown => (v instanceof Uint8Array ? Buffer.from(s, 'utf8') : s);
    if (a.allConst) {
      const pairs = replacementPairs(a.const(0)); // a bad literal is a compile error, as in Benthos
      return (v) => out(v, replaceMany(str(v), pairs));
    }
    return (v, c, self) => out(v, replaceMany(str(v), replacementPairs(a.get(0, c, self))));
  },
});
strMethod(
  'split',
  [{ name: 'delimiter', type: 'string' }],
  (s, [d]) => {
    const delim = asString(d);
    if (delim === '') return Array.from(s);
    return s.split(delim);
  },
  BYTES_OUT,
);
strMethod('repeat', [{ name: 'count', type: 'number' }], (s, [n]) => {
  const count = asInt(n);
  if (count < 0) throw new QueryError('count must be non-negative');
  return s.repeat(count);
});
strMethod('index_of', [{ name: 'value', type: 'string' }], (s, [p]) => {
  const i = s.indexOf(asString(p));
  return i < 0 ? -1 : Buffer.byteLength(s.slice(0, i));
});
strMethod('quote', [], (s) => JSON.stringify(s), TIMESTAMPS);
strMethod(
  'unquote',
  [],
  (s) => {
    const r = goUnquote(s);
    if (r === undefined) throw new QueryError('invalid syntax');
    return r.toString('utf8');
  },
  TIMESTAMPS,
);
strMethod(
  'escape_url_query',
  [],
  (s) =>
    encodeURIComponent(s)
      .replace(/%20/g, '+')
      .replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase()),
  TIMESTAMPS,
);
strMethod(
  'unescape_url_query',
  [],
  (s) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      throw new QueryError(`invalid URL escape in ${JSON.stringify(s)}`);
    }
  },
  TIMESTAMPS,
);
strMethod('escape_html', [], (s) => s.replace(/[&'<>"]/g, (c) => ({ '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;', '"': '&#34;' })[c]!), TIMESTAMPS);
strMethod('unescape_html', [], (s) => goUnescapeHTML(s), TIMESTAMPS);

/** `format(args...)`: the target is a Go format string. */
defineMethod('format', {
  params: [],
  variadic: true,
  build(a) {
    return (v, c, self) => {
      if (typeof v !== 'string' && !(v instanceof Uint8Array) && !(v instanceof Timestamp)) throw typeError(v, 'string');
      return sprintf(toStr(v), a.all(c, self));
    };
  },
});

/** `length()`: bytes of a string, elements of an array or object. */
simpleMethod('length', [], (v) => {
  if (typeof v === 'string') return Buffer.byteLength(v);
  if (v instanceof Uint8Array) return v.length;
  if (Array.isArray(v)) return v.length;
  if (isObject(v)) return Object.keys(v).length;
  throw typeError(v, 'string', 'bytes', 'array', 'object');
});

/** `contains(value)`: substring of a string, or an element equal to value in an array or object. */
simpleMethod('contains', [{ name: 'value' }], (v, [arg]) => {
  if (typeof v === 'string') return v.includes(toStr(arg));
  if (v instanceof Uint8Array) return toBytes(v).includes(toBytes(arg));
  if (Array.isArray(v)) return v.some((e) => equals(arg, e));
  if (isObject(v)) return Object.values(v).some((e) => equals(arg, e));
  throw typeError(v, 'string', 'array', 'object');
});

function bound(i: number, len: number): number {
  return i < 0 ? Math.max(0, len + i) : i;
}

/**
 * Bytes a..b of valid UTF-8 as text, as Go's string of them reads (and encoding/json writes): each
 * byte of a character cut at the end is one U+FFFD, where a WHATWG decoder writes one for all.
 */
function goBytesText(buf: Buffer, a: number, b: number): string {
  if (b < buf.length && (buf[b]! & 0xc0) === 0x80) {
    let lead = b - 1;
    while (lead > a && (buf[lead]! & 0xc0) === 0x80) lead--;
    if (lead >= a && (buf[lead]! & 0xc0) === 0xc0) return buf.subarray(a, lead).toString('utf8') + '\ufffd'.repeat(b - lead);
  }
  return buf.subarray(a, b).toString('utf8');
}

/** `slice(low, high?)`: negative indexes count from the end; strings slice by UTF-8 bytes. */
simpleMethod(
  'slice',
  [
    { name: 'low', type: 'number' },
    { name: 'high', type: 'number', optional: true },
  ],
  (v, [lo, hi]) => {
    const sliceIdx = (len: number): [number, number] => {
      const start = bound(asInt(lo), len);
      let end = hi === undefined ? len : asInt(hi);
      if (end < 0) end = Math.max(0, len + end);
      if (end > len) end = len;
      if (start > end) {
        throw new QueryError(`lower slice bound ${start} must be lower than or equal to upper bound (${end}) and target length (${len})`);
      }
      return [start, end];
    };
    if (typeof v === 'string') {
      const ascii = Buffer.byteLength(v) === v.length;
      if (ascii) {
        const [a, b] = sliceIdx(v.length);
        return v.slice(a, b);
      }
      const buf = Buffer.from(v);
      const [a, b] = sliceIdx(buf.length);
      return goBytesText(buf, a, b);
    }
    if (v instanceof Uint8Array) {
      const [a, b] = sliceIdx(v.length);
      return Buffer.from(v.subarray(a, b));
    }
    if (Array.isArray(v)) {
      const [a, b] = sliceIdx(v.length);
      return v.slice(a, b);
    }
    throw typeError(v, 'string', 'bytes', 'array');
  },
);

simpleMethod('reverse', [], (v) => {
  if (typeof v === 'string') return Array.from(v).reverse().join('');
  if (v instanceof Uint8Array) return Buffer.from(v).reverse();
  if (Array.isArray(v)) return v.slice().reverse();
  throw typeError(v, 'string', 'array');
});

/**
 * `parse_json(use_number)`: a string or bytes parsed as JSON. As in Benthos, numbers become
 * float64s (a number beyond float64 is an error) unless `use_number` keeps them as written.
 */
strMethod('parse_json', [{ name: 'use_number', type: 'bool', default: false }], (s, [useNumber]) => {
  let v: unknown;
  const parse = (text: string): unknown => (useNumber === true ? parseJson(text) : JSON.parse(text, asFloat64));
  try {
    v = parse(s);
  } catch (e) {
    // Benthos decodes the first value (json.Decoder): its syntax error, or the value alone (`1 2` is 1)
    const first = readFirstValue(s);
    if (first.error !== undefined) throw new QueryError(`failed to parse value as JSON: ${first.error}`);
    try {
      v = parse(s.slice(0, first.end));
    } catch {
      throw new QueryError(`failed to parse value as JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (useNumber !== true && OVERFLOW.test(s)) {
    const m = s.match(OVERFLOW_ALL)!.find((n) => !Number.isFinite(Number(n)));
    if (m !== undefined) throw new QueryError(`failed to parse value as JSON: json: cannot unmarshal number ${m} into Go value of type float64`);
  }
  return v;
});

/** JSON.parse's reviver for Go's float64 decoding: a whole number is a float64 too. */
function asFloat64(_key: string, v: unknown): unknown {
  return typeof v === 'number' && Number.isInteger(v) ? float64(v) : v;
}

// a number token with a 3-digit exponent or 309+ digits: it may be beyond float64
const OVERFLOW = /\d[eE]\+?\d{3}|\d{309}/;
const OVERFLOW_ALL = /-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g;

/** `format_json(indent, no_indent, escape_html)`: a value serialised as JSON text. */
simpleMethod(
  'format_json',
  [
    { name: 'indent', type: 'string', default: '    ' },
    { name: 'no_indent', type: 'bool', default: false },
    { name: 'escape_html', type: 'bool', default: true },
  ],
  (v, [indent, noIndent, escapeHtml]) => {
    let s = toJSON(v, noIndent === true ? undefined : asString(indent));
    if (escapeHtml !== false) s = s.replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
    return Buffer.from(s, 'utf8'); // bytes, as in Benthos (`.string()` for text)
  },
);

// Benthos' deprecated names, still accepted by its parser and lint without a warning (v4.51).
defineMethod('replace', methods.get('replace_all')!);
defineMethod('replace_many', methods.get('replace_all_many')!);

/** Go's filepath.Clean on a joined path (POSIX): no trailing slash, `.` for nothing. */
function goClean(p: string): string {
  const n = posix.normalize(p);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
}

simpleMethod('filepath_join', [], (v) => {
  if (!Array.isArray(v)) throw typeError(v, 'array');
  const parts = v.map((e, i) => {
    if (typeof e !== 'string' && !(e instanceof Uint8Array)) throw new QueryError(`path element ${i}: ${typeError(e, 'string').message}`);
    return toStr(e);
  });
  const joined = parts.filter((s) => s !== '').join('/');
  return joined === '' ? '' : goClean(joined);
});

simpleMethod('filepath_split', [], (v) => {
  if (typeof v !== 'string' && !(v instanceof Uint8Array)) throw typeError(v, 'string');
  const s = toStr(v);
  const i = s.lastIndexOf('/');
  return [s.slice(0, i + 1), s.slice(i + 1)];
});
