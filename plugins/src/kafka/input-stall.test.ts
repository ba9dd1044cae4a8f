/**
 * A `kafka` input that stops receiving while its partitions hold records, against the real
 * broker: what made one see nothing (a rebalance reported with no new assignment after it), and
 * how a stall shows (the `logbus_stalled` gauge and the reason `/ready` gives) and clears.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Input } from '@svc/engine';
import { waitFor } from '@svc/engine/testing';
import type { Consumer } from 'kafkajs';
import { KafkaFixture, connectInput, readMessages, texts, uid } from './input-test-support.js';

const kafka = new KafkaFixture();
const open: Input[] = [];
before(() => kafka.start());
after(async () => {
  await Promise.all(open.map((i) => i.close?.()));
  await kafka.stop();
});

/** The input's kafkajs consumer and its rebalance report, reached as kafkajs' own events reach them. */
interface Inside {
  consumer: { consumer: Consumer; rebalanceDetected(): void };
  stalls: { looks: number };
}

async function start(config: Record<string, unknown>) {
  const b = await connectInput({ start_from_oldest: true, stall_check_period: '100ms', ...config });
  open.push(b.input);
  return { ...b, inside: b.input as unknown as Inside };
}

const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => `id-${from + i}`);

describe('kafka input stalls (real broker)', { timeout: 120_000 }, () => {
  it('keeps reading after a rebalance was reported that no new assignment followed', async () => {
    // A fetch handler of a generation kafkajs already left (a crash and restart) reports the
    // rebalance its late heartbeat ran into after the new join: nothing must wait for another one.
    const topic = await kafka.topic('stall-late-rebalance');
    const { input, inside } = await start({ topics: [topic], consumer_group: `g-${uid()}` });
    await kafka.produceIds(topic, 0, 10);
    assert.deepEqual(texts(await readMessages(input, 10)), ids(0, 10));
    inside.consumer.rebalanceDetected();
    await kafka.produceIds(topic, 10, 10);
    assert.deepEqual(texts(await readMessages(input, 10, { timeoutMs: 20_000 })), ids(10, 10));
    assert.equal(input.stalled!(), undefined);
  });

  it('says which partition is stalled while its fetches deliver nothing, and clears once records arrive', async () => {
    const topic = await kafka.topic('stall-paused', 2);
    const { input, inside, gauges } = await start({ topics: [topic], consumer_group: `g-${uid()}` });
    await kafka.produceIds(topic, 0, 4, 0);
    assert.deepEqual(texts(await readMessages(input, 4)), ids(0, 4));
    // A partition left paused fetches nothing, as one whose record batches decode to nothing.
    inside.consumer.consumer.pause([{ topic, partitions: [1] }]);
    await kafka.produceIds(topic, 4, 3, 1);
    const reason = await waitFor('the input to report partition 1 stalled', async () => input.stalled!(), 30_000, 50);
    assert.equal(reason, `partition ${topic}/1 has 3 records to read from offset 0 and its fetches delivered none`);
    assert.equal(gauges.get(`logbus_stalled{${topic},1}`), 1);
    assert.equal(gauges.get(`logbus_stalled{${topic},0}`), 0);

    inside.consumer.consumer.resume([{ topic, partitions: [1] }]);
    assert.deepEqual(texts(await readMessages(input, 3)), ids(4, 3));
    await waitFor('the stall to clear', async () => (input.stalled!() === undefined ? true : undefined), 30_000, 50);
    assert.equal(gauges.get(`logbus_stalled{${topic},1}`), 0);
  });

  it('a partition held back by a pipeline that does not read is not stalled', async () => {
    const topic = await kafka.topic('stall-backpressure');
    const { input, inside, gauges } = await start({ topics: [topic], consumer_group: `g-${uid()}` });
    await kafka.produceIds(topic, 0, 5);
    // The records are fetched and wait for the reader: back-pressure, which is no stall.
    const feed = (inside as unknown as { consumer: { active: Array<{ buffered: number }> } }).consumer.active[0]!;
    await waitFor('the records to be fetched', async () => (feed.buffered === 5 ? true : undefined), 30_000, 20);
    const from = inside.stalls.looks;
    await waitFor('three more checks', async () => (inside.stalls.looks >= from + 3 ? true : undefined), 30_000, 20);
    assert.equal(input.stalled!(), undefined);
    assert.equal(gauges.get(`logbus_stalled{${topic},0}`), 0);
    assert.deepEqual(texts(await readMessages(input, 5)), ids(0, 5));
  });
});
