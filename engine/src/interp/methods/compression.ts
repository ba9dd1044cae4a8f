/**
 * `compress(algorithm, level)` and `decompress(algorithm)`, as Benthos' plugins (internal/impl/pure/
 * bloblang_encoding.go): gzip, pgzip (read and written as gzip: pgzip's output is concatenated gzip
 * members, which gunzip reads), zlib and flate (raw deflate), with node:zlib. Benthos' lz4, snappy,
 * zstd and bzip2 codecs live in @svc/plugins, which the engine cannot import: here those names are
 * refused when the mapping compiles, naming the algorithms there are. Compressed bytes may differ
 * from Go's (another deflate encoder); any gzip/zlib/flate reader reads both.
 *
 * Decompression is bounded: data from a message must not expand without limit (a zip bomb).
 */
import * as zlib from 'node:zlib';
import { QueryError, typeError } from '../errors.js';
import { asInt, asString, pluginMethod } from '../registry.js';

/** The most bytes `decompress` produces (Benthos has no bound). */
export const DECOMPRESS_LIMIT = 128 * 1024 * 1024;

const KNOWN = ['flate', 'gzip', 'pgzip', 'zlib'];
/** Benthos' other algorithms: refused here with a pointer, never silently. */
const ELSEWHERE = new Set(['lz4', 'snappy', 'zstd', 'bzip2']);

function algorithm(name: string): string {
  if (KNOWN.includes(name)) return name;
  if (ELSEWHERE.has(name)) throw new QueryError(`compression type ${name} is not available in mappings here (only ${KNOWN.join(', ')})`);
  throw new QueryError(`compression type not recognised: ${name}`);
}

function bytesOf(v: unknown): Buffer {
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  if (v instanceof Uint8Array) return Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  throw typeError(v, 'bytes');
}

/** klauspost's level checks and texts: gzip takes -3 (stateless) to 9, zlib -2 (Huffman only) to 9, flate -2 to 9. */
function zlibOptions(alg: string, level: number): zlib.ZlibOptions {
  const min = alg === 'gzip' || alg === 'pgzip' ? -3 : -2;
  if (level < min || level > 9) {
    throw new QueryError(
      alg === 'flate' ? `flate: invalid compression level ${level}: want value in range [-2, 9]` : `${alg}: invalid compression level: ${level}`,
    );
  }
  if (level === -2) return { strategy: zlib.constants.Z_HUFFMAN_ONLY };
  return { level: level < -1 ? -1 : level };
}

pluginMethod(
  'compress',
  [
    { name: 'algorithm', type: 'string' },
    { name: 'level', type: 'number', default: -1 },
  ],
  ([alg, lvl]) => {
    const name = algorithm(asString(alg));
    const level = asInt(lvl);
    return (v) => {
      const data = bytesOf(v);
      const opts = zlibOptions(name, level);
      if (name === 'zlib') return zlib.deflateSync(data, opts);
      if (name === 'flate') return zlib.deflateRawSync(data, opts);
      return zlib.gzipSync(data, opts);
    };
  },
);

/** Go's texts where they can be told from the input: a short or foreign header, a cut stream. */
function decompressError(alg: string, data: Buffer, err: unknown): QueryError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) return new QueryError(`decompressed data exceeds ${DECOMPRESS_LIMIT} bytes`);
  if (alg === 'gzip' || alg === 'pgzip') {
    if (data.length < 10) return new QueryError('unexpected EOF');
    if (data[0] !== 0x1f || data[1] !== 0x8b || data[2] !== 8) return new QueryError('gzip: invalid header');
  }
  if (alg === 'zlib') {
    if (data.length < 2) return new QueryError('unexpected EOF');
    if ((data[0]! & 0x0f) !== 8 || (data[0]! * 256 + data[1]!) % 31 !== 0) return new QueryError('zlib: invalid header');
  }
  if (code === 'Z_BUF_ERROR') return new QueryError('unexpected EOF');
  return new QueryError(`${alg === 'pgzip' ? 'gzip' : alg}: ${(err as Error).message}`);
}

pluginMethod('decompress', [{ name: 'algorithm', type: 'string' }], ([alg]) => {
  const name = algorithm(asString(alg));
  const opts = { maxOutputLength: DECOMPRESS_LIMIT };
  return (v) => {
    const data = bytesOf(v);
    try {
      if (name === 'zlib') return zlib.inflateSync(data, opts);
      if (name === 'flate') return zlib.inflateRawSync(data, opts);
      return zlib.gunzipSync(data, opts);
    } catch (err) {
      throw decompressError(name, data, err);
    }
  };
});
