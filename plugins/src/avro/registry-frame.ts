/**
 * The Confluent schema-registry wire format: magic byte 0, the schema id as a 4-byte big-endian
 * integer, then the Avro binary body. This processor knows one schema and no registry, so such
 * a message cannot be decoded here; when one fails, the error says what it probably is.
 *
 * Plain binary Avro may start with a zero byte too (a null union branch, a zero, an empty
 * string), so the shape alone does not fail a binary message: only a message that does not
 * decode gets the framing named as the likely cause. A framed message that also happens to
 * decode whole (its 5 header bytes read as the start of a value, its body ending exactly at the
 * end) cannot be told apart. In the textual and single-object encodings nothing valid starts
 * with a zero byte, so there the shape is enough.
 */

/** Magic byte plus schema id. */
export const REGISTRY_HEADER_BYTES = 5;

/** The schema id when `content` has the shape of a registry-framed message, else undefined. */
export function registrySchemaIdOf(content: Buffer): number | undefined {
  if (content.length < REGISTRY_HEADER_BYTES || content[0] !== 0) return undefined;
  return content.readUInt32BE(1);
}

/** The reason given for a message that looks framed, with what went wrong decoding it as-is. */
export function registryFramedReason(schemaId: number, reason: string): string {
  return (
    `looks like a schema-registry framed message (magic byte 0, schema id ${schemaId}): ${reason}; ` +
    'this processor decodes plain Avro: strip the 5-byte prefix first, or decode with the registry'
  );
}
