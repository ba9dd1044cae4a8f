/**
 * A subset of Go's fmt.Sprintf for the `format` method, because Bloblang format strings are Go
 * format strings (`%v`, `%s`, `%d`, `%05.2f`, `%q`, `%x`, `%t`, `%%`).
 */
import { Timestamp } from './timestamp.js';
import { isInt, numToString, toJSON, toStr } from './values.js';

interface Spec {
  minus: boolean;
  plus: boolean;
  zero: boolean;
  space: boolean;
  sharp: boolean;
  width?: number;
  prec?: number;
}

function padTo(s: string, f: Spec, numeric: boolean): string {
  if (f.width === undefined || s.length >= f.width) return s;
  const n = f.width - s.length;
  if (f.minus) return s + ' '.repeat(n);
  if (f.zero && numeric) {
    const sign = s[0] === '-' || s[0] === '+' ? s[0] : '';
    return sign + '0'.repeat(n) + s.slice(sign.length);
  }
  return ' '.repeat(n) + s;
}

/** Go's %v of a value: maps print as map[k:v], slices as [a b]. */
function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return numToString(v);
  if (typeof v === 'boolean') return String(v);
  if (v instanceof Uint8Array) return '[' + Array.from(v).join(' ') + ']';
  if (v instanceof Timestamp) return v.toRFC3339Nano();
  if (Array.isArray(v)) return '[' + v.map(goValue).join(' ') + ']';
  if (typeof v === 'object') {
    const keys = Object.keys(v).sort();
    return 'map[' + keys.map((k) => `${k}:${goValue((v as Record<string, unknown>)[k])}`).join(' ') + ']';
  }
  return String(v);
}

function sign(n: number, f: Spec): string {
  return n < 0 || Object.is(n, -0) ? '-' : f.plus ? '+' : f.space ? ' ' : '';
}

function fmtFloat(n: number, verb: string, f: Spec): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : (n > 0 ? (f.plus ? '+' : '') : '-') + 'Inf';
  const a = Math.abs(n);
  let body: string;
  switch (verb) {
    case 'f':
    case 'F':
      body = a.toFixed(f.prec ?? 6);
      break;
    case 'e':
    case 'E': {
      const e = a.toExponential(f.prec ?? 6);
      body = e.replace(/e([+-])(\d)$/, 'e$10$2');
      if (verb === 'E') body = body.toUpperCase();
      break;
    }
    default: {
      // %g: shortest representation, as Go's strconv 'g' with the given precision.
      if (f.prec === undefined) body = numToString(a);
      else {
        body = a.toPrecision(Math.max(1, f.prec));
        if (body.includes('e')) body = body.replace(/\.?0+e/, 'e').replace(/e([+-])(\d)$/, 'e$10$2');
        else if (body.includes('.')) body = body.replace(/\.?0+$/, '');
      }
      if (verb === 'G') body = body.toUpperCase();
    }
  }
  return sign(n, f) + body;
}

function quoteGo(s: string): string {
  return JSON.stringify(s).replace(/\\u007f/g, '\\x7f');
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
      else if (c === '0') f.zero = true;
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
    const verb = format[i];
    if (verb === undefined) {
      out += '%!(NOVERB)';
      break;
    }
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (argi >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    const v = args[argi++];
    let s: string;
    let numeric = false;
    switch (verb) {
      case 'v':
        if (f.sharp) s = toJSON(v);
        else if (typeof v === 'number') {
          s = (f.plus && v >= 0 ? '+' : '') + numToString(v);
          numeric = true;
        } else s = goValue(v);
        break;
      case 's':
        s = typeof v === 'string' ? v : v instanceof Uint8Array ? toStr(v) : goValue(v);
        if (f.prec !== undefined) s = s.slice(0, f.prec);
        break;
      case 'q':
        s = typeof v === 'string' || v instanceof Uint8Array ? quoteGo(toStr(v)) : `%!q(${goValue(v)})`;
        break;
      case 'd':
        if (typeof v === 'number' && Number.isInteger(v)) {
          s = sign(v, f) + String(Math.abs(v));
          numeric = true;
        } else s = `%!d(${typeof v === 'number' ? 'float64=' + numToString(v) : goValue(v)})`;
        break;
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
        if (typeof v === 'number') {
          s = fmtFloat(v, verb, f);
          numeric = true;
        } else s = `%!${verb}(${goValue(v)})`;
        break;
      case 'x':
      case 'X': {
        if (typeof v === 'number' && Number.isInteger(v)) {
          s = sign(v, f) + (f.sharp ? '0x' : '') + Math.abs(v).toString(16);
          numeric = true;
        } else {
          s = Buffer.from(typeof v === 'string' ? v : v instanceof Uint8Array ? v : goValue(v)).toString('hex');
        }
        if (verb === 'X') s = s.toUpperCase();
        break;
      }
      case 'o':
        s = typeof v === 'number' && Number.isInteger(v) ? sign(v, f) + Math.abs(v).toString(8) : `%!o(${goValue(v)})`;
        numeric = true;
        break;
      case 'b':
        s = typeof v === 'number' && Number.isInteger(v) ? sign(v, f) + Math.abs(v).toString(2) : `%!b(${goValue(v)})`;
        numeric = true;
        break;
      case 't':
        s = typeof v === 'boolean' ? String(v) : `%!t(${goValue(v)})`;
        break;
      case 'c':
        s = typeof v === 'number' ? String.fromCodePoint(v) : `%!c(${goValue(v)})`;
        break;
      case 'T':
        s = typeof v === 'number' ? (isInt(v) ? 'int64' : 'float64') : typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool' : v === null ? '<nil>' : Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
        break;
      default:
        s = `%!${verb}(${goValue(v)})`;
    }
    out += padTo(s, f, numeric);
  }
  if (argi < args.length) {
    out += '%!(EXTRA ' + args.slice(argi).map((a) => `${typeof a === 'number' ? (isInt(a) ? 'int64' : 'float64') : typeof a === 'string' ? 'string' : 'interface {}'}=${goValue(a)}`).join(', ') + ')';
  }
  return out;
}
