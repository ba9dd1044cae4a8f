/**
 * CRC-64-AVRO, the 64-bit Rabin fingerprint the Avro specification defines for schemas
 * ("Schema Fingerprints"): the single-object encoding names its writer schema with it.
 * avsc only offers crypto hashes (md5, sha256), so it lives here. It runs once per processor
 * (on the schema's canonical form), so BigInt is fast enough.
 */

/** The fingerprint of the empty input, and the polynomial the table is built from. */
const EMPTY = 0xc15d213aa4d7a795n;
const MASK = 0xffffffffffffffffn;

const TABLE: readonly bigint[] = (() => {
  const t: bigint[] = [];
  for (let i = 0; i < 256; i++) {
    let fp = BigInt(i);
    for (let j = 0; j < 8; j++) fp = (fp >> 1n) ^ (EMPTY & (-(fp & 1n) & MASK));
    t.push(fp);
  }
  return t;
})();

/** The CRC-64-AVRO fingerprint of `bytes`, as an unsigned 64-bit value. */
export function rabinFingerprint(bytes: Uint8Array): bigint {
  let fp = EMPTY;
  for (const b of bytes) fp = (fp >> 8n) ^ TABLE[Number((fp ^ BigInt(b)) & 0xffn)]!;
  return fp;
}
