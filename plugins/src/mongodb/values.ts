/**
 * Documents between messages and BSON, as Benthos' Go driver converts them:
 *
 * - a mapping's value to store (`document_map`): objects and arrays as they are, an integer as an
 *   int64 (Go's json.Number and int64 encode so), any other number as a double, bytes as binary;
 * - a filter or hint (`filter_map`, `hint_map`): the mapping's JSON read as canonical extended
 *   JSON, so `{"_id": {"$oid": "..."}}` finds a document by its ObjectId;
 * - a document read (the input, `find-one`): extended JSON, canonical (types kept: `$numberInt`,
 *   `$numberLong`, `$oid`) or relaxed (`json_marshal_mode`).
 */
import { JsonNumber, stringifyJson } from '@svc/engine';
import type { Document } from 'mongodb';
import type { MongoModule } from './client.js';

const INT = /^-?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** `v` (a mapping's result) with its numbers and bytes as the BSON types Benthos stores. */
export function toBson(mongo: MongoModule, v: unknown): unknown {
  if (v instanceof JsonNumber) {
    if (INT.test(v.text)) {
      const n = BigInt(v.text);
      if (n >= INT64_MIN && n <= INT64_MAX) return mongo.Long.fromBigInt(n);
    }
    return new mongo.Double(v.value);
  }
  if (typeof v === 'number') return Number.isSafeInteger(v) ? mongo.Long.fromNumber(v) : new mongo.Double(v);
  if (typeof v === 'bigint') return mongo.Long.fromBigInt(v);
  if (Buffer.isBuffer(v)) return new mongo.Binary(v);
  if (Array.isArray(v)) return v.map((x) => toBson(mongo, x));
  if (v !== null && typeof v === 'object') {
    const out: Document = {};
    for (const [k, x] of Object.entries(v)) {
      // an own `__proto__` key (a message's field) must be defined, not assigned: assigned, it
      // would set the object's prototype and the field would not be stored
      if (k === '__proto__') Object.defineProperty(out, k, { value: toBson(mongo, x), enumerable: true, writable: true, configurable: true });
      else out[k] = toBson(mongo, x);
    }
    return out;
  }
  return v;
}

/** `v` (a mapping's result) as canonical extended JSON read into BSON values. */
export function fromExtJson(mongo: MongoModule, v: unknown): Document {
  return mongo.BSON.EJSON.parse(stringifyJson(v), { relaxed: false }) as Document;
}

/** How documents read become message text. */
export const jsonMarshalModes = ['canonical', 'relaxed'] as const;
export type JsonMarshalMode = (typeof jsonMarshalModes)[number];

/** A document read (with `promoteValues: false`, so its number types are known) as extended JSON. */
export function toExtJson(mongo: MongoModule, doc: Document, mode: JsonMarshalMode): string {
  return mongo.BSON.EJSON.stringify(doc, { relaxed: mode === 'relaxed' });
}
