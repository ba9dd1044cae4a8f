/**
 * The three Avro encodings the processor speaks, each both ways: Avro bytes or text to Avro's
 * JSON encoding (`to_json`), and a JSON document to Avro (`from_json`).
 *
 * - `binary`: the bare binary body.
 * - `single`: single-object encoding, the body behind a header that names the schema by its
 *   fingerprint (checked on the way in).
 * - `textual`: Avro's JSON encoding (unions as `{"branch": value}`, bytes as ISO-8859-1 strings).
 *
 * JSON out is always Avro's JSON encoding, as Benthos' `avro` processor writes it, so that
 * `to_json` then `from_json` gives back the same bytes.
 */
import { ErrorCode, SvcError, parseJson, stringifyJson } from '@svc/engine';
import type { AvroSchema } from './avro-schema.js';
import { DocumentReader } from './document-reader.js';
import { registryFramedReason, registrySchemaIdOf } from './registry-frame.js';
import { SINGLE_OBJECT_HEADER_BYTES, checkSingleObjectHeader, singleObjectHeader } from './single-object.js';

export const ENCODINGS = ['textual', 'binary', 'single'] as const;
export type EncodingName = (typeof ENCODINGS)[number];

export interface AvroEncoding {
  /** Avro in this encoding → Avro's JSON encoding (UTF-8 bytes). Throws a reason. */
  toJson(content: Buffer): Buffer;
  /** A JSON document → Avro in this encoding. Throws a reason (a DocumentError names the field). */
  fromJson(doc: unknown): Buffer;
}

export function encodingOf(name: EncodingName, schema: AvroSchema): AvroEncoding {
  switch (name) {
    case 'binary':
      return new BinaryEncoding(schema);
    case 'single':
      return new SingleObjectEncoding(schema);
    case 'textual':
      return new TextualEncoding(schema);
  }
}

/** avsc's internal copy with coercion, which `Type.toString` runs before JSON.stringify (avsc 5.7). */
interface Coercing {
  _copy(value: unknown, opts: { coerce: number }): unknown;
}

function dataError(reason: string): SvcError {
  return new SvcError(ErrorCode.Processing, reason);
}

/** Binary Avro both ways; the single-object encoding adds its header around the same body. */
class BinaryEncoding implements AvroEncoding {
  private readonly reader: DocumentReader;
  /** No union and no bytes: a parsed document is already what avsc writes (it checks as it writes). */
  private readonly writesDocumentsAsIs: boolean;

  constructor(protected readonly schema: AvroSchema) {
    this.reader = new DocumentReader(schema.type, 'buffer');
    this.writesDocumentsAsIs = !schema.hasUnions && !schema.hasBytes;
  }

  toJson(content: Buffer): Buffer {
    try {
      return this.jsonOfBody(content, 0);
    } catch (err) {
      const id = registrySchemaIdOf(content);
      throw id === undefined ? err : dataError(registryFramedReason(id, (err as Error).message));
    }
  }

  fromJson(doc: unknown): Buffer {
    if (this.writesDocumentsAsIs) {
      try {
        return this.write(doc);
      } catch {
        // The reader says which field does not fit.
      }
    }
    return this.write(this.reader.read(doc));
  }

  /** Writes a value avsc accepts (avsc checks each value as it writes it). */
  protected write(value: unknown): Buffer {
    return this.schema.type.toBuffer(value);
  }

  /** Decodes the binary body at `start` (to the end of `content`) into Avro JSON text. */
  protected jsonOfBody(content: Buffer, start: number): Buffer {
    const type = this.schema.type;
    let decoded: { value: unknown; offset: number };
    try {
      decoded = type.decode(content, start);
    } catch (err) {
      throw dataError(explainDecodeError((err as Error).message, this.schema.name));
    }
    if (decoded.offset < 0) {
      throw dataError(`truncated: the message (${content.length - start} bytes) ends before the ${this.schema.name} value does`);
    }
    if (decoded.offset < content.length) {
      const left = content.length - decoded.offset;
      throw dataError(`${left} byte${left === 1 ? '' : 's'} left over after the ${this.schema.name} value: the bytes do not match the schema`);
    }
    // Wrapped unions print as {"branch": value}; only Buffers need avsc's JSON coercion (what
    // type.toString does, written with stringifyJson so that a long beyond 2^53 keeps its digits).
    const coerced = this.schema.hasBytes ? (type as unknown as Coercing)._copy(decoded.value, { coerce: 3 }) : decoded.value;
    return Buffer.from(stringifyJson(coerced));
  }
}

class SingleObjectEncoding extends BinaryEncoding {
  private readonly header: Buffer;
  /** Where bodies are written behind the header before being copied out; grows as needed. */
  private scratch: Buffer;

  constructor(schema: AvroSchema) {
    super(schema);
    this.header = singleObjectHeader(schema.fingerprint);
    this.scratch = Buffer.alloc(4096);
    this.header.copy(this.scratch);
  }

  override toJson(content: Buffer): Buffer {
    const id = registrySchemaIdOf(content);
    if (id !== undefined) throw dataError(registryFramedReason(id, 'it is not single-object encoded (that starts with C3 01)'));
    checkSingleObjectHeader(content, this.header);
    return this.jsonOfBody(content, SINGLE_OBJECT_HEADER_BYTES);
  }

  protected override write(value: unknown): Buffer {
    for (;;) {
      const end = this.schema.type.encode(value, this.scratch, SINGLE_OBJECT_HEADER_BYTES);
      if (end >= 0) return Buffer.from(this.scratch.subarray(0, end));
      // `end` is minus the bytes that did not fit.
      const bigger = Buffer.alloc(Math.max(this.scratch.length * 2, this.scratch.length - end));
      this.header.copy(bigger);
      this.scratch = bigger;
    }
  }
}

class TextualEncoding implements AvroEncoding {
  private readonly reader: DocumentReader;

  constructor(schema: AvroSchema) {
    this.reader = new DocumentReader(schema.type, 'string');
  }

  toJson(content: Buffer): Buffer {
    const id = registrySchemaIdOf(content);
    if (id !== undefined) throw dataError(registryFramedReason(id, 'binary content where Avro JSON text was expected'));
    let doc: unknown;
    try {
      doc = parseJson(content.toString('utf8'));
    } catch (err) {
      throw dataError(`the content is not JSON (the textual encoding is Avro's JSON encoding): ${(err as Error).message}`);
    }
    return this.fromJson(doc);
  }

  /** Checks the document and writes it in Avro's JSON encoding (schema field order, unions tagged). */
  fromJson(doc: unknown): Buffer {
    return Buffer.from(stringifyJson(this.reader.read(doc)));
  }
}

/** avsc's decoding errors, said in terms of the message. */
function explainDecodeError(message: string, name: string): string {
  if (message.startsWith('invalid union index')) return `${message}: the bytes do not match the ${name} schema`;
  if (/enum index/.test(message)) return `${message}: the bytes do not match the ${name} schema`;
  return `cannot decode the ${name} value: ${message}`;
}
