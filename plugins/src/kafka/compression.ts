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
 *
 * Each decompressor takes an optional bound on its output (the `decompress` processor's
 * `max_output_bytes`): it refuses, with an OutputTooLarge, as soon as the output would pass it,
 * having held no more than the bound (and one block) in memory.
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
  decompressBound(src: Uint8Array): number;
  /** Writes past the end of `dst` are dropped; the returned index still counts them. */
  decompressBlock(src: Uint8Array, dst: Uint8Array, sIndex: number, sLength: number, dIndex: number): number;
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

/** A decompressed output would be larger than the bound it was given. */
export class OutputTooLarge extends RangeError {
  constructor(
    readonly algorithm: string,
    readonly limit: number,
  ) {
    super(`${algorithm}: the decompressed output is larger than ${limit} bytes (max_output_bytes)`);
    this.name = 'OutputTooLarge';
  }
}

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

/** The decoded length a raw snappy block declares (its leading varint); snappyjs allocates that much. */
function snappyDeclaredLength(block: Buffer): number {
  let n = 0;
  for (let i = 0; i < 5 && i < block.length; i++) {
    n += (block[i]! & 0x7f) * 2 ** (7 * i);
    if (block[i]! < 0x80) return n;
  }
  throw new Error('snappy: invalid block length');
}

/** One raw block, refused before it is decoded when it declares more than `room` bytes. */
function snappyBlock(block: Buffer, room: number, limit: number): Buffer {
  if (snappyDeclaredLength(block) > room) throw new OutputTooLarge('snappy', limit);
  return snappy().uncompress(block);
}

export function snappyDecompress(data: Buffer, limit = Infinity): Buffer {
  if (data.length < XERIAL_HEADER.length || !data.subarray(0, XERIAL_MAGIC.length).equals(XERIAL_MAGIC)) return snappyBlock(data, limit, limit);
  const parts: Buffer[] = [];
  let total = 0;
  let off = XERIAL_HEADER.length;
  while (off < data.length) {
    if (off + 4 > data.length) throw new Error('snappy: truncated xerial block header');
    const len = data.readUInt32BE(off);
    off += 4;
    if (off + len > data.length) throw new Error('snappy: truncated xerial block');
    const part = snappyBlock(data.subarray(off, off + len), limit - total, limit);
    total += part.length;
    parts.push(part);
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

/** FLG bits: block checksums follow each block; the content size follows BD. */
const LZ4_BLOCK_SUM = 0x10;
const LZ4_CONTENT_SIZE = 0x08;

/**
 * One LZ4 frame, as lz4js' decompressFrame reads it (checksums skipped), into one buffer of at
 * most `limit` bytes (blocks may refer to earlier ones), stopping at the first block that passes it.
 */
export function lz4Decompress(data: Buffer, limit = Infinity): Buffer {
  const codec = lz4().lz4;
  const bound = codec.decompressBound(data); // checks the magic, version and block size too
  const dst = Buffer.alloc(Math.min(bound, limit));
  const overflow = () => (bound > limit ? new OutputTooLarge('lz4', limit) : new Error('lz4: a block is larger than its frame declares'));
  const flg = data[4]!;
  let s = 7 + (flg & LZ4_CONTENT_SIZE ? 8 : 0); // magic, FLG, BD, header checksum
  let d = 0;
  for (;;) {
    if (s + 4 > data.length) throw new Error('lz4: unexpected end of frame');
    const word = data.readUInt32LE(s);
    s += 4;
    if (word === 0) break;
    if (flg & LZ4_BLOCK_SUM) s += 4;
    const size = (word & ~LZ4_UNCOMPRESSED) >>> 0;
    if (s + size > data.length) throw new Error('lz4: unexpected end of frame');
    if (word & LZ4_UNCOMPRESSED) {
      if (d + size > dst.length) throw overflow();
      d += data.copy(dst, d, s, s + size);
    } else {
      d = codec.decompressBlock(data, dst, s, size, d);
      if (d > dst.length) throw overflow();
    }
    s += size;
  }
  return d === dst.length ? dst : dst.subarray(0, d);
}

// --- zstd ---------------------------------------------------------------------------------------

/** Kafka's default zstd level. */
const ZSTD_LEVEL = 3;
/** The largest buffer tried for a frame that does not say its size. */
const ZSTD_MAX_UNKNOWN = 256 << 20;
const ZSTD_MAGIC = 0xfd2fb528;

/** Bytes of Dictionary_ID by Dictionary_ID_flag, and of Frame_Content_Size by its flag. */
const ZSTD_DICT_ID_BYTES = [0, 1, 2, 4];
const ZSTD_FCS_BYTES = [0, 2, 4, 8];

/**
 * The content size the (first) frame header declares; undefined when it declares none, null when
 * it is not a zstd frame header (not ours to guess: zstd says what is wrong).
 */
function zstdDeclaredSize(data: Buffer): number | undefined | null {
  if (data.length < 5 || data.readUInt32LE(0) !== ZSTD_MAGIC) return null;
  const descriptor = data[4]!;
  const single = (descriptor & 0x20) !== 0;
  const fcsFlag = descriptor >> 6;
  const at = 5 + (single ? 0 : 1) + ZSTD_DICT_ID_BYTES[descriptor & 3]!;
  const bytes = fcsFlag === 0 ? (single ? 1 : 0) : ZSTD_FCS_BYTES[fcsFlag]!;
  if (bytes === 0) return undefined;
  if (at + bytes > data.length) return null;
  if (bytes === 1) return data[at]!;
  if (bytes === 2) return data.readUInt16LE(at) + 256;
  if (bytes === 4) return data.readUInt32LE(at);
  return Number(data.readBigUInt64LE(at));
}

export async function zstdCompress(data: Buffer): Promise<Buffer> {
  return asBuffer((await zstd()).compress(data, ZSTD_LEVEL));
}

export async function zstdDecompress(data: Buffer, limit = Infinity): Promise<Buffer> {
  const declared = zstdDeclaredSize(data);
  // Refused before zstd allocates it: WebAssembly memory, once grown, never shrinks.
  if (declared != null && declared > limit) throw new OutputTooLarge('zstd', limit);
  const z = await zstd();
  if (declared !== undefined) return asBuffer(z.decompress(data));
  // No content size (the Java client streams its frames): retry into a growing buffer.
  const most = Math.min(ZSTD_MAX_UNKNOWN, limit);
  let last: unknown;
  for (let size = Math.min(Math.max(1 << 20, data.length * 8), most); ; size = Math.min(size * 4, most)) {
    try {
      return asBuffer(z.decompress(data, { defaultHeapSize: size }));
    } catch (err) {
      last = err;
    }
    if (size === most) break;
  }
  const what = most === limit ? `${most} bytes (max_output_bytes)` : `${most} bytes`;
  throw new Error(`zstd: cannot decompress a frame without a content size into ${what}: ${String(last)}`);
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
