/**
 * Go's fmt.Sprintf for the `format` method, because Bloblang format strings are Go format strings
 * and Benthos passes its values as Go values: integers are int64, other numbers float64, arrays
 * `[]interface {}` and objects `map[string]interface {}`, whose elements take the verb one by one.
 * A verb that does not fit its value prints Go's `%!verb(type=value)`.
 */
import { Timestamp, formatTime } from './timestamp.js';
import { Float32, JsonNumber, WholeFloat, floatToString, isInt, widen } from './values.js';

interface Spec {
  minus: boolean;
  plus: boolean;
  zero: boolean;
  space: boolean;
  sharp: boolean;
  width?: number;
  prec?: number;
}

type Kind = 'nil' | 'bool' | 'int' | 'float' | 'string' | 'jsonnum' | 'bytes' | 'time' | 'array' | 'map';

// A number read from JSON is a json.Number in Go, a string type: %v and %s print its text, %d
// does not fit it. An int64 a computation made beyond 2^53 is an int64.
function kindOf(v: unknown): Kind {
  if (v === null || v === undefined || typeof v === 'symbol') return 'nil';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return isInt(v) ? 'int' : 'float';
  if (v instanceof WholeFloat) return 'float'; // a JsonNumber that is a float64
  if (v instanceof JsonNumber) return v.computed ? 'int' : 'jsonnum';
  if (typeof v === 'string') return 'string';
  if (v instanceof Uint8Array) return 'bytes';
  if (v instanceof Timestamp) return 'time';
  if (Array.isArray(v)) return 'array';
  return 'map';
}

const TYPE_NAMES: Record<Kind, string> = {
  nil: '<nil>',
  bool: 'bool',
  int: 'int64',
  float: 'float64',
  string: 'string',
  jsonnum: 'json.Number',
  bytes: '[]uint8',
  time: 'time.Time',
  array: '[]interface {}',
  map: 'map[string]interface {}',
};

function runeLen(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Pads to the width: spaces, or zeros after the sign for numbers (and strings, as Go does). */
function pad(s: string, f: Spec, numeric: boolean): string {
  if (f.width === undefined) return s;
  const n = f.width - runeLen(s);
  if (n <= 0) return s;
  if (f.minus) return s + ' '.repeat(n);
  if (f.zero) {
    const sign = numeric && (s[0] === '-' || s[0] === '+' || s[0] === ' ') ? s[0] : '';
    return sign + '0'.repeat(n) + s.slice(sign.length);
  }
  return ' '.repeat(n) + s;
}

function signOf(neg: boolean, f: Spec): string {
  return neg ? '-' : f.plus ? '+' : f.space ? ' ' : '';
}

/** strconv.Quote: Go escapes (`\x00`, `\u00ad`), printable runes as they are. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (cp >= 0x20 && cp < 0x7f) out += ch;
    else if (
      cp >= 0x80 &&
      /[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]/u.test(ch) &&
      cp !== 0xa0 &&
      !(cp >= 0x2000 && cp <= 0x200a) &&
      cp !== 0x3000 &&
      cp !== 0x1680 &&
      cp !== 0x202f &&
      cp !== 0x205f
    )
      out += ch;
    else if (cp === 7) out += '\\a';
    else if (cp === 8) out += '\\b';
    else if (cp === 12) out += '\\f';
    else if (cp === 10) out += '\\n';
    else if (cp === 13) out += '\\r';
    else if (cp === 9) out += '\\t';
    else if (cp === 11) out += '\\v';
    else if (cp < 0x80) out += '\\x' + cp.toString(16).padStart(2, '0');
    else if (cp < 0x10000) out += '\\u' + cp.toString(16).padStart(4, '0');
    else out += '\\U' + cp.toString(16).padStart(8, '0');
  }
  return out + '"';
}

/** strconv.QuoteRune. */
function quoteRune(cp: number): string {
  if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
  if (cp === 0x27) return "'\\''";
  if (cp === 0x22) return `'"'`;
  return "'" + goQuote(String.fromCodePoint(cp)).slice(1, -1) + "'";
}

function fmtInt(v: number | JsonNumber, verb: string, f: Spec): string | undefined {
  const big = v instanceof JsonNumber ? v.int! : BigInt(v);
  const neg = big < 0n;
  const n = Number(big);
  const abs = neg ? -big : big;
  let digits: string;
  let prefix = '';
  switch (verb) {
    case 'v':
    case 'd':
      digits = abs.toString(10);
      break;
    case 'b':
      digits = abs.toString(2);
      if (f.sharp) prefix = '0b';
      break;
    case 'o':
    case 'O':
      digits = abs.toString(8);
      if (verb === 'O') prefix = '0o';
      else if (f.sharp) prefix = '0';
      break;
    case 'x':
    case 'X':
      digits = abs.toString(16);
      if (f.sharp) prefix = '0x';
      if (verb === 'X') {
        digits = digits.toUpperCase();
        prefix = prefix.toUpperCase();
      }
      break;
    case 'c':
      return pad(n >= 0 && n <= 0x10ffff && !(n >= 0xd800 && n <= 0xdfff) ? String.fromCodePoint(n) : '\ufffd', f, false);
    case 'q':
      return pad(quoteRune(n), f, false);
    case 'U': {
      // Go prints the int64 as a uint64: -1 is U+FFFFFFFFFFFFFFFF
      const u = 'U+' + BigInt.asUintN(64, big).toString(16).toUpperCase().padStart(4, '0');
      return pad(f.sharp && n >= 0 && n <= 0x10ffff ? `${u} '${String.fromCodePoint(n)}'` : u, f, false);
    }
    default:
      return undefined;
  }
  if (f.prec !== undefined) {
    if (f.prec === 0 && n === 0) digits = '';
    digits = digits.padStart(f.prec, '0');
    return pad(signOf(neg, f) + prefix + digits, { ...f, zero: false }, true);
  }
  return pad(signOf(neg, f) + prefix + digits, f, true);
}

/** strconv.FormatFloat(f, 'x', -1, 64): `0x1.8p+00`. */
function hexFloat(a: number): string {
  if (a === 0) return '0x0p+00';
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, a);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  let exp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (exp === 0) {
    // Subnormal: normalise so the leading 1 sits at bit 52.
    exp = 1;
    while (mant < 1n << 52n) {
      mant <<= 1n;
      exp--;
    }
    mant &= (1n << 52n) - 1n;
  }
  const e = exp - 1023;
  const frac = mant.toString(16).padStart(13, '0').replace(/0+$/, '');
  const es = Math.abs(e).toString().padStart(2, '0');
  return `0x1${frac ? '.' + frac : ''}p${e < 0 ? '-' : '+'}${es}`;
}

/**
 * toFixed / toExponential round an exact tie up; Go rounds it to even (`%.0f` of 2.5 is `2`).
 * A tie is exact when the longer expansion continues with 5 and zeros only.
 */
function toFixedGo(a: number, prec: number): string {
  const s = a.toFixed(prec);
  const long = a.toFixed(Math.min(100, prec + 30));
  const rest = long.slice(long.length - (Math.min(100, prec + 30) - prec));
  if (!/^50*$/.test(rest)) return s;
  const down = long.slice(0, long.length - rest.length).replace(/\.$/, '');
  const last = down.replace('.', '').slice(-1);
  return Number(last) % 2 === 0 ? down : s;
}

function toExponentialGo(a: number, prec: number): string {
  const s = a.toExponential(prec);
  const [m, e] = a.toExponential(Math.min(100, prec + 30)).split('e') as [string, string];
  const rest = m.slice(m.length - 30);
  if (prec + 30 > 100 || !/^50*$/.test(rest)) return s;
  const down = m.slice(0, m.length - 30).replace(/\.$/, '');
  return Number(down.slice(-1)) % 2 === 0 ? `${down}e${e}` : s;
}

/** Go's %e exponent has at least two digits. */
function goExp(s: string): string {
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

function fmtFloat(n: number, verb: string, f: Spec): string | undefined {
  if (!'vbgGeEfFxX'.includes(verb)) return undefined;
  if (!Number.isFinite(n)) {
    const s = Number.isNaN(n) ? (f.plus ? '+NaN' : f.space ? ' NaN' : 'NaN') : n > 0 ? (f.plus ? '+Inf' : f.space ? ' Inf' : '+Inf') : '-Inf';
    return pad(s, { ...f, zero: false }, true);
  }
  const neg = n < 0 || Object.is(n, -0);
  const a = Math.abs(n);
  let body: string;
  switch (verb) {
    case 'f':
    case 'F':
      body = toFixedGo(a, f.prec ?? 6);
      break;
    case 'e':
    case 'E':
      body = goExp(toExponentialGo(a, f.prec ?? 6));
      if (verb === 'E') body = body.toUpperCase();
      break;
    case 'x':
    case 'X':
      body = hexFloat(a);
      if (verb === 'X') body = body.toUpperCase();
      break;
    default: {
      // %v and %g: the shortest representation, or `prec` significant digits.
      if (f.prec === undefined) body = floatToString(a);
      else {
        const p = Math.max(1, f.prec);
        const e = a === 0 ? 0 : Number(a.toExponential(p - 1).split('e')[1]);
        body =
          e < -4 || e >= p
            ? goExp(toExponentialGo(a, p - 1)).replace(/\.?0+e/, 'e')
            : toFixedGo(a, Math.max(0, p - 1 - e))
                .replace(/(\.\d*?)0+$/, '$1')
                .replace(/\.$/, '');
      }
      if (verb === 'G') body = body.toUpperCase();
    }
  }
  return pad(signOf(neg, f) + body, f, true);
}

/** time.Time's String(). */
function timeString(t: Timestamp): string {
  const off = t.zone.offsetAt(t.sec);
  const p2 = (x: number): string => String(x).padStart(2, '0');
  let s = formatTime(t, '2006-01-02 15:04:05');
  if (t.nsec) s += '.' + String(t.nsec).padStart(9, '0').replace(/0+$/, '');
  const a = Math.abs(off);
  s += ` ${off < 0 ? '-' : '+'}${p2(Math.floor(a / 3600))}${p2(Math.floor((a % 3600) / 60))} ${t.zone.abbrevAt(t.sec)}`;
  return s;
}

/** Go's %#v of a value (Go syntax). */
function sharpV(v: unknown, top: boolean): string {
  const k = kindOf(v);
  switch (k) {
    case 'nil':
      return top ? '<nil>' : 'interface {}(nil)';
    case 'string':
      return goQuote(v as string);
    case 'jsonnum':
      return goQuote((v as JsonNumber).text);
    case 'bytes':
      return '[]byte{' + Array.from(v as Uint8Array, (b) => '0x' + b.toString(16)).join(', ') + '}';
    case 'array':
      return '[]interface {}{' + (v as unknown[]).map((e) => sharpV(e, false)).join(', ') + '}';
    case 'map': {
      const o = v as Record<string, unknown>;
      return (
        'map[string]interface {}{' +
        Object.keys(o)
          .sort()
          .map((key) => `${goQuote(key)}:${sharpV(o[key], false)}`)
          .join(', ') +
        '}'
      );
    }
    case 'float':
      return floatToString(widen(v) as number);
    case 'time':
      return timeString(v as Timestamp);
    default:
      return String(v);
  }
}

/** One value with one verb (fmt's printArg / printValue). */
function printValue(v: unknown, verb: string, f: Spec, depth: number): string {
  const k = kindOf(v);
  if (verb === 'v' && f.sharp) return pad(sharpV(v, depth === 0), f, false);
  let s: string | undefined;
  switch (k) {
    case 'nil':
      // A nil element of an array or map prints <nil> whatever the verb.
      s = verb === 'v' || depth > 0 ? pad('<nil>', f, false) : undefined;
      break;
    case 'bool':
      s = verb === 'v' || verb === 't' ? pad(String(v), f, false) : undefined;
      break;
    case 'int':
      s = fmtInt(v as number | JsonNumber, verb, f);
      break;
    case 'jsonnum':
      s = printValue((v as JsonNumber).text, verb, f, depth);
      if (s.startsWith('%!')) s = undefined;
      break;
    case 'float':
      s = fmtFloat(widen(v) as number, verb, f);
      break;
    case 'string':
    case 'bytes': {
      const str = k === 'string' ? (v as string) : Buffer.from(v as Uint8Array).toString('utf8');
      if (verb === 'v' && k === 'bytes') return '[' + Array.from(v as Uint8Array, (b) => fmtInt(b, 'd', f)).join(' ') + ']';
      if (verb === 'v' || verb === 's') s = pad(f.prec !== undefined ? Array.from(str).slice(0, f.prec).join('') : str, f, false);
      else if (verb === 'q') s = pad(goQuote(str), f, false);
      else if (verb === 'x' || verb === 'X') {
        const buf = k === 'string' ? Buffer.from(str, 'utf8') : Buffer.from(v as Uint8Array);
        let hex = buf.toString('hex');
        if (verb === 'X') hex = hex.toUpperCase();
        s = pad(hex, f, false);
      } else if (k === 'bytes') return '[' + Array.from(v as Uint8Array, (b) => printValue(b, verb, f, depth + 1)).join(' ') + ']';
      break;
    }
    case 'time':
      if ('vsxXq'.includes(verb)) {
        const ts = timeString(v as Timestamp);
        s = verb === 'x' || verb === 'X' ? printValue(ts, verb, f, depth) : verb === 'q' ? pad(goQuote(ts), f, false) : pad(ts, f, false);
      }
      break;
    case 'array':
      return '[' + (v as unknown[]).map((e) => printValue(e, verb, f, depth + 1)).join(' ') + ']';
    case 'map': {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o).sort();
      return 'map[' + keys.map((key) => `${printValue(key, verb, f, depth + 1)}:${printValue(o[key], verb, f, depth + 1)}`).join(' ') + ']';
    }
  }
  return s ?? badVerb(v, verb, f);
}

/** `%!verb(type=value)`, the value printed with %v and the same flags. */
function badVerb(v: unknown, verb: string, f: Spec): string {
  const k = kindOf(v);
  if (k === 'nil') return `%!${verb}(<nil>)`;
  return `%!${verb}(${TYPE_NAMES[k]}=${printValue(v, 'v', f, 0)})`;
}

/** Formats `args` into `format` with Go's verbs; a verb without an argument prints `%!v(MISSING)`. */
export function sprintf(format: string, args: unknown[]): string {
  let out = '';
  let argi = 0;
  for (let i = 0; i < format.length; i++) {
    const ch = format[i]!;
    if (ch !== '%') {
      out += ch;
      continue;
    }
    const f: Spec = { minus: false, plus: false, zero: false, space: false, sharp: false };
    i++;
    for (; i < format.length; i++) {
      const c = format[i];
      if (c === '-') f.minus = true;
      else if (c === '+') f.plus = true;
      else if (c === '0') f.zero = !f.minus;
      else if (c === ' ') f.space = true;
      else if (c === '#') f.sharp = true;
      else break;
    }
    let w = '';
    while (i < format.length && format[i]! >= '0' && format[i]! <= '9') w += format[i++];
    if (w) f.width = Number(w);
    if (format[i] === '.') {
      i++;
      let p = '';
      while (i < format.length && format[i]! >= '0' && format[i]! <= '9') p += format[i++];
      f.prec = p ? Number(p) : 0;
    }
    if (i >= format.length) {
      out += '%!(NOVERB)';
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i)!);
    i += verb.length - 1;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (argi >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    let v = args[argi++];
    if (v instanceof Float32) v = v.short(); // %v of a float32 prints its own shortest digits
    if (verb === 'T') out += pad(TYPE_NAMES[kindOf(v)], f, false);
    else out += printValue(v, verb, f, 0);
  }
  if (argi < args.length) {
    const extra = args
      .slice(argi)
      .map((a) =>
        kindOf(a) === 'nil'
          ? '<nil>'
          : `${TYPE_NAMES[kindOf(a)]}=${printValue(a, 'v', { minus: false, plus: false, zero: false, space: false, sharp: false }, 0)}`,
      );
    out += '%!(EXTRA ' + extra.join(', ') + ')';
  }
  return out;
}
