/**
 * Encodings and hashes: `encode` / `decode` (base64, base64url, base64rawurl, hex, ...) and
 * `hash` (sha*, md5, hmac_*, crc32, xxhash64). Results match Bloblang byte for byte, including
 * xxhash64's decimal string form.
 */
import { createHash, createHmac } from 'node:crypto';
import { QueryError, typeError } from '../errors.js';
import { type Args, asString, defineMethod } from '../registry.js';
import { toBytes, toStr } from '../values.js';
import { xxhash64 } from '../xxhash64.js';

function input(v: unknown): Buffer {
  if (typeof v === 'string' || v instanceof Uint8Array) return toBytes(v);
  throw typeError(v, 'string', 'bytes');
}

const B64 = /^[A-Za-z0-9+/]*={0,2}$/;
const B64URL = /^[A-Za-z0-9_-]*={0,2}$/;

function checkB64(s: string, re: RegExp, padded: boolean): void {
  if (!re.test(s) || (padded && s.length % 4 !== 0) || (!padded && s.includes('='))) {
    throw new QueryError(`illegal base64 data at input byte ${Math.max(0, s.search(/[^A-Za-z0-9+/_=-]/))}`);
  }
}

const encoders: Record<string, (b: Buffer) => string> = {
  base64: (b) => b.toString('base64'),
  base64url: (b) => b.toString('base64url').padEnd(Math.ceil(b.length / 3) * 4, '='),
  base64rawurl: (b) => b.toString('base64url'),
  base64raw: (b) => b.toString('base64').replace(/=+$/, ''),
  hex: (b) => b.toString('hex'),
  ascii85: (b) => ascii85(b),
};

const decoders: Record<string, (s: string) => Buffer> = {
  base64: (s) => (checkB64(s, B64, true), Buffer.from(s, 'base64')),
  base64url: (s) => (checkB64(s, B64URL, true), Buffer.from(s, 'base64url')),
  base64rawurl: (s) => (checkB64(s, B64URL, false), Buffer.from(s, 'base64url')),
  base64raw: (s) => (checkB64(s, B64, false), Buffer.from(s, 'base64')),
  hex: (s) => {
    if (!/^(?:[0-9a-fA-F]{2})*$/.test(s)) throw new QueryError('encoding/hex: invalid byte or odd length hex string');
    return Buffer.from(s, 'hex');
  },
};

function ascii85(b: Buffer): string {
  let out = '';
  for (let i = 0; i < b.length; i += 4) {
    const chunk = b.subarray(i, i + 4);
    let n = 0;
    for (let k = 0; k < 4; k++) n = n * 256 + (chunk[k] ?? 0);
    if (n === 0 && chunk.length === 4) {
      out += 'z';
      continue;
    }
    let s = '';
    for (let k = 0; k < 5; k++) {
      s = String.fromCharCode(33 + (n % 85)) + s;
      n = Math.floor(n / 85);
    }
    out += s.slice(0, chunk.length + 1);
  }
  return out;
}

function schemeOf<T>(table: Record<string, T>, a: Args, what: string): T {
  const name = asString(a.const(0));
  const fn = table[name];
  if (fn === undefined) throw new Error(`unrecognised ${what} scheme: ${name} (supported: ${Object.keys(table).join(', ')})`);
  return fn;
}

defineMethod('encode', {
  params: [{ name: 'scheme' }],
  build(a) {
    if (!a.isConst(0)) throw new Error('the scheme must be a literal');
    const enc = schemeOf(encoders, a, 'encoding');
    return (v) => enc(input(v));
  },
});

defineMethod('decode', {
  params: [{ name: 'scheme' }],
  build(a) {
    if (!a.isConst(0)) throw new Error('the scheme must be a literal');
    const dec = schemeOf(decoders, a, 'decoding');
    return (v) => dec(toStr(input(v)));
  },
});

const CRC_TABLES = new Map<string, Uint32Array>();

function crcTable(poly: number): Uint32Array {
  const key = String(poly);
  let t = CRC_TABLES.get(key);
  if (t === undefined) {
    t = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? (poly ^ (c >>> 1)) >>> 0 : c >>> 1;
      t[n] = c >>> 0;
    }
    CRC_TABLES.set(key, t);
  }
  return t;
}

function crc32(b: Buffer, poly: number): Buffer {
  const t = crcTable(poly);
  let c = 0xffffffff;
  for (let i = 0; i < b.length; i++) c = (t[(c ^ b[i]!) & 0xff]! ^ (c >>> 8)) >>> 0;
  const out = Buffer.alloc(4);
  out.writeUInt32BE((c ^ 0xffffffff) >>> 0);
  return out;
}

const POLYS: Record<string, number> = { IEEE: 0xedb88320, Castagnoli: 0x82f63b78, Koopman: 0xeb31d82e };

/** `hash(algorithm, key?, polynomial?)`: the digest as bytes (encode it to print it). */
defineMethod('hash', {
  params: [{ name: 'algorithm' }, { name: 'key', default: '' }, { name: 'polynomial', default: 'IEEE' }],
  build(a) {
    if (!a.isConst(0) || !a.isConst(1) || !a.isConst(2)) throw new Error('the algorithm, key and polynomial must be literals');
    const algo = asString(a.const(0));
    const key = asString(a.const(1));
    const poly = POLYS[asString(a.const(2))];
    if (poly === undefined) throw new Error(`unsupported crc32 hash key ${asString(a.const(2))}`);
    let fn: (b: Buffer) => Buffer;
    switch (algo) {
      case 'md5':
      case 'sha1':
      case 'sha256':
      case 'sha512':
        fn = (b) => createHash(algo).update(b).digest();
        break;
      case 'hmac_sha1':
      case 'hmac_sha256':
      case 'hmac_sha512': {
        const h = algo.slice(5);
        fn = (b) => createHmac(h, key).update(b).digest();
        break;
      }
      case 'crc32':
        fn = (b) => crc32(b, poly);
        break;
      case 'xxhash64':
        fn = (b) => Buffer.from(xxhash64(b).toString(10));
        break;
      default:
        throw new Error(`unrecognised hash type: ${algo}`);
    }
    return (v) => fn(input(v));
  },
});
