/**
 * The algorithms of Benthos' `compress` and `decompress` processors, byte-compatible with the Go
 * ones: gzip and pgzip (one gzip stream; pgzip's blocks read as concatenated members), zlib,
 * flate (raw deflate), snappy (the raw block format of Go's snappy.Encode; framed input is read
 * too), lz4 (the LZ4 frame format) and zstd (one frame). The codecs are the Kafka family's.
 */
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import { OutputTooLarge, lz4Compress, lz4Decompress, snappyBlockCompress, snappyDecompress, zstdCompress, zstdDecompress } from '../kafka/compression.js';

export const ALGORITHMS = ['flate', 'gzip', 'lz4', 'pgzip', 'snappy', 'zlib', 'zstd'] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

type Codec = (data: Buffer) => Buffer | Promise<Buffer>;

const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);
const deflate = promisify(zlib.deflate);
const inflate = promisify(zlib.inflate);
const deflateRaw = promisify(zlib.deflateRaw);
const inflateRaw = promisify(zlib.inflateRaw);

/** The compressor of `alg` at `level` (-1: the algorithm's default; ignored by snappy, lz4 and zstd). */
export function compressorOf(alg: Algorithm, level: number): Codec {
  const opts = { level };
  switch (alg) {
    case 'gzip':
    case 'pgzip':
      return (d) => gzip(d, opts);
    case 'zlib':
      return (d) => deflate(d, opts);
    case 'flate':
      return (d) => deflateRaw(d, opts);
    case 'snappy':
      return snappyBlockCompress;
    case 'lz4':
      return lz4Compress;
    case 'zstd':
      return zstdCompress;
  }
}

/**
 * zlib's inflate stops as soon as its output passes `maxOutputLength`, so a bomb never grows past
 * the bound; its RangeError becomes an OutputTooLarge.
 */
function inflating(alg: Algorithm, inflater: (d: Buffer, o: zlib.ZlibOptions) => Promise<Buffer>, limit: number): Codec {
  return (d) =>
    inflater(d, { maxOutputLength: limit }).catch((err: unknown) => {
      throw (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? new OutputTooLarge(alg, limit) : err;
    });
}

/** The decompressor of `alg`, refusing (OutputTooLarge) an output larger than `limit` bytes. */
export function decompressorOf(alg: Algorithm, limit: number): Codec {
  switch (alg) {
    case 'gzip':
    case 'pgzip':
      return inflating(alg, gunzip, limit);
    case 'zlib':
      return inflating(alg, inflate, limit);
    case 'flate':
      return inflating(alg, inflateRaw, limit);
    case 'snappy':
      return (d) => snappyDecompress(d, limit);
    case 'lz4':
      return (d) => lz4Decompress(d, limit);
    case 'zstd':
      return (d) => zstdDecompress(d, limit);
  }
}
