/**
 * At least once, end to end, against the real nats-server: the `engine` CLI copies a key-value
 * bucket of 1,000 keys into another (`nats_kv` input → `nats_kv` output, key kept) and is SIGKILLed
 * mid-run, then restarted. The restarted watch reads every key again (a KV watch has no
 * acknowledgement, as in Benthos), and a put of the same key and value is idempotent: the sink must
 * end with exactly the 1,000 keys, each with its value: none lost, none extra.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineProcess, waitFor } from '@svc/engine/testing';
import { NATS_URL, keysOf, putAll, tempBucket } from './kv-test-support.js';

const TOTAL = 1000;

function pipeline(source: string, sink: string): EngineProcess {
  return new EngineProcess(`http: { enabled: false }
logger: { level: INFO, format: logfmt }
input:
  nats_kv:
    urls: [ ${NATS_URL} ]
    bucket: ${source}
pipeline:
  threads: 1
  processors:
    # Slow enough that the kill lands mid-run (about 5 s for the whole bucket).
    - sleep: { duration: 5ms }
output:
  nats_kv:
    urls: [ ${NATS_URL} ]
    bucket: ${sink}
    key: \${! meta("nats_kv_key") }
`);
}

describe('nats_kv reliability (1,000 keys, SIGKILL mid-run, restart)', () => {
  it('none lost, none extra, every value right', async (t) => {
    const source = await tempBucket('rel_src');
    const sink = await tempBucket('rel_sink');
    await putAll(source.kv, TOTAL);
    const stored = async () => (await sink.kv.status()).values;
    const first = pipeline(source.name, sink.name);
    let halfway: number;
    try {
      await waitFor('a fifth through', async () => ((await stored()) >= TOTAL / 5 ? true : undefined), 60_000, 20);
      await first.kill();
      halfway = (await keysOf(sink.kv)).length;
    } finally {
      if (!first.done) await first.kill();
    }
    assert.ok(halfway < TOTAL, `killed mid-run (${halfway} of ${TOTAL} through)`);
    const second = pipeline(source.name, sink.name);
    try {
      await waitFor('every key through after the restart', async () => ((await keysOf(sink.kv)).length >= TOTAL ? true : undefined), 120_000, 200);
    } finally {
      if (!second.done) assert.equal(await second.stop(), 0, second.output().slice(-2000));
    }
    const keys = (await keysOf(sink.kv)).sort();
    assert.equal(keys.length, TOTAL, `${keys.length} keys, not ${TOTAL}`);
    for (let i = 0; i < TOTAL; i++) {
      const e = await sink.kv.get(`k.${i}`);
      assert.equal(e?.string(), `{"id":${i}}`, `k.${i}`);
    }
    t.diagnostic(`killed with ${halfway} of ${TOTAL} keys through`);
  });
});
