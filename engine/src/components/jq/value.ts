/**
 * jq values as gojq (Benthos' jq) holds them: null, booleans, strings, arrays, objects (a Map, so
 * a key from a document is never a property lookup) and numbers that are either integers, kept
 * exact (a safe JS integer, or a bigint past 2^53, as gojq's int and *big.Int), or float64s.
 */
import { JsonNumber } from '@svc/engine';

export type Value = null | boolean | number | bigint | string | Value[] | JqObject;
export type JqObject = Map<string, Value>;

/** A jq runtime error: `value` is what `catch` sees (a string for the built-in errors). */
export class JqError extends Error {
  constructor(readonly value: Value) {
    super(typeof value === 'string' ? value : 'error: ' + encode(value));
  }
}

export function typeOf(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  if (typeof v === 'string') return 'string';
  return Array.isArray(v) ? 'array' : 'object';
}

export const isObject = (v: Value): v is JqObject => v instanceof Map;
export const isNumber = (v: Value): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';
/** gojq's int: a safe integer or a bigint (a float that holds an integer is read as one, as gojq normalises). */
export const isInt = (v: Value): v is number | bigint => typeof v === 'bigint' || Number.isSafeInteger(v);

/** A bigint result back to a number when it fits, as gojq's int after big.Int arithmetic. */
export function normInt(n: bigint): number | bigint {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

export const toFloat = (v: number | bigint): number => Number(v);

const ORDER: Record<string, number> = { null: 0, boolean: 1, number: 3, string: 4, array: 5, object: 6 };

function rank(v: Value): number {
  return v === true ? 2 : ORDER[typeOf(v)]!;
}

/** Strings compare by code point, as Go compares UTF-8 bytes. */
function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function compareNumbers(a: number | bigint, b: number | bigint): number {
  if (typeof a === 'number' && Number.isNaN(a)) return typeof b === 'number' && Number.isNaN(b) ? 0 : -1;
  if (typeof b === 'number' && Number.isNaN(b)) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortedKeys(o: JqObject): string[] {
  return [...o.keys()].sort(compareStrings);
}

/** jq's total order: null < false < true < numbers < strings < arrays < objects. */
export function compare(a: Value, b: Value): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (isNumber(a)) return compareNumbers(a, b as number | bigint);
  if (typeof a === 'string') return compareStrings(a, b as string);
  if (Array.isArray(a)) {
    const bb = b as Value[];
    for (let i = 0; i < a.length && i < bb.length; i++) {
      const c = compare(a[i]!, bb[i]!);
      if (c !== 0) return c;
    }
    return a.length - bb.length < 0 ? -1 : a.length === bb.length ? 0 : 1;
  }
  if (isObject(a)) {
    const bo = b as JqObject;
    const ka = sortedKeys(a);
    const kb = sortedKeys(bo);
    const c = compare(ka, kb);
    if (c !== 0) return c;
    for (const k of ka) {
      const d = compare(a.get(k)!, bo.get(k)!);
      if (d !== 0) return d;
    }
  }
  return 0;
}

/** A number as gojq's encoder writes it: shortest float64 text, NaN as null, infinities clamped. */
function encodeNumber(n: number | bigint): string {
  if (typeof n === 'bigint') return n.toString();
  if (Number.isNaN(n)) return 'null';
  if (n === Infinity) return '1.7976931348623157e+308';
  if (n === -Infinity) return '-1.7976931348623157e+308';
  if (Object.is(n, -0)) return '-0';
  return String(n);
}

function encodeString(s: string): string {
  return JSON.stringify(s)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** The value as gojq's encoder writes it (`tojson`, `tostring`): keys sorted, no HTML escaping. */
export function encode(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (isNumber(v)) return encodeNumber(v);
  if (typeof v === 'string') return encodeString(v);
  if (Array.isArray(v)) return '[' + v.map(encode).join(',') + ']';
  return (
    '{' +
    sortedKeys(v)
      .map((k) => encodeString(k) + ':' + encode(v.get(k)!))
      .join(',') +
    '}'
  );
}

/** gojq's Preview: the encoding cut to 30 bytes with a closing hint. */
export function preview(v: Value): string {
  const s = encode(v);
  if (Buffer.byteLength(s) <= 30) return s;
  const trailing = typeof v === 'string' ? ' ..."' : Array.isArray(v) ? ' ...]' : isObject(v) ? ' ...}' : ' ...';
  let cut = s.slice(0, 30);
  while (Buffer.byteLength(cut) > 30 - trailing.length) cut = [...cut].slice(0, -1).join('');
  return cut + trailing;
}

/** `number (5)`: how gojq names a value in a type error. */
export function typeErrorPreview(v: Value): string {
  return v === null ? 'null' : `${typeOf(v)} (${preview(v)})`;
}

/** A message's structured value (plain JSON with JsonNumbers) as a jq value. */
export function fromDocument(v: unknown): Value {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return normInt(v);
  if (v instanceof JsonNumber) return numberText(v.text);
  if (Array.isArray(v)) return v.map(fromDocument);
  if (v instanceof Uint8Array) return Buffer.from(v).toString();
  const m: JqObject = new Map();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) m.set(k, fromDocument(x));
  return m;
}

/** A number from its JSON text as gojq normalises json.Number: integers exact, the rest float64. */
export function numberText(text: string): number | bigint {
  if (/^-?\d+$/.test(text)) return normInt(BigInt(text));
  return Number(text);
}

/** A jq value as a message document: keys sorted as Go writes a map, exact integers as JsonNumbers. */
export function toDocument(v: Value): unknown {
  if (typeof v === 'bigint') return JsonNumber.ofInt(v);
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return null;
    if (!Number.isFinite(v)) return v > 0 ? Number.MAX_VALUE : -Number.MAX_VALUE;
    return Object.is(v, -0) ? new JsonNumber('-0') : v;
  }
  if (Array.isArray(v)) return v.map(toDocument);
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of sortedKeys(v)) Object.defineProperty(out, k, { value: toDocument(v.get(k)!), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}
