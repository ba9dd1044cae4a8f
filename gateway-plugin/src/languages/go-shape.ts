/**
 * A JSON document written as Go's encoding/json writes it after decoding it into a Go struct:
 * what Tyk's management API answers for a definition it holds as `apidef.APIDefinition`. Fields
 * come out in the struct's order with their zero values (`""`, `0`, `false`, `null` for a nil
 * slice, map or pointer), `omitempty` fields only when set, map keys sorted, fields the struct
 * does not have dropped, and strings escaped as Go does (`<`, `>`, `&` as `\u003c`...).
 */

/** A Go type: a primitive, a struct by name, a slice, map or pointer of one, or a type with its own marshaler. */
export type GoType =
  | 'string'
  | 'bool'
  | 'int'
  | 'float'
  | 'any'
  | 'bytes'
  | { s: GoType }
  | { m: GoType }
  | { p: GoType }
  | { c: 'duration' | 'raw' | 'objectid' | 'time' }
  | (string & {});

/** A struct's fields: JSON name, type, omitempty. */
type GoField = [name: string, type: GoType, omitEmpty: boolean];

export interface GoShape {
  root: string;
  structs: Record<string, GoField[]>;
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A string as Go's json.Encoder escapes it (HTML-safe). */
export function goString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A number as Go writes a float64 (JavaScript's shortest form, with Go's exponent spelling). */
function goNumber(n: number): string {
  if (!Number.isFinite(n)) return '0';
  return String(n);
}

/** A value decoded into `interface{}` and written back: objects with sorted keys. */
function anyJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(anyJson).join(',')}]`;
  if (isObj(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${goString(k)}:${anyJson(v[k])}`)
      .join(',')}}`;
  if (typeof v === 'string') return goString(v);
  if (typeof v === 'number') return goNumber(v);
  return String(v);
}

const UNITS: Array<[string, number]> = [
  ['h', 3600e9],
  ['m', 60e9],
  ['s', 1e9],
  ['ms', 1e6],
  ['µs', 1e3],
  ['ns', 1],
];

/** Go's time.ParseDuration, in nanoseconds (Tyk's ReadableDuration reads an invalid one as 0). */
function parseDuration(text: string): number {
  const m = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(text);
  if (!m) return 0;
  let total = 0;
  for (const part of text.slice(m[1]!.length).matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    const unit = part[2] === 'us' || part[2] === 'μs' ? 'µs' : part[2]!;
    total += Number(part[1]) * UNITS.find(([u]) => u === unit)![1];
  }
  return m[1] === '-' ? -Math.round(total) : Math.round(total);
}

/** Tyk's ReadableDuration.format: `0s`, else each unit with a count (`1h30m`, `500ms`). */
function formatDuration(ns: number): string {
  if (ns === 0) return '0s';
  let rest = Math.abs(ns);
  let out = ns < 0 ? '-' : '';
  for (const [unit, size] of UNITS) {
    if (rest === 0) break;
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n !== 0) out += `${n}${unit}`;
  }
  return out;
}

/** Whether Go's omitempty leaves the field out, for the value the field decoded to. */
function empty(type: GoType, v: unknown): boolean {
  if (typeof type === 'object') {
    if ('s' in type || 'm' in type) return Array.isArray(v) ? v.length === 0 : isObj(v) ? Object.keys(v).length === 0 : true;
    if ('p' in type) return v === null || v === undefined;
    if (type.c === 'duration') return typeof v !== 'string' || parseDuration(v) === 0;
    return v === null || v === undefined || v === '';
  }
  switch (type) {
    case 'string':
      return typeof v !== 'string' || v === '';
    case 'bool':
      return v !== true;
    case 'int':
    case 'float':
      return typeof v !== 'number' || v === 0;
    case 'any':
      return v === null || v === undefined;
    case 'bytes':
      return typeof v !== 'string' || v === '';
    default:
      return false; // structs are never empty to Go
  }
}

/** The JSON text of `v` decoded into `type` and encoded again. */
function encode(shape: GoShape, type: GoType, v: unknown): string {
  if (typeof type === 'object') {
    if ('s' in type) return Array.isArray(v) ? `[${v.map((item) => encode(shape, type.s, item)).join(',')}]` : 'null';
    if ('m' in type)
      return isObj(v)
        ? `{${Object.keys(v)
            .sort()
            .map((k) => `${goString(k)}:${encode(shape, type.m, v[k])}`)
            .join(',')}}`
        : 'null';
    if ('p' in type) return v === null || v === undefined ? 'null' : encode(shape, type.p, v);
    switch (type.c) {
      case 'duration':
        return `"${formatDuration(typeof v === 'string' ? parseDuration(v) : 0)}"`;
      case 'raw':
        return v === undefined ? 'null' : anyJson(v);
      default:
        return goString(typeof v === 'string' ? v : '');
    }
  }
  switch (type) {
    case 'string':
      return goString(typeof v === 'string' ? v : '');
    case 'bool':
      return v === true ? 'true' : 'false';
    case 'int':
      return typeof v === 'number' && Number.isInteger(v) ? String(v) : '0';
    case 'float':
      return typeof v === 'number' ? goNumber(v) : '0';
    case 'any':
      return anyJson(v);
    case 'bytes':
      return typeof v === 'string' ? goString(v) : 'null';
    default:
      return encodeStruct(shape, type, v);
  }
}

/** A struct: each input key goes to the field named exactly so, else to one named so in another case (as Go's decoder). */
function encodeStruct(shape: GoShape, name: string, v: unknown): string {
  const fields = shape.structs[name];
  if (!fields) throw new Error(`go-shape: no struct ${name}`);
  const values = new Map<string, unknown>();
  if (isObj(v)) {
    for (const [k, value] of Object.entries(v)) {
      const field = fields.find(([f]) => f === k) ?? fields.find(([f]) => f.toLowerCase() === k.toLowerCase());
      if (field && value !== null) values.set(field[0], value);
    }
  }
  const out: string[] = [];
  for (const [field, type, omitEmpty] of fields) {
    const value = values.get(field);
    if (omitEmpty && empty(type, value)) continue;
    out.push(`${goString(field)}:${encode(shape, type, value)}`);
  }
  return `{${out.join(',')}}`;
}

/** `value` (parsed JSON) as Go writes it once decoded into the shape's root struct. */
export function goEncode(shape: GoShape, value: unknown): string {
  return encode(shape, shape.root, value);
}
