/**
 * compress and decompress against Benthos v4.51.0: what one engine compresses the other
 * decompresses to the same text, for every algorithm both have (this Benthos build has no zstd:
 * svc's zstd is checked by a round trip of its own). Benthos is skipped, saying so, when it is
 * not built.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { benthosMissing, runPeer } from '../testing/benthos-peer.js';

const TEXT = 'hello, compressed world '.repeat(40) + '\u00e9\u4e2d';

const compressing = (alg: string) => `input:
  generate: { count: 1, interval: "", mapping: 'root = ${JSON.stringify(TEXT)}' }
pipeline:
  processors:
    - compress: { algorithm: ${alg} }
    - mapping: 'root = content().encode("hex")'
output:
  stdout: {}
`;

const decompressing = (alg: string, hex: string) => `input:
  generate: { count: 1, interval: "", mapping: 'root = "${hex}".decode("hex")' }
pipeline:
  processors:
    - decompress: { algorithm: ${alg} }
    - mapping: 'root = {"text": content().string(), "err": error()}'
output:
  stdout: {}
`;

async function run(which: 'svc' | 'benthos', yaml: string): Promise<string> {
  const r = await runPeer(which, yaml);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim();
}

describe('compress and decompress on svc and Benthos', () => {
  for (const alg of ['gzip', 'pgzip', 'zlib', 'flate', 'snappy', 'lz4']) {
    it(`${alg}: each engine decompresses what the other compressed`, async (t) => {
      const svcHex = await run('svc', compressing(alg));
      assert.deepEqual(JSON.parse(await run('svc', decompressing(alg, svcHex))), { text: TEXT, err: null });
      if (benthosMissing) return t.diagnostic(benthosMissing);
      const benthosHex = await run('benthos', compressing(alg));
      assert.deepEqual(JSON.parse(await run('benthos', decompressing(alg, svcHex))), { text: TEXT, err: null }, 'Benthos reads svc');
      assert.deepEqual(JSON.parse(await run('svc', decompressing(alg, benthosHex))), { text: TEXT, err: null }, 'svc reads Benthos');
    });
  }

  it('zstd: a round trip; a message that is not compressed is flagged and left as it was', async () => {
    const hex = await run('svc', compressing('zstd'));
    assert.deepEqual(JSON.parse(await run('svc', decompressing('zstd', hex))), { text: TEXT, err: null });
    const bad = JSON.parse(await run('svc', decompressing('gzip', Buffer.from('plain').toString('hex')))) as { text: string; err: string | null };
    assert.equal(bad.text, 'plain');
    assert.ok(bad.err, 'flagged');
  });
});
