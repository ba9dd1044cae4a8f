/**
 * A compiled Avro schema: the avsc type, its Parsing Canonical Form and the CRC-64-AVRO
 * fingerprint of that form (what single-object encoded messages carry), and what the encoders
 * need to know about its shape. Compiled once per processor, so once per worker thread.
 */
import type Avsc from 'avsc';
import { avsc } from './avsc.js';
import { exactLongType } from './exact-long.js';
import { keySafeMaps } from './map-keys.js';
import { rabinFingerprint } from './rabin.js';

type Type = Avsc.Type;

export class AvroSchema {
  /** The record's full name, or the type's name for an unnamed top-level type. */
  readonly name: string;
  /** The Parsing Canonical Form (the Avro specification's, used for fingerprints). */
  readonly canonicalForm: string;
  /** CRC-64-AVRO of the canonical form, unsigned. */
  readonly fingerprint: bigint;
  /** `bytes` or `fixed` somewhere: JSON text needs them as ISO-8859-1 strings, not Buffers. */
  readonly hasBytes: boolean;
  /** A union somewhere: documents may carry bare union values, which need tagging first. */
  readonly hasUnions: boolean;

  private constructor(readonly type: Type) {
    // 'union:wrapped' → 'union', 'abstract:long' (exact-long.ts) → 'long'
    this.name = type.name ?? (type.typeName === 'abstract:long' ? 'long' : type.typeName.replace(/:.*$/, ''));
    // With no options avsc exports exactly the canonical form: full names, only the attributes
    // that matter (name, type, fields, symbols, items, values, size) in the specification's order.
    this.canonicalForm = JSON.stringify(type.schema());
    this.fingerprint = rabinFingerprint(Buffer.from(this.canonicalForm, 'utf8'));
    const types = typesIn(type);
    const kinds = new Set([...types].map((t) => t.typeName));
    this.hasBytes = kinds.has('bytes') || kinds.has('fixed');
    this.hasUnions = kinds.has('union:wrapped');
  }

  /**
   * Compiles a schema's JSON text. Throws an Error saying what is wrong with it (not JSON, an
   * unknown type name, a record without fields...).
   */
  static parse(text: string): AvroSchema {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new Error(`the schema is not valid JSON: ${(err as Error).message}`);
    }
    let type: Type;
    try {
      // Unions always wrapped ({"branch": value}): one form for every schema, which is also
      // Avro's JSON encoding, so decoded values print as the JSON encoding needs. Longs are exact
      // over int64 (exact-long.ts).
      type = avsc().Type.forSchema(json as Avsc.Schema, { wrapUnions: 'always', typeHook: keySafeMaps, registry: { long: exactLongType() } });
    } catch (err) {
      throw new Error(`the schema is not a valid Avro schema: ${(err as Error).message}`);
    }
    return new AvroSchema(type);
  }

  /** The fingerprint as 16 hex digits, for messages. */
  get fingerprintHex(): string {
    return this.fingerprint.toString(16).padStart(16, '0');
  }
}

/** Every avsc type reachable from `root` (named types once, so recursive schemas end). */
function typesIn(root: Type): Set<Type> {
  const seen = new Set<Type>();
  const visit = (t: Type): void => {
    if (seen.has(t)) return;
    seen.add(t);
    const any = t as unknown as {
      fields?: Avsc.types.Field[];
      itemsType?: Type;
      valuesType?: Type;
      types?: Type[];
    };
    any.fields?.forEach((f) => visit(f.type));
    if (any.itemsType) visit(any.itemsType);
    if (any.valuesType) visit(any.valuesType);
    any.types?.forEach(visit);
  };
  visit(root);
  return seen;
}
