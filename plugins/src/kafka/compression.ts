/**
 * The record-batch codecs kafkajs lacks (it has gzip only), registered with its
 * `CompressionCodecs` so that both the output (compress) and any consumer in the process
 * (decompress) can use them. Pure JavaScript / WASM, so nothing native to build:
 *
 * - snappy: written in the xerial framing the Java client writes (`SnappyOutputStream`, 32 KiB
 *   blocks); read both framed and raw, since librdkafka and sarama write raw snappy.
 * - lz4: the LZ4 frame format as the Java client writes it (independent 64 KiB blocks, no
 *   checksums); the broker refuses dependent blocks, which is why lz4js' own frame writer is not used.
 * - zstd: one zstd frame (level 3, Kafka's default); frames without a content size (the Java
 *   client streams them) are decoded into a growing buffer.
 */
import { createRequire } from 'node:module';
import type { CompressionTypes as CompressionType } from 'kafkajs';
import { kafkajs } from './kafkajs.js';

const require = createRequire(import.meta.url);

export const COMPRESSIONS = ['none', 'snappy', 'lz4', 'gzip', 'zstd'] as const;
export type CompressionName = (typeof COMPRESSIONS)[number];

/** The kafkajs compression type of a `compression` setting. */
export function compressionType(name: CompressionName): CompressionType {
  const { CompressionTypes } = kafkajs();
  switch (name) {
    case 'none':
      return CompressionTypes.None;
    case 'gzip':
      return CompressionTypes.GZIP;
    case 'snappy':
      return CompressionTypes.Snappy;
    case 'lz4':
      return CompressionTypes.LZ4;
    case 'zstd':
      return CompressionTypes.ZSTD;
  }
}

interface SnappyJs {
  compress(data: Buffer): Buffer;
  uncompress(data: Buffer): Buffer;
}
interface Lz4Js {
  compressBound(n: number): number;
  compressBlock(src: Uint8Array, dst: Uint8Array, sIndex: number, sLength: number, hashTable: Uint32Array): number;
  decompress(src: Uint8Array): Uint8Array;
}
type Xxh32 = (seed: number, src: Uint8Array, index: number, length: number) => number;
type ZstdWasm = typeof import('@bokuweb/zstd-wasm');

// Loaded on first use: a stream that never compresses never loads them.
let snappyJs: SnappyJs | undefined;
let lz4Js: { lz4: Lz4Js; xxh32: Xxh32 } | undefined;
let zstdWasm: Promise<ZstdWasm> | undefined;
const snappy = () => (snappyJs ??= require('snappyjs') as SnappyJs);
const lz4 = () => (lz4Js ??= { lz4: require('lz4js') as Lz4Js, xxh32: (require('lz4js/xxh32.js') as { hash: Xxh32 }).hash });
const zstd = () =>
  (zstdWasm ??= import('@bokuweb/zstd-wasm').then(async (z) => {
    await z.init();
    return z;
  }));

const asBuffer = (u: Uint8Array): Buffer => (Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength));

// --- snappy, xerial framing -------------------------------------------------------------------

const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]); // \x82SNAPPY\0
/** Magic, then version 1 and minimum compatible version 1 (big-endian int32s). */
const XERIAL_HEADER = Buffer.concat([XERIAL_MAGIC, Buffer.from([0, 0, 0, 1, 0, 0, 0, 1])]);
const XERIAL_BLOCK = 32 * 1024;

/** Raw (unframed) snappy, as Go's snappy.Encode writes it (Benthos' `compress` processor). */
export function snappyBlockCompress(data: Buffer): Buffer {
  return asBuffer(snappy().compress(data));
}

export function snappyCompress(data: Buffer): Buffer {
  const parts: Buffer[] = [XERIAL_HEADER];
  for (let off = 0; off < data.length; off += XERIAL_BLOCK) {
    const block = snappy().compress(data.subarray(off, off + XERIAL_BLOCK));
    const len = Buffer.allocUnsafe(4);
    len.writeUInt32BE(block.length);
    parts.push(len, block);
  }
  return Buffer.concat(parts);
}

export function snappyDecompress(data: Buffer): Buffer {
  if (data.length < XERIAL_HEADER.length || !data.subarray(0, XERIAL_MAGIC.length).equals(XERIAL_MAGIC)) return snappy().uncompress(data);
  const parts: Buffer[] = [];
  let off = XERIAL_HEADER.length;
  while (off < data.length) {
    if (off + 4 > data.length) throw new Error('snappy: truncated xerial block header');
    const len = data.readUInt32BE(off);
    off += 4;
    if (off + len > data.length) throw new Error('snappy: truncated xerial block');
    parts.push(snappy().uncompress(data.subarray(off, off + len)));
    off += len;
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

// --- lz4, frame format --------------------------------------------------------------------------

const LZ4_MAGIC = 0x184d2204;
const LZ4_BLOCK = 64 * 1024;
/** FLG: version 01, independent blocks; no block or content checksum, no content size. */
const LZ4_FLG = 0x60;
/** BD: 64 KiB maximum block size. */
const LZ4_BD = 4 << 4;
const LZ4_UNCOMPRESSED = 0x80000000;

export function lz4Compress(data: Buffer): Buffer {
  const { lz4: codec, xxh32 } = lz4();
  const blocks = Math.ceil(data.length / LZ4_BLOCK);
  // Worst case: every block stored raw behind its 4-byte size; header 7 bytes, end mark 4.
  const out = Buffer.allocUnsafe(7 + blocks * (4 + LZ4_BLOCK) + 4);
  out.writeUInt32LE(LZ4_MAGIC, 0);
  out[4] = LZ4_FLG;
  out[5] = LZ4_BD;
  out[6] = (xxh32(0, out, 4, 2) >>> 8) & 0xff;
  let pos = 7;
  const scratch = new Uint8Array(codec.compressBound(LZ4_BLOCK));
  const table = new Uint32Array(1 << 16);
  for (let off = 0; off < data.length; off += LZ4_BLOCK) {
    const block = data.subarray(off, off + LZ4_BLOCK);
    table.fill(0); // a fresh table per block keeps blocks independent
    const n = codec.compressBlock(block, scratch, 0, block.length, table);
    if (n === 0 || n >= block.length) {
      out.writeUInt32LE((LZ4_UNCOMPRESSED | block.length) >>> 0, pos);
      pos += 4;
      pos += block.copy(out, pos);
    } else {
      out.writeUInt32LE(n, pos);
      pos += 4;
      out.set(scratch.subarray(0, n), pos);
      pos += n;
    }
  }
  out.writeUInt32LE(0, pos);
  return out.subarray(0, pos + 4);
}

export function lz4Decompress(data: Buffer): Buffer {
  return asBuffer(lz4().lz4.decompress(data));
}

// --- zstd ---------------------------------------------------------------------------------------

/** Kafka's default zstd level. */
const ZSTD_LEVEL = 3;
/** The largest buffer tried for a frame that does not say its size. */
const ZSTD_MAX_UNKNOWN = 256 << 20;
const ZSTD_MAGIC = 0xfd2fb528;

/** Whether the (first) frame header carries the content size (Frame_Content_Size or Single_Segment). */
function zstdDeclaresSize(data: Buffer): boolean {
  if (data.length < 5 || data.readUInt32LE(0) !== ZSTD_MAGIC) return true; // not ours to guess: let zstd say what is wrong
  const descriptor = data[4]!;
  return descriptor >> 6 !== 0 || (descriptor & 0x20) !== 0;
}

export async function zstdCompress(data: Buffer): Promise<Buffer> {
  return asBuffer((await zstd()).compress(data, ZSTD_LEVEL));
}

export async function zstdDecompress(data: Buffer): Promise<Buffer> {
  const z = await zstd();
  if (zstdDeclaresSize(data)) return asBuffer(z.decompress(data));
  // No content size (the Java client streams its frames): retry into a growing buffer.
  let last: unknown;
  for (let size = Math.max(1 << 20, data.length * 8); size <= ZSTD_MAX_UNKNOWN; size *= 4) {
    try {
      return asBuffer(z.decompress(data, { defaultHeapSize: size }));
    } catch (err) {
      last = err;
    }
  }
  throw new Error(`zstd: cannot decompress a frame without a content size into ${ZSTD_MAX_UNKNOWN} bytes: ${String(last)}`);
}

// --- registration -------------------------------------------------------------------------------

let registered = false;

/** Registers snappy, lz4 and zstd with kafkajs (once per process; gzip is built in). */
export function registerCompressionCodecs(): void {
  if (registered) return;
  registered = true;
  const { CompressionCodecs, CompressionTypes } = kafkajs();
  const codecs = CompressionCodecs as Record<
    number,
    () => { compress(encoder: { buffer: Buffer }): Promise<Buffer>; decompress(data: Buffer): Promise<Buffer> }
  >;
  codecs[CompressionTypes.Snappy] = () => ({
    compress: async (encoder) => snappyCompress(encoder.buffer),
    decompress: async (data) => snappyDecompress(data),
  });
  codecs[CompressionTypes.LZ4] = () => ({
    compress: async (encoder) => lz4Compress(encoder.buffer),
    decompress: async (data) => lz4Decompress(data),
  });
  codecs[CompressionTypes.ZSTD] = () => ({
    compress: (encoder) => zstdCompress(encoder.buffer),
    decompress: (data) => zstdDecompress(data),
  });
}
