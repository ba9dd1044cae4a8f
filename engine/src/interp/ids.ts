/** Identifiers Bloblang generates: UUID v7 (time ordered, RFC 9562), v5 (name based) and KSUIDs. */
import { createHash, randomBytes } from 'node:crypto';

function uuidText(b: Buffer): string {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A version 7 UUID: 48 bits of unix milliseconds, then random bits with the version and variant set. */
export function uuidV7(unixMs: number): string {
  const b = randomBytes(16);
  b.writeUIntBE(unixMs, 0, 6);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  return uuidText(b);
}

/** The namespace UUIDs RFC 9562 predefines (`dns`, `url`, `oid`, `x500`). */
export const UUID_NAMESPACES = new Map<string, string>([
  ['dns', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'],
  ['url', '6ba7b811-9dad-11d1-80b4-00c04fd430c8'],
  ['oid', '6ba7b812-9dad-11d1-80b4-00c04fd430c8'],
  ['x500', '6ba7b814-9dad-11d1-80b4-00c04fd430c8'],
]);

/** The 16 bytes of a UUID's text (hyphenated, braced, `urn:uuid:` or plain hex), or undefined. */
export function parseUuid(s: string): Buffer | undefined {
  let t = s;
  if (t.startsWith('urn:uuid:')) t = t.slice(9);
  else if (t.startsWith('{') && t.endsWith('}')) t = t.slice(1, -1);
  if (/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(t)) t = t.replaceAll('-', '');
  if (!/^[0-9a-fA-F]{32}$/.test(t)) return undefined;
  return Buffer.from(t, 'hex');
}

/** A version 5 UUID: SHA-1 of the namespace and the name. */
export function uuidV5(ns: Buffer, name: Buffer): string {
  const b = createHash('sha1').update(ns).update(name).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  return uuidText(b);
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** KSUIDs count seconds from 2014-05-13 16:53:20 UTC. */
const KSUID_EPOCH = 1_400_000_000;

/** A KSUID: 4 bytes of seconds since its epoch and 16 random bytes, as 27 base62 digits. */
export function ksuid(unixSec: number): string {
  const b = Buffer.concat([Buffer.alloc(4), randomBytes(16)]);
  b.writeUInt32BE((unixSec - KSUID_EPOCH) >>> 0, 0);
  let n = BigInt('0x' + b.toString('hex'));
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)]! + out;
    n /= 62n;
  }
  return out.padStart(27, '0');
}
