/**
 * Order with threads, end to end on the real broker: `checkpoint_limit: 1` promises lock-step
 * delivery per partition (the next message of a partition is handed out only once the previous
 * one was acked), and that promise holds when the pipeline runs on two worker threads with every
 * batch sent to the pool (`dispatch: pool`), so processing could finish out of order. The file
 * output's lines of each partition must come out in offset order.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EngineProcess, until } from '@svc/engine/testing';
import { BROKER, KafkaFixture, uid } from './input-test-support.js';

const PER_PARTITION = 150;
const fixture = new KafkaFixture();
const dir = mkdtempSync(join(tmpdir(), 'svc-kafka-order-'));
before(() => fixture.start());
after(async () => {
  await fixture.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('kafka input: order per partition with threads (engine CLI, real broker)', { timeout: 120_000 }, () => {
  it('checkpoint_limit: 1 on two worker threads (dispatch: pool) delivers each partition in offset order', async () => {
    const topic = await fixture.topic('order-threads', 2);
    await fixture.produceIds(topic, 0, PER_PARTITION, 0);
    await fixture.produceIds(topic, PER_PARTITION, PER_PARTITION, 1);
    const out = join(dir, `${uid()}.txt`);
    // The mapping's cost varies per message (a longer loop for some ids), so that a worker finishing
    // early would overtake if anything but the input's lock-step kept the order.
    const engine = new EngineProcess(`http: { enabled: false }
logger: { level: INFO }
input:
  kafka:
    addresses: [ ${BROKER} ]
    topics: [ ${topic} ]
    consumer_group: g-${uid()}
    checkpoint_limit: 1
pipeline:
  threads: 2
  dispatch: pool
  processors:
    - mapping: |
        let n = content().string().trim_prefix("id-").number()
        root = if $n % 7 == 0 { range(0, 2000).map_each(i -> i * 2).sum().string().length().string() + ":" + content().string() } else { "0:" + content().string() }
output:
  file: { path: ${out}, codec: lines }
`);
    try {
      const lines = () => {
        try {
          return readFileSync(out, 'utf8')
            .split('\n')
            .filter((l) => l !== '');
        } catch {
          return [];
        }
      };
      await until('every message written', () => lines().length >= 2 * PER_PARTITION, 90_000, engine);
      assert.equal(await engine.stop(30_000), 0, engine.output());
      const ids = lines().map((l) => Number(l.split(':id-')[1]));
      assert.equal(ids.length, 2 * PER_PARTITION, 'each message once');
      for (const partition of [0, 1]) {
        const seen = ids.filter((id) => Math.floor(id / PER_PARTITION) === partition);
        const expected = Array.from({ length: PER_PARTITION }, (_, i) => partition * PER_PARTITION + i);
        assert.deepEqual(seen, expected, `partition ${partition} in offset order`);
      }
    } finally {
      if (!engine.done) await engine.kill();
    }
  });
});
