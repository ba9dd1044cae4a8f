import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import kafkajs from 'kafkajs';
import { lz4Compress, lz4Decompress, registerCompressionCodecs, snappyCompress, snappyDecompress, zstdCompress, zstdDecompress } from './compression.js';
import { loadKafkajs } from './kafkajs.js';

const require = createRequire(import.meta.url);

const samples = (): Buffer[] => [
  Buffer.from('x'),
  Buffer.from('{"id":1,"name":"a record"}'.repeat(3000)), // compressible, several blocks
  randomBytes(150_000), // incompressible: stored blocks
  Buffer.concat([randomBytes(70_000), Buffer.alloc(200_000, 7), randomBytes(3)]),
];

describe('compression: snappy (xerial framing)', () => {
  it('writes the xerial header and 32 KiB blocks, and reads them back', () => {
    for (const s of samples()) {
      const c = snappyCompress(s);
      assert.deepEqual([...c.subarray(0, 16)], [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0, 0, 0, 0, 1, 0, 0, 0, 1]);
      assert.ok(snappyDecompress(c).equals(s));
    }
  });

  it('reads raw snappy too (librdkafka and sarama write it unframed)', () => {
    const raw = require('snappyjs') as { compress(b: Buffer): Buffer };
    for (const s of samples()) assert.ok(snappyDecompress(raw.compress(s)).equals(s));
  });
});

describe('compression: lz4 (frame format)', () => {
  it('writes a frame the Java client accepts: version 1, independent blocks, 64 KiB, header checksum', () => {
    const xxh32 = (require('lz4js/xxh32.js') as { hash(seed: number, b: Uint8Array, i: number, n: number): number }).hash;
    for (const s of samples()) {
      const c = lz4Compress(s);
      assert.equal(c.readUInt32LE(0), 0x184d2204);
      assert.equal(c[4], 0x60);
      assert.equal(c[5], 0x40);
      assert.equal(c[6], (xxh32(0, c, 4, 2) >>> 8) & 0xff);
      assert.equal(c.readUInt32LE(c.length - 4), 0, 'end mark');
      assert.ok(lz4Decompress(c).equals(s));
    }
  });

  it("reads lz4js' own frames (4 MiB dependent blocks)", () => {
    const lz4js = require('lz4js') as { compress(b: Uint8Array): Uint8Array };
    for (const s of samples()) assert.ok(lz4Decompress(Buffer.from(lz4js.compress(s))).equals(s));
  });
});

/** The same frame without its content size, as a streaming compressor (the Java client's) writes it. */
function withoutContentSize(frame: Buffer): Buffer {
  const fhd = frame[4]!;
  const single = (fhd & 0x20) !== 0;
  const fcsBytes = single ? [1, 2, 4, 8][fhd >> 6]! : [0, 2, 4, 8][fhd >> 6]!;
  const dictBytes = [0, 1, 2, 4][fhd & 3]!;
  // Not single-segment: a window descriptor is needed; 8 MiB is larger than any test sample.
  const window = single ? Buffer.from([(23 - 10) << 3]) : frame.subarray(5, 6);
  const rest = 5 + (single ? 0 : 1);
  return Buffer.concat([
    frame.subarray(0, 4),
    Buffer.from([fhd & 0x1f]),
    window,
    frame.subarray(rest, rest + dictBytes),
    frame.subarray(rest + dictBytes + fcsBytes),
  ]);
}

describe('compression: zstd', () => {
  it('round-trips, also frames that do not say their size and are larger than the default buffer', async () => {
    for (const s of samples()) assert.ok((await zstdDecompress(await zstdCompress(s))).equals(s));
    const big = Buffer.alloc(3_000_000, 'abcdefgh');
    const stream = withoutContentSize(await zstdCompress(big));
    assert.equal(stream[4]! & 0xe0, 0, 'no content size, not single-segment');
    assert.ok((await zstdDecompress(stream)).equals(big));
  });
});

describe('compression: registration with kafkajs', () => {
  it('makes snappy, lz4 and zstd available to every kafkajs client in the process', async () => {
    await loadKafkajs();
    registerCompressionCodecs();
    const { CompressionCodecs, CompressionTypes } = kafkajs;
    const data = Buffer.from('hello kafka '.repeat(100));
    for (const type of [CompressionTypes.Snappy, CompressionTypes.LZ4, CompressionTypes.ZSTD]) {
      const codec = (CompressionCodecs as Record<number, () => { compress(e: { buffer: Buffer }): Promise<Buffer>; decompress(b: Buffer): Promise<Buffer> }>)[
        type
      ]!();
      const back = await codec.decompress(await codec.compress({ buffer: data }));
      assert.ok(Buffer.isBuffer(back) && back.equals(data), `codec ${type}`);
    }
  });
});
