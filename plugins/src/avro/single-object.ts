/**
 * Avro single-object encoding: the marker C3 01, the writer schema's CRC-64-AVRO fingerprint
 * as 8 little-endian bytes, then the binary body. The fingerprint must be this processor's
 * schema's: a message written with another schema would decode into garbage.
 */
import { SvcError, ErrorCode } from '@svc/engine';

export const SINGLE_OBJECT_MARKER = [0xc3, 0x01] as const;
export const SINGLE_OBJECT_HEADER_BYTES = 10;

/** The 10-byte header for a schema with this fingerprint. */
export function singleObjectHeader(fingerprint: bigint): Buffer {
  const h = Buffer.alloc(SINGLE_OBJECT_HEADER_BYTES);
  h[0] = SINGLE_OBJECT_MARKER[0];
  h[1] = SINGLE_OBJECT_MARKER[1];
  h.writeBigUInt64LE(fingerprint, 2);
  return h;
}

/**
 * Checks the header of `content` against `header` (this schema's); throws an error that says
 * what is wrong: not single-object encoded at all, or written with another schema.
 */
export function checkSingleObjectHeader(content: Buffer, header: Buffer): void {
  if (content.length < SINGLE_OBJECT_HEADER_BYTES || content[0] !== SINGLE_OBJECT_MARKER[0] || content[1] !== SINGLE_OBJECT_MARKER[1]) {
    const start = content.subarray(0, 2).toString('hex').toUpperCase() || 'nothing';
    const why =
      content.length >= 2 && content[0] === SINGLE_OBJECT_MARKER[0] && content[1] === SINGLE_OBJECT_MARKER[1]
        ? `it is ${content.length} bytes long, shorter than the 10-byte header`
        : `it must start with C3 01, it starts with ${start}`;
    throw new SvcError(ErrorCode.Processing, `not an Avro single-object encoded message: ${why}`);
  }
  if (content.compare(header, 2, SINGLE_OBJECT_HEADER_BYTES, 2, SINGLE_OBJECT_HEADER_BYTES) !== 0) {
    const theirs = content.readBigUInt64LE(2).toString(16).padStart(16, '0');
    const ours = header.readBigUInt64LE(2).toString(16).padStart(16, '0');
    throw new SvcError(
      ErrorCode.Processing,
      `schema fingerprint mismatch: the message was written with the schema whose CRC-64-AVRO fingerprint is ${theirs}, ` +
        `this processor's schema has ${ours}: the writer used another schema (or another version of it)`,
    );
  }
}
