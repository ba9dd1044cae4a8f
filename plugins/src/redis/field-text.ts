/**
 * A value sent to Redis as one argument: strings and bytes as they are, numbers by their text
 * (a JSON number keeps the digits it was written with), booleans as `1`/`0` and null as an empty
 * string (as Redpanda Connect's client sends them), and arrays and objects as JSON.
 */
import { JsonNumber, stringifyJson } from '@svc/engine';

export function argText(v: unknown): string | Buffer {
  if (typeof v === 'string' || Buffer.isBuffer(v)) return v;
  if (v instanceof JsonNumber) return v.text;
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (v === null || v === undefined) return '';
  return stringifyJson(v);
}
