/**
 * `decompress` on data from a message is bounded: a small gzip that expands past DECOMPRESS_LIMIT
 * (here 129 concatenated members of 1 MiB of zeros, about 130 KB) fails with an error instead of
 * filling memory. Benthos has no bound; the mapping's answers otherwise are in
 * benthos-differential.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { Message } from '../message/message.js';
import { compileMapping } from './index.js';
import { DECOMPRESS_LIMIT } from './methods/compression.js';

describe('decompress', () => {
  it('refuses to expand past its limit', () => {
    const member = gzipSync(Buffer.alloc(1024 * 1024));
    const count = DECOMPRESS_LIMIT / (1024 * 1024) + 1;
    const bomb = Buffer.concat(Array.from({ length: count }, () => member));
    assert.ok(bomb.length < 1024 * 1024);
    const msg = new Message(JSON.stringify({ b: bomb.toString('base64') }));
    const m = compileMapping('root = this.b.decode("base64").decompress("gzip").length()');
    assert.throws(() => m.exec(msg, { batch: [msg], index: 0 }), /decompressed data exceeds 134217728 bytes/);
    // one member fewer than the limit reads
    const ok = new Message(JSON.stringify({ b: Buffer.concat([member, member]).toString('base64') }));
    assert.equal(m.exec(ok, { batch: [ok], index: 0 }).root, 2 * 1024 * 1024);
  });
});
