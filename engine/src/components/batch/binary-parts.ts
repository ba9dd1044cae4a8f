/**
 * Benthos' binary blob of a batch (message.SerializeBytes): a big-endian uint32 count of parts,
 * then each part as a big-endian uint32 length and its bytes.
 */
const BAD = 'serialised message bytes were in unexpected format';

export function serializeParts(parts: Buffer[]): Buffer {
  let size = 4 + 4 * parts.length;
  for (const p of parts) size += p.length;
  const out = Buffer.allocUnsafe(size);
  out.writeUInt32BE(parts.length, 0);
  let pos = 4;
  for (const p of parts) {
    out.writeUInt32BE(p.length, pos);
    pos += 4 + p.copy(out, pos + 4);
  }
  return out;
}

/** The parts of a blob (views into it); throws Benthos' error text on a malformed one. */
export function deserializeParts(b: Buffer): Buffer[] {
  if (b.length < 4) throw new Error(BAD);
  const n = b.readUInt32BE(0);
  if (n >= b.length) throw new Error(BAD);
  const parts: Buffer[] = [];
  let pos = 4;
  for (let i = 0; i < n; i++) {
    if (b.length - pos < 4) throw new Error(BAD);
    const size = b.readUInt32BE(pos);
    pos += 4;
    if (b.length - pos < size) throw new Error(BAD);
    parts.push(b.subarray(pos, pos + size));
    pos += size;
  }
  return parts;
}
