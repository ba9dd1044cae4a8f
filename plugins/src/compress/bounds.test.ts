/**
 * decompress' `max_output_bytes`: a compression bomb is flagged with an error and passes on as it
 * was, for every algorithm, and decompression stops at the bound (the process' peak memory stays
 * far below what the bomb would have grown to). A message under the bound decompresses as before.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as zlib from 'node:zlib';
import { Message, registry, type Processor } from '@svc/engine';
import { buildComponent, lintValue } from '@svc/engine/testing';
import { lz4Compress, snappyBlockCompress, snappyCompress, zstdCompress } from '../kafka/compression.js';
import { ALGORITHMS, type Algorithm } from './algorithms.js';
import './processors.js';

const MiB = 1 << 20;

/** `mib` MiB of zeros through a zlib compressor, fed 1 MiB at a time so that the test never holds them. */
function zlibBomb(make: (o: zlib.ZlibOptions) => zlib.Gzip | zlib.Deflate | zlib.DeflateRaw, mib: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const z = make({ level: 9, strategy: zlib.constants.Z_RLE });
    const parts: Buffer[] = [];
    z.on('data', (d: Buffer) => parts.push(d));
    z.on('end', () => resolve(Buffer.concat(parts)));
    z.on('error', reject);
    const chunk = Buffer.alloc(MiB);
    let written = 0;
    const pump = (): void => {
      while (written < mib) {
        written++;
        if (!z.write(chunk)) return void z.once('drain', pump);
      }
      z.end();
    };
    pump();
  });
}

function bomb(alg: Algorithm, mib: number): Promise<Buffer> | Buffer {
  switch (alg) {
    case 'gzip':
    case 'pgzip':
      return zlibBomb(zlib.createGzip, mib);
    case 'zlib':
      return zlibBomb(zlib.createDeflate, mib);
    case 'flate':
      return zlibBomb(zlib.createDeflateRaw, mib);
    case 'snappy':
      return snappyBlockCompress(Buffer.alloc(mib * MiB));
    case 'lz4':
      return lz4Compress(Buffer.alloc(mib * MiB));
    case 'zstd':
      return zstdCompress(Buffer.alloc(mib * MiB));
  }
}

function decompressor(algorithm: Algorithm, max_output_bytes: number): Promise<Processor> {
  return buildComponent<Processor>('processor', 'decompress', { algorithm, max_output_bytes });
}

async function run(p: Processor, content: Buffer): Promise<Message> {
  const [batch] = await p.process([new Message(content)]);
  return batch![0]!;
}

describe('decompress: max_output_bytes', () => {
  it('gzip: a 256 MiB bomb under a 1 MiB bound is refused without the memory it would take', async () => {
    const compressed = await bomb('gzip', 256);
    const p = await decompressor('gzip', MiB);
    const peakBefore = process.resourceUsage().maxRSS * 1024;
    const m = await run(p, compressed);
    const peakRise = process.resourceUsage().maxRSS * 1024 - peakBefore;
    assert.match(String(m.error), /gzip: the decompressed output is larger than 1048576 bytes \(max_output_bytes\)/);
    assert.ok(m.content.equals(compressed), 'the message passes on as it was');
    assert.ok(peakRise < 64 * MiB, `the peak memory rose by ${peakRise} bytes`);
  });

  for (const alg of ALGORITHMS) {
    it(`${alg}: 8 MiB of zeros under a 1 MiB bound is flagged and left as it was; 1 MiB passes`, async () => {
      const p = await decompressor(alg, MiB);
      const big = await bomb(alg, 8);
      const m = await run(p, big);
      assert.match(String(m.error), new RegExp(`${alg}: the decompressed output is larger than 1048576 bytes`));
      assert.ok(m.content.equals(big));
      const ok = await run(p, await bomb(alg, 1));
      assert.equal(ok.error, undefined);
      assert.ok(ok.content.equals(Buffer.alloc(MiB)), 'exactly the bound is allowed');
    });
  }

  it('snappy (xerial framing) and lz4 (blocks stored raw) are bounded too', async () => {
    const snappy = await decompressor('snappy', MiB);
    const framed = snappyCompress(Buffer.alloc(2 * MiB));
    assert.match(String((await run(snappy, framed)).error), /snappy: the decompressed output is larger than 1048576 bytes/);
    const lz4 = await decompressor('lz4', MiB);
    const random = lz4Compress(Buffer.from(Array.from({ length: 2 * MiB }, (_, i) => (i * 2654435761) >>> 24)));
    assert.match(String((await run(lz4, random)).error), /lz4: the decompressed output is larger than 1048576 bytes/);
  });

  it('lints max_output_bytes: at least 1', () => {
    const conf = registry().get('processor', 'decompress')!.spec.config;
    assert.deepEqual(lintValue(conf, { algorithm: 'gzip' }), []);
    assert.ok(lintValue(conf, { algorithm: 'gzip', max_output_bytes: 0 }).some((e) => /max_output_bytes must be from 1/.test(e)));
  });
});
