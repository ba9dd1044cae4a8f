/**
 * General methods: error recovery (`catch`, `or`), null checks, type inspection and the
 * coercions (`string`, `number`, `int64`, `bool`, `bytes`, ...).
 */
import { QueryError, asQueryError, errFrom, typeError } from '../errors.js';
import { existsDotPath, getDotPath } from '../paths.js';
import { asString, asStrictInt, defineMethod, simpleMethod } from '../registry.js';
import { Timestamp, parseTime, RFC3339_NANO, Zone } from '../timestamp.js';
import { DELETE, Float32, JsonNumber, NOTHING, WholeFloat, float64, isInt, isObject, widen, toBytes, toStr, typeOf } from '../values.js';

/** `catch(fallback)`: on error, the fallback (a lambda receives the error message). */
defineMethod('catch', {
  params: [{ name: 'fallback', query: true }],
  raw(target, a) {
    const t = target.fn;
    const fb = a.lambda(0);
    return (c, self) => {
      try {
        return t(c, self);
      } catch (err) {
        return fb.call(c, asQueryError(err).message, self);
      }
    };
  },
});

/** `or(fallback)`: on error or null, the fallback. */
defineMethod('or', {
  params: [{ name: 'fallback', query: true }],
  raw(target, a) {
    const t = target.fn;
    const fb = a.lambda(0);
    return (c, self) => {
      let v: unknown;
      try {
        v = t(c, self);
      } catch {
        return fb.call(c, self, self);
      }
      if (v === null || v === undefined || v === DELETE || v === NOTHING) return fb.call(c, self, self);
      return v;
    };
  },
});

simpleMethod('not_null', [], (v) => {
  if (v === null || v === undefined) throw new QueryError('value is null');
  return v;
});

simpleMethod('type', [], (v) => typeOf(v));

simpleMethod('string', [], (v) => toStr(v));

simpleMethod('bytes', [], (v) => toBytes(v));

simpleMethod('not', [], (v) => {
  if (typeof v !== 'boolean') throw typeError(v, 'bool');
  return !v;
});

simpleMethod('array', [], (v) => (Array.isArray(v) ? v : [v]));

simpleMethod('exists', [{ name: 'path', type: 'string' }], (v, [path]) => {
  const p = asString(path);
  return p === '' ? isObject(v) && Object.hasOwn(v, '') : existsDotPath(v, p);
});

/** An empty path names the key "" (gabs splits it into one empty segment), not the value itself. */
simpleMethod('get', [{ name: 'path', type: 'string' }], (v, [path]) => {
  const p = asString(path);
  if (p !== '') return getDotPath(v, p);
  return isObject(v) && Object.hasOwn(v, '') ? v[''] : null;
});

/** Go's underscoreOK: underscores only between digits (or right after a base prefix). */
function underscoresOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  if (s.startsWith('-') || s.startsWith('+')) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && /[xXbBoO]/.test(s[1]!)) {
    hex = s[1] === 'x' || s[1] === 'X';
    i = 2;
    saw = '0';
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) saw = '0';
    else if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
    } else {
      if (saw === '_') return false;
      saw = '!';
    }
  }
  return saw !== '_';
}

/** Go's strconv.ParseFloat(s, 64): decimal (with `_` between digits), hex floats, Inf and NaN. */
export function parseFloatGo(s: string): number {
  const bad = (why: string): QueryError => new QueryError(`strconv.ParseFloat: parsing ${JSON.stringify(s)}: ${why}`);
  if (/^[+-]?(inf|infinity)$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(s)) return NaN;
  let n: number;
  const hex = /^([+-]?)0[xX]([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?[0-9_]+)$/.exec(s);
  if (hex) {
    const int = hex[2]!.replaceAll('_', '');
    const frac = (hex[3] ?? '').replaceAll('_', '');
    if (int + frac === '' || !underscoresOK(s)) throw bad('invalid syntax');
    const mant = parseInt(int + frac || '0', 16);
    n = mant * 2 ** (Number(hex[4]!.replaceAll('_', '')) - 4 * frac.length);
    if (hex[1] === '-') n = -n;
  } else {
    if (!/^[+-]?([\d_]+\.?[\d_]*|\.[\d_]+)([eE][+-]?[\d_]+)?$/.test(s) || !/\d/.test(s) || (s.includes('_') && !underscoresOK(s))) {
      throw bad('invalid syntax');
    }
    n = Number(s.replaceAll('_', ''));
  }
  if (!Number.isFinite(n)) throw bad('value out of range');
  return n;
}

/**
 * Go's strconv.ParseInt(s, 0, 64) (ParseUint with `unsigned`): base prefixes 0x, 0o, 0b and a
 * leading 0 for octal; exact, as an int64 beyond 2^53 is a JsonNumber.
 */
function parseIntGo(s: string, unsigned = false): number | JsonNumber {
  const m = /^([+-]?)(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)$/.exec(s);
  if (!m) throw new QueryError(`strconv.ParseInt: parsing ${JSON.stringify(s)}: invalid syntax`);
  const body = m[2]!.replaceAll('_', '');
  let n: bigint;
  if (/^0[xXoObB]/.test(body)) n = BigInt(body.toLowerCase());
  else if (body.length > 1 && body.startsWith('0')) n = BigInt('0o' + body.slice(1));
  else n = BigInt(body);
  if (m[1] === '-') n = -n;
  if ((unsigned ? n > 18446744073709551615n : n > 9223372036854775807n) || n < -9223372036854775808n) {
    throw new QueryError(`strconv.Parse${unsigned ? 'Uint' : 'Int'}: parsing ${JSON.stringify(s)}: value out of range`);
  }
  return JsonNumber.ofInt(n);
}

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (v instanceof Float32 || v instanceof JsonNumber || v instanceof WholeFloat) return v.value;
  if (typeof v === 'string') return parseFloatGo(v);
  if (v instanceof Uint8Array) return parseFloatGo(toStr(v));
  throw typeError(v, 'number');
}

function toInt(v: unknown, unsigned = false): number | JsonNumber {
  // Benthos: json.Number.Int64, so `1e2` and `1.5` read from JSON are refused, not truncated
  if (v instanceof JsonNumber && !(v instanceof WholeFloat)) return v.int !== undefined ? JsonNumber.ofInt(v.int) : parseIntGo(v.text, unsigned);
  v = widen(v);
  if (typeof v === 'number') {
    if (Number.isInteger(v) && !isInt(v)) throw new QueryError('float value is too large to be cast as a signed integer');
    return asStrictInt(v);
  }
  if (typeof v === 'string') return parseIntGo(v, unsigned);
  if (v instanceof Uint8Array) return parseIntGo(toStr(v), unsigned);
  throw typeError(v, 'number');
}

/** A coercion that returns its optional default when the target fails or cannot convert. */
function coercion(name: string, convert: (v: unknown) => unknown, defaultType?: 'number' | 'bool' | 'none'): void {
  defineMethod(name, {
    // Benthos' float64() and float32() take no default; number()'s is a number, bool()'s a bool.
    params: defaultType === 'none' ? [] : [{ name: 'default', optional: true, ...(defaultType ? { type: defaultType } : {}) }],
    raw(target, a) {
      const t = target.fn;
      const ann = target.ann;
      const hasDefault = a.given(0);
      return (c, self) => {
        let v: unknown;
        try {
          v = t(c, self);
        } catch (err) {
          if (hasDefault) return a.get(0, c, self);
          throw err;
        }
        try {
          return convert(v);
        } catch (err) {
          if (hasDefault) return a.get(0, c, self);
          throw errFrom(err, ann);
        }
      };
    },
  });
}

// IToNumber gives a float64, whatever the number's type was.
coercion('number', (v) => float64(toNumber(v)), 'number');
coercion('float64', (v) => float64(toNumber(v)), 'none');
coercion(
  'float32',
  (v) => {
    const n = toNumber(v);
    // strconv.ParseFloat(s, 32) / a float64 beyond float32's range is out of range, as in Go.
    if (Number.isFinite(n) && !Number.isFinite(Math.fround(n)))
      throw new QueryError(`strconv.ParseFloat: parsing ${JSON.stringify(toStr(v))}: value out of range`);
    return new Float32(n);
  },
  'none',
);

coercion(
  'bool',
  (v) => {
    if (typeof v === 'boolean') return v;
    if (typeof v === 'number') return v !== 0;
    if (v instanceof WholeFloat) return v.value !== 0;
    if (v instanceof JsonNumber) return v.text !== '0'; // Go's IToBool of a json.Number
    if (typeof v === 'string' || v instanceof Uint8Array) {
      const s = toStr(v);
      if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
      if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
      throw new QueryError(`strconv.ParseBool: parsing ${JSON.stringify(s)}: invalid syntax`);
    }
    throw typeError(v, 'bool');
  },
  'bool',
);

/** Go's strconv.ParseUint(s, 0, 64): like ParseInt, but no sign at all (`"-0"` is refused). */
function toUint(v: unknown): number | JsonNumber {
  if ((typeof v === 'string' || v instanceof Uint8Array) && /^[+-]/.test(toStr(v))) {
    throw new QueryError(`strconv.ParseUint: parsing ${JSON.stringify(toStr(v))}: invalid syntax`);
  }
  return toInt(v, true);
}

/** Benthos' integer casts are plugins (registerIntMethod): their errors do not name the target. */
function intRange(name: string, min: number, max: number, what: string): void {
  defineMethod(name, {
    params: [],
    plugin: true,
    build() {
      return (v) => {
        const i = min === 0 ? toUint(v) : toInt(v);
        const n = widen(i) as number;
        if (n > max) throw new QueryError(`value is too large to be cast as ${what}`);
        if (n < min && min === 0) throw new QueryError(`${isInt(n) ? 'signed integer' : 'float'} value is negative and cannot be cast as an unsigned integer`);
        if (n < min) throw new QueryError(`value is too small to be cast as ${what}`);
        return i;
      };
    },
  });
}

defineMethod('int64', { params: [], plugin: true, build: () => (v) => toInt(v) });
intRange('int8', -(2 ** 7), 2 ** 7 - 1, 'an 8-bit signed integer');
intRange('int16', -(2 ** 15), 2 ** 15 - 1, 'a 16-bit signed integer');
intRange('int32', -(2 ** 31), 2 ** 31 - 1, 'a 32-bit signed integer');
intRange('uint8', 0, 2 ** 8 - 1, 'an 8-bit unsigned integer');
intRange('uint16', 0, 2 ** 16 - 1, 'a 16-bit unsigned integer');
intRange('uint32', 0, 2 ** 32 - 1, 'a 32-bit unsigned integer');
intRange('uint64', 0, 2 ** 64 - 1, 'an unsigned integer');

/** `timestamp()`: numbers are unix seconds, strings RFC 3339. */
coercion('timestamp', (v) => {
  if (v instanceof Timestamp) return v;
  if (typeof v === 'number' || v instanceof JsonNumber || v instanceof WholeFloat) return Timestamp.fromUnix(widen(v) as number, Zone.Local);
  if (typeof v === 'string' || v instanceof Uint8Array) return parseTime(RFC3339_NANO, toStr(v));
  throw typeError(v, 'number', 'string');
});

/** `map(query)`: the query run with the target as its context, as `.(query)` is. */
defineMethod('map', {
  params: [{ name: 'query', query: true }],
  build(a) {
    const lam = a.lambda(0);
    return (v, c, self) => lam.call(c, v, self);
  },
});

/** `from(index)`: the target evaluated as if the mapping ran on another message of the batch. */
defineMethod('from', {
  params: [{ name: 'index', type: 'number' }],
  raw(target, a) {
    const t = target.fn;
    return (c, self) => {
      const i = asStrictInt(a.get(0, c, self));
      const saved = c.index;
      c.index = i;
      try {
        return t(c, self);
      } finally {
        c.index = saved;
      }
    };
  },
});

/** `from_all()`: the target evaluated once per message of the batch, as an array. */
defineMethod('from_all', {
  params: [],
  raw(target) {
    const t = target.fn;
    return (c, self) => {
      const saved = c.index;
      const out: unknown[] = [];
      try {
        for (let i = 0; i < c.batch.length; i++) {
          c.index = i;
          out.push(t(c, self));
        }
      } finally {
        c.index = saved;
      }
      return out;
    };
  },
});
