/**
 * Avro `long` as the engine's numbers: exact over the whole int64 range. avsc's own long type
 * refuses values beyond ±2^53 (a JS double would round them); this one decodes a long within
 * ±2^53 as a plain number and anything larger as a JsonNumber (the engine's number that keeps its
 * text, so `to_json` writes `1234567890123456789` as it is), and encodes either back exactly.
 *
 * It is avsc's documented custom long (`LongType.__with`), whose every value goes through an
 * 8-byte buffer; longs within ±2^53 (nearly all) take avsc's own double path instead, which keeps
 * a record with longs as fast as before (2.5× slower for every long otherwise). That path uses
 * avsc 5.7's Tap (`pos`, `readLong`, `writeLong`), as its own long type does.
 */
import { JsonNumber } from '@svc/engine';
import type Avsc from 'avsc';
import { avsc } from './avsc.js';

/** The part of avsc's Tap the double path reads and writes with. */
interface Tap {
  pos: number;
  readLong(): number;
  writeLong(n: number): void;
}

interface TypeInternals {
  _read(tap: Tap): unknown;
  _write(tap: Tap, v: unknown): void;
}

let exactLong: Avsc.types.LongType | undefined;

/** The int64 a long value holds, or undefined when it is not one. */
function int64Of(v: unknown): bigint | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : undefined;
  return v instanceof JsonNumber ? v.int : undefined;
}

/** The avsc long type to compile schemas with (made once, on first use). */
export function exactLongType(): Avsc.types.LongType {
  if (exactLong !== undefined) return exactLong;
  const bytes = avsc().types.LongType.__with({
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
  }) as unknown as TypeInternals;
  // avsc freezes the type: the double path lives on an object that inherits the rest from it.
  const fast = Object.create(bytes) as TypeInternals;
  Object.defineProperties(fast, {
    _read: {
      value(tap: Tap): unknown {
        const at = tap.pos;
        const n = tap.readLong();
        if (Number.isSafeInteger(n)) return n; // a double rounds a larger long to 2^53 or beyond, never below
        tap.pos = at;
        return bytes._read(tap);
      },
    },
    _write: {
      value(tap: Tap, v: unknown): void {
        if (typeof v === 'number' && Number.isSafeInteger(v)) tap.writeLong(v);
        else bytes._write(tap, v);
      },
    },
  });
  return (exactLong = fast as unknown as Avsc.types.LongType);
}
