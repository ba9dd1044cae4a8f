/**
 * Avro `long` as the engine's numbers: exact over the whole int64 range. avsc's own long type
 * refuses values beyond ±2^53 (a JS double would round them); this one decodes a long within
 * ±2^53 as a plain number and anything larger as a JsonNumber (the engine's number that keeps its
 * text, so `to_json` writes `1234567890123456789` as it is), and encodes either back exactly.
 */
import { JsonNumber } from '@svc/engine';
import type Avsc from 'avsc';
import { avsc } from './avsc.js';

let exactLong: Avsc.types.LongType | undefined;

/** The int64 a long value holds, or undefined when it is not one. */
function int64Of(v: unknown): bigint | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : undefined;
  return v instanceof JsonNumber ? v.int : undefined;
}

/** The avsc long type to compile schemas with (made once, on first use). */
export function exactLongType(): Avsc.types.LongType {
  return (exactLong ??= avsc().types.LongType.__with({
    fromBuffer: (buf: Buffer) => JsonNumber.ofInt(buf.readBigInt64LE(0)),
    toBuffer: (v: unknown) => {
      const buf = Buffer.allocUnsafe(8);
      buf.writeBigInt64LE(int64Of(v)!, 0);
      return buf;
    },
    fromJSON: (v: unknown) => v,
    toJSON: (v: unknown) => v,
    isValid: (v: unknown) => int64Of(v) !== undefined,
    compare: (a: unknown, b: unknown) => {
      const x = int64Of(a)!;
      const y = int64Of(b)!;
      return x < y ? -1 : x > y ? 1 : 0;
    },
  }) as Avsc.types.LongType);
}
