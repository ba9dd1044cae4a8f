/**
 * Values crossing between messages and SQL, kept as exact as the database keeps them.
 *
 * Arguments (what `args_mapping` gives): strings and bytes as they are; a JSON number keeps its
 * digits (PostgreSQL and MySQL parse the text into the column's type; SQLite gets an integer beyond
 * 2^53 as a BigInt); booleans as booleans (1/0 for SQLite, which has none); null as NULL; objects as
 * JSON text; arrays as PostgreSQL arrays (SQLite, MySQL: JSON text).
 *
 * Rows (what a query gives), as Redpanda Connect's drivers give them: integers as numbers (64-bit
 * ones exact), numeric/decimal and json/jsonb columns as their text, timestamps as RFC 3339 text
 * (Go's time.Time in JSON), bytes as text, NULL as null.
 */
import { JsonNumber } from '@svc/engine';

export type Dialect = 'postgres' | 'sqlite' | 'mysql';

function argOf(v: unknown, dialect: Dialect, nested: boolean): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || Buffer.isBuffer(v)) return v;
  if (v instanceof Uint8Array) return Buffer.from(v);
  if (v instanceof JsonNumber) {
    if (dialect !== 'sqlite') return v.text;
    if (!/^-?\d+$/.test(v.text)) return Number(v.text);
    const n = Number(v.text);
    return Number.isSafeInteger(n) ? n : BigInt(v.text);
  }
  if (typeof v === 'bigint') return dialect === 'sqlite' ? v : v.toString();
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return dialect === 'sqlite' ? (v ? 1 : 0) : v;
  if (Array.isArray(v) && dialect === 'postgres' && !nested) return v.map((x) => argOf(x, dialect, true));
  return JSON.stringify(v, (_k, x: unknown) => (x instanceof JsonNumber ? Number(x.text) : typeof x === 'bigint' ? Number(x) : x));
}

/** An argument list from a mapping's array, for `dialect`. */
export function sqlArgs(values: unknown[], dialect: Dialect): unknown[] {
  return values.map((v) => argOf(v, dialect, false));
}

/** A 64-bit integer read from a database: a number when it is safe, else a JsonNumber of its digits. */
export function exactInt(text: string | bigint): number | JsonNumber {
  const s = typeof text === 'bigint' ? text.toString() : text;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : new JsonNumber(s);
}

/** PostgreSQL timestamp text (`2024-01-02 03:04:05.5+00`) as Go marshals a time.Time (`2024-01-02T03:04:05.5Z`). */
export function rfc3339(text: string): string {
  const m = /^(\d{4,}-\d\d-\d\d)(?:[ T](\d\d:\d\d:\d\d)(?:\.(\d+))?)?([+-]\d\d(?::?\d\d)?(?::\d\d)?)?$/.exec(text);
  if (!m) return text;
  const [, date, time = '00:00:00', frac, zone] = m;
  const fraction = frac ? `.${frac.replace(/0+$/, '')}`.replace(/^\.$/, '') : '';
  let tz = 'Z';
  if (zone && !/^[+-]00(:?00)?$/.test(zone)) tz = zone.length === 3 ? `${zone}:00` : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  return `${date}T${time}${fraction}${tz}`;
}
