/**
 * Encodings and hashes: `encode` / `decode` (base64, base64url, base64rawurl, hex, ...) and
 * `hash` (sha*, md5, hmac_*, crc32, xxhash64). Results match Bloblang byte for byte, including
 * xxhash64's decimal string form.
 */
import { type CipherGCMTypes, createCipheriv, createDecipheriv, createHash, createHmac } from 'node:crypto';
import { ArgumentError, QueryError, typeError } from '../errors.js';
import { type Args, asString, defineMethod } from '../registry.js';
import { toBytes } from '../values.js';
import { xxhash64 } from '../xxhash64.js';
import { UUID_NAMESPACES, parseUuid, uuidV5 } from '../ids.js';

function input(v: unknown): Buffer {
  if (typeof v === 'string' || v instanceof Uint8Array) return toBytes(v);
  throw typeError(v, 'string', 'bytes');
}

const B64 = /^[A-Za-z0-9+/]*={0,2}$/;
const B64URL = /^[A-Za-z0-9_-]*={0,2}$/;

function checkB64(s: string, re: RegExp, padded: boolean): void {
  // Go's decoder skips line breaks anywhere in the input.
  if (s.includes('\n') || s.includes('\r')) s = s.replace(/[\r\n]/g, '');
  if (!re.test(s) || (padded && s.length % 4 !== 0) || (!padded && s.includes('='))) {
    throw new QueryError(`illegal base64 data at input byte ${Math.max(0, s.search(/[^A-Za-z0-9+/_=-]/))}`);
  }
  // Unpadded, a last group of one character holds no whole byte: Go refuses it.
  if (!padded && s.length % 4 === 1) throw new QueryError(`illegal base64 data at input byte ${s.length - 1}`);
}

/**
 * Go's ascii85 decoder (encoding/ascii85 through NewDecoder): whitespace and control characters
 * are skipped, `z` is four zero bytes, a last partial group is padded with `u`. A lone trailing
 * character is corrupt, reported (as Go's streaming decoder does) at its offset after the last
 * whole group.
 */
function ascii85Decode(s: string): Buffer {
  const src = Buffer.from(s, 'latin1');
  const out: number[] = [];
  let v = 0;
  let nb = 0;
  let groupEnd = 0;
  const put = (n: number, count: number): void => {
    for (let k = 0; k < count; k++) out.push((n >>> (24 - 8 * k)) & 0xff);
  };
  for (let i = 0; i < src.length; i++) {
    const b = src[i]!;
    if (b <= 0x20) continue;
    if (b === 0x7a && nb === 0) {
      nb = 5;
      v = 0;
    } else if (b >= 0x21 && b <= 0x75) {
      v = (Math.imul(v, 85) + (b - 0x21)) >>> 0;
      nb++;
    } else throw new QueryError(`illegal ascii85 data at input byte ${i}`);
    if (nb === 5) {
      put(v, 4);
      groupEnd = i + 1;
      nb = 0;
      v = 0;
    }
  }
  if (nb === 1) throw new QueryError(`illegal ascii85 data at input byte ${src.length - groupEnd}`);
  if (nb > 1) {
    for (let k = nb; k < 5; k++) v = (Math.imul(v, 85) + 84) >>> 0;
    put(v, nb - 1);
  }
  return Buffer.from(out);
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
  base64: (s) => (checkB64(s, B64, true), Buffer.from(s.replace(/[\r\n]/g, ''), 'base64')),
  base64url: (s) => (checkB64(s, B64URL, true), Buffer.from(s.replace(/[\r\n]/g, ''), 'base64url')),
  base64rawurl: (s) => (checkB64(s, B64URL, false), Buffer.from(s, 'base64url')),
  base64raw: (s) => (checkB64(s, B64, false), Buffer.from(s, 'base64')),
  ascii85: (s) => ascii85Decode(s),
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
  params: [{ name: 'scheme', type: 'string' }],
  build(a) {
    if (!a.isConst(0)) throw new Error('the scheme must be a literal');
    const enc = schemeOf(encoders, a, 'encoding');
    return (v) => enc(input(v));
  },
});

defineMethod('decode', {
  params: [{ name: 'scheme', type: 'string' }],
  build(a) {
    if (!a.isConst(0)) throw new Error('the scheme must be a literal');
    const dec = schemeOf(decoders, a, 'decoding');
    return (v) => dec(input(v).toString('latin1'));
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
  params: [
    { name: 'algorithm', type: 'string' },
    { name: 'key', type: 'string', default: '' },
    { name: 'polynomial', type: 'string', default: 'IEEE' },
  ],
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
        if (key === '') throw new Error(`hash algorithm ${algo} requires a key argument`);
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

/** The AES cipher of a key's size; Go's error for another size. */
function aesName(key: Buffer, mode: string): string {
  if (key.length !== 16 && key.length !== 24 && key.length !== 32) throw new ArgumentError(`crypto/aes: invalid key size ${key.length}`);
  return `aes-${key.length * 8}-${mode}`;
}

const AES_SCHEMES = new Set(['ctr', 'gcm', 'ofb', 'cbc']);

/** `encrypt_aes(scheme, key, iv)` / `decrypt_aes(...)`: Go's crypto/cipher modes; CBC without padding, GCM with its tag appended. */
function aesMethod(name: string, decrypt: boolean): void {
  defineMethod(name, {
    params: [{ name: 'scheme', type: 'string' }, { name: 'key' }, { name: 'iv' }],
    build(a) {
      const prepare = (args: unknown[]): ((b: Buffer) => Buffer) => {
        const scheme = asString(args[0]);
        const key = toBytes(args[1]);
        const cipherName = aesName(key, scheme);
        const iv = toBytes(args[2]);
        if (scheme !== 'gcm' && AES_SCHEMES.has(scheme) && iv.length !== 16) throw new ArgumentError('the key must match the initialisation vector size');
        if (!AES_SCHEMES.has(scheme)) throw new ArgumentError(`unrecognized ${decrypt ? 'decryption' : 'encryption'} type: ${scheme}`);
        return (b) => {
          if (scheme === 'cbc' && b.length % 16 !== 0) throw new QueryError(`${decrypt ? 'ciphertext' : 'plaintext'} is not a multiple of the block size`);
          if (scheme === 'gcm') {
            if (!decrypt) {
              const c = createCipheriv(cipherName as CipherGCMTypes, key, iv);
              return Buffer.concat([c.update(b), c.final(), c.getAuthTag()]);
            }
            try {
              const d = createDecipheriv(cipherName as CipherGCMTypes, key, iv);
              d.setAuthTag(b.subarray(b.length - 16));
              return Buffer.concat([d.update(b.subarray(0, b.length - 16)), d.final()]);
            } catch {
              throw new QueryError('gcm decrypting failed: cipher: message authentication failed');
            }
          }
          const c = decrypt ? createDecipheriv(cipherName, key, iv) : createCipheriv(cipherName, key, iv);
          c.setAutoPadding(false);
          return Buffer.concat([c.update(b), c.final()]);
        };
      };
      const run = (fn: (b: Buffer) => Buffer, v: unknown): Buffer => {
        if (typeof v !== 'string' && !(v instanceof Uint8Array)) throw typeError(v, 'string');
        return fn(toBytes(v));
      };
      if (a.allConst) {
        const fn = prepare(a.list.map((x) => x.value));
        return (v) => run(fn, v);
      }
      return (v, c, self) => run(prepare(a.all(c, self)), v);
    },
  });
}
aesMethod('encrypt_aes', false);
aesMethod('decrypt_aes', true);

/** `uuid_v5(ns?)`: the name-based UUID of the target in a namespace (`dns`, `url`, `oid`, `x500` or a UUID; nil by default). */
defineMethod('uuid_v5', {
  params: [{ name: 'ns', type: 'string', optional: true }],
  build(a) {
    return (v, c, self) => {
      if (v === null) return null;
      let ns: Buffer = Buffer.alloc(16);
      if (a.given(0)) {
        const name = asString(a.get(0, c, self));
        const known = UUID_NAMESPACES.get(name.toLowerCase() === name || name.toUpperCase() === name ? name.toLowerCase() : '');
        const parsed = parseUuid(known ?? name);
        if (parsed === undefined) throw new QueryError(`invalid ns uuid: ${JSON.stringify(name)}`);
        ns = parsed;
      }
      if (typeof v !== 'string' && !(v instanceof Uint8Array)) throw typeError(v, 'string');
      return uuidV5(ns, toBytes(v));
    };
  },
});
