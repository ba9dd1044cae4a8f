/**
 * The value model of the mapping language.
 *
 * Values are plain JS values so that parsed message JSON is used as is (no boxing, no copy):
 * string, number, boolean, null, arrays, plain objects, plus `Buffer` for bytes and
 * {@link Timestamp} for timestamps. Two sentinels carry Bloblang's special results: DELETE
 * (`deleted()`) and NOTHING (`nothing()`, an `if` without a matching branch).
 *
 * Numbers follow Benthos' types, operation by operation: a plain JS number is an int64 when it is
 * whole and a float64 when it is not; a float64 whose value is whole (`2.0`, `4 / 2`, `"5".number()`)
 * is a {@link WholeFloat}, so that the next operation still computes in float64 (Benthos'
 * `(x * 1.0) * 4294967296` does not wrap as int64 would) and `.string()` prints it as Go formats a
 * float64 (`4.294967296e+09`). A number read from JSON that a JS number would change (a 64-bit id, `1.10`, `1e2`) is a
 * {@link JsonNumber}, Go's json.Number: it prints as its text, and arithmetic reads it as an exact
 * int64 (a bigint) or as a float64, as Benthos does. An int64 result beyond 2^53 is a JsonNumber
 * too (made by `JsonNumber.ofInt`), so integer arithmetic is exact over the whole int64 range.
 */
import { JsonNumber } from '../message/json-number.js';
import { stringifyJsonWithBytes } from '../message/json.js';
import { Timestamp } from './timestamp.js';

export { JsonNumber, Timestamp };

/** `deleted()`: the assignment target is removed (a deleted root filters the message). */
export const DELETE: unique symbol = Symbol('delete');
/** `nothing()`: the assignment is skipped. */
export const NOTHING: unique symbol = Symbol('nothing');

export type Obj = Record<string, unknown>;

/** Plain objects only: Buffers, Timestamps and class instances are values, not containers. */
export function isObject(v: unknown): v is Obj {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * A float32 (`float32()`): Go keeps it 32-bit, prints it with the shortest digits that read back
 * as the same float32 (`3.14159`, not `3.141590118408203`), and widens it to float64 when a
 * method computes with it. Arithmetic operators refuse it, as Benthos' do.
 */
export class Float32 {
  readonly value: number;
  constructor(n: number) {
    this.value = Math.fround(n);
  }

  /** The shortest decimal that is this float32, as a double (0.1, not 0.10000000149011612). */
  short(): number {
    const x = this.value;
    if (!Number.isFinite(x) || x === 0) return x;
    for (let p = 1; p < 9; p++) {
      const d = Number(x.toPrecision(p));
      if (Math.fround(d) === x) return d;
    }
    return Number(x.toPrecision(9));
  }

  /** Benthos prints a float32 as its JSON encoding: `4294967300`, `2.5e-8`, `null` for Inf. */
  toString(): string {
    if (Object.is(this.value, -0)) return '-0';
    return Number.isFinite(this.value) ? JSON.stringify(this.short()) : 'null';
  }

  /** Go's encoding/json writes float32 with its own shortest digits. */
  toJSON(): number | null {
    return Number.isFinite(this.value) ? this.short() : null;
  }
}

/**
 * A float64 whose value is whole (a whole plain number reads as an int64). It is a JsonNumber
 * that is never an int64, so that code outside the language that meets one in a document (a
 * plugin, the JSON writer, a worker hop) handles it as it handles any number that keeps its text:
 * its text is the JSON Go writes for it (`4294967296`, `-0`, `1e+21`), and `.string()` prints it
 * with Go's float formatting (`strconv.FormatFloat(f, 'g', -1, 64)`: `4.294967296e+09`).
 */
export class WholeFloat extends JsonNumber {
  private readonly f: number;
  constructor(n: number) {
    super(Object.is(n, -0) ? '-0' : String(n));
    this.f = n;
  }

  override get value(): number {
    return this.f;
  }

  override get int(): undefined {
    return undefined;
  }

  override toString(): string {
    return floatToString(this.f);
  }
}

/** The value of a float64 computation: a plain number, or a {@link WholeFloat} when it is whole within int64. */
export function float64(n: number): number | WholeFloat {
  return Number.isInteger(n) && isInt(n) ? new WholeFloat(n) : n;
}

/** A float32, a JsonNumber or a WholeFloat as a float64 (a JS number), anything else as it is. */
export function widen(v: unknown): unknown {
  return v instanceof Float32 || v instanceof JsonNumber || v instanceof WholeFloat ? v.value : v;
}

/** Any number value: a JS number, a JsonNumber, a WholeFloat or a Float32. */
export function isNumber(v: unknown): v is number | JsonNumber | Float32 | WholeFloat {
  return typeof v === 'number' || v instanceof JsonNumber || v instanceof WholeFloat || v instanceof Float32;
}

/** The Bloblang type name of a value, as `type()` and error messages print it. */
export function typeOf(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
    case 'bigint':
      return 'number';
    case 'boolean':
      return 'bool';
    case 'undefined':
      return 'null';
    case 'symbol':
      return v === DELETE ? 'delete' : v === NOTHING ? 'nothing' : 'unknown';
    case 'object':
      if (v === null) return 'null';
      if (Array.isArray(v)) return 'array';
      if (v instanceof Uint8Array) return 'bytes';
      if (v instanceof Timestamp) return 'timestamp';
      if (v instanceof Float32 || v instanceof JsonNumber || v instanceof WholeFloat) return 'number';
      return 'object';
    default:
      return 'unknown';
  }
}

const TWO_63 = 2 ** 63;

/** An int64 in range (what Bloblang would hold as an int64 rather than a float64). */
export function isInt(n: number): boolean {
  return Number.isInteger(n) && n < TWO_63 && n >= -TWO_63;
}

/** Formats a number as Go does: integers in decimal, floats with `strconv.FormatFloat(f, 'g', -1, 64)`. */
export function numToString(n: number): string {
  // -0 only arises from float arithmetic or parsing ("-0".number()), where Go prints it as -0.
  if (isInt(n)) return Object.is(n, -0) ? '-0' : n.toString();
  return floatToString(n);
}

/** Formats a float64 as Go's `strconv.FormatFloat(f, 'g', -1, 64)`: `1e+06`, `0.5`, `-0`. */
export function floatToString(n: number): string {
  if (Object.is(n, -0)) return '-0';
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  const e = n.toExponential(); // shortest round-trip digits, as Go's -1 precision
  const at = e.indexOf('e');
  const exp = Number(e.slice(at + 1));
  if (exp < -4 || exp >= 6) {
    const mant = e.slice(0, at);
    const sign = exp < 0 ? '-' : '+';
    const abs = Math.abs(exp);
    return `${mant}e${sign}${abs < 10 ? '0' : ''}${abs}`;
  }
  return n.toString();
}

/** Serialises a value to JSON; bytes become base64 strings (as Go's encoding/json does). */
export function toJSON(v: unknown, indent?: string): string {
  return stringifyJsonWithBytes(v, indent);
}

/** Any value as a string (Bloblang's IToString): used by `string()`, interpolation and `+` on strings. */
export function toStr(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return numToString(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
      return 'null';
    case 'symbol':
      return 'null';
    default:
      if (v === null) return 'null';
      if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8');
      if (v instanceof Timestamp) return v.toRFC3339Nano();
      if (v instanceof Float32 || v instanceof JsonNumber || v instanceof WholeFloat) return v.toString();
      return toJSON(v);
  }
}

/** Any value as bytes (Bloblang's IToBytes). */
export function toBytes(v: unknown): Buffer {
  if (v instanceof Uint8Array) return Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return Buffer.from(toStr(v), 'utf8');
}

/**
 * Equality as Benthos' value.ICompare (`==` on unlike or structured values, `match` literal cases,
 * `contains`, `index_of`...): the left side decides. Strings, bytes and timestamps (their RFC 3339
 * text) equal strings, bytes and timestamps with the same text; numbers equal numbers by float64
 * value; a bool equals a bool, or a number that is non-zero when the bool is true; arrays and
 * objects element by element.
 */
export function equals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a === null || b === null) return a === b;
  if (typeof a === 'string' || a instanceof Uint8Array || a instanceof Timestamp) {
    return (typeof b === 'string' || b instanceof Uint8Array || b instanceof Timestamp) && toStr(a) === toStr(b);
  }
  if (isNumber(a)) return isNumber(b) && widen(a) === widen(b);
  if (typeof a === 'boolean') {
    if (typeof b === 'boolean') return a === b;
    if (b instanceof JsonNumber) return a === (b.text !== '0');
    return isNumber(b) && a === (widen(b) !== 0);
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equals(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) if (!equals(a[k], Object.hasOwn(b, k) ? b[k] : null)) return false;
    return true;
  }
  return false;
}

/** Replaces nested bytes with base64 strings, in place, the way Go's JSON encoder writes them. */
export function bytesToBase64(v: unknown): unknown {
  if (v instanceof Uint8Array) return toBytes(v).toString('base64');
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = bytesToBase64(v[i]);
  } else if (isObject(v)) {
    for (const k in v) v[k] = bytesToBase64(v[k]);
  }
  return v;
}

/** Writes an own key; `__proto__` is defined as a plain property so it never reaches a prototype. */
export function setKey(obj: Obj, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/** A short printable form of a value for error messages (Go's `%v` of a scalar). */
export function describeValue(v: unknown): string {
  const t = typeOf(v);
  if (t === 'string') return JSON.stringify(v);
  if (t === 'number' || t === 'bool') return toStr(v);
  return '';
}
