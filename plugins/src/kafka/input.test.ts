/**
 * The `logbus` / `kafka` input against the real broker: group consumption with commits of acked
 * offsets only, restarts, start offsets, explicit partitions, lock-step order, per-partition
 * batching, metadata, headers, tombstones and the lag gauge.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { traceContextOf, type Input, type Transaction } from '@svc/engine';
import { waitFor } from '@svc/engine/testing';
import kafkajs from 'kafkajs';
import { registerCompressionCodecs } from './compression.js';
import { KafkaFixture, connectInput, readMessages, readWithin, sleep, texts, uid } from './input-test-support.js';
import { loadKafkajs } from './kafkajs.js';

const kafka = new KafkaFixture();
const open: Input[] = [];
before(() => kafka.start());
after(async () => {
  await Promise.all(open.map((i) => i.close?.()));
  await kafka.stop();
});

async function input(config: Record<string, unknown>) {
  const b = await connectInput(config);
  open.push(b.input);
  return b;
}

async function committedEquals(group: string, topic: string, want: Record<number, number>): Promise<void> {
  await waitFor(
    `committed offsets ${JSON.stringify(want)} of ${group}`,
    async () => {
      const c = await kafka.committed(group, topic);
      return Object.entries(want).every(([p, o]) => c.get(Number(p)) === o) ? true : undefined;
    },
    15_000,
    100,
  );
}

describe('kafka input (real broker)', { timeout: 120_000 }, () => {
  it('consumes a topic in a group and commits what was acked, nothing a nack holds back', async () => {
    const topic = await kafka.topic('in-group', 3);
    await kafka.produceIds(topic, 0, 30);
    const group = `g-${uid()}`;
    // checkpoint_limit 4: transactions of one message, so single messages can be nacked. The third
    // message of partition 0 is rejected: its offset and everything after stay uncommitted.
    const { input: i } = await input({ topics: [topic], consumer_group: group, checkpoint_limit: 4 });
    let seenOf0 = 0;
    let held: Transaction | undefined;
    const txs = await readMessages(i, 30, {
      ack: (tx) => {
        if (tx.batch[0]!.getMeta('logbus_partition') === 0 && ++seenOf0 === 3) {
          held = tx;
          tx.ack(new Error('output refused'));
        } else tx.ack();
      },
    });
    assert.deepEqual(texts(txs).sort(), Array.from({ length: 30 }, (_, n) => `id-${n}`).sort());
    for (const tx of txs) assert.equal(tx.batch.length, 1);
    assert.ok(held);
    const heldOffset = held.batch[0]!.getMeta('logbus_offset') as number;
    const ends = await kafka.ends(topic);
    await committedEquals(group, topic, { 0: heldOffset, 1: ends.get(1)!, 2: ends.get(2)! });
    await sleep(300);
    assert.equal((await kafka.committed(group, topic)).get(0), heldOffset, 'still held back');
    // The replay is delivered: the commit moves past it.
    held.ack();
    await committedEquals(group, topic, { 0: ends.get(0)! });
  });

  it('a restarted input resumes from the committed offset; close commits what was acked', async () => {
    const topic = await kafka.topic('resume', 1);
    await kafka.produceIds(topic, 0, 20);
    const group = `g-${uid()}`;
    const first = await input({ topics: [topic], consumer_group: group, checkpoint_limit: 1, commit_period: '1h' });
    assert.deepEqual(
      texts(await readMessages(first.input, 10)),
      Array.from({ length: 10 }, (_, n) => `id-${n}`),
    );
    await first.input.close!();
    assert.equal((await kafka.committed(group, topic)).get(0), 10, 'the final commit on close');
    const second = await input({ topics: [topic], consumer_group: group, checkpoint_limit: 1 });
    assert.deepEqual(
      texts(await readMessages(second.input, 10)),
      Array.from({ length: 10 }, (_, n) => `id-${n + 10}`),
    );
  });

  it('start_from_oldest: false reads only messages produced after the group started', async () => {
    const topic = await kafka.topic('newest', 2);
    await kafka.produceIds(topic, 0, 10);
    const { input: i } = await input({ topics: [topic], consumer_group: `g-${uid()}`, start_from_oldest: false });
    await kafka.produceIds(topic, 100, 5);
    const got = texts(await readMessages(i, 5)).sort();
    assert.deepEqual(got, ['id-100', 'id-101', 'id-102', 'id-103', 'id-104']);
    assert.equal(await readWithin(i, 500), undefined, 'nothing older follows');
  });

  it('explicit partitions and ranges: only those, with or without a group', async () => {
    const topic = await kafka.topic('explicit', 4);
    for (let p = 0; p < 4; p++) await kafka.produceIds(topic, p * 100, 5, p);
    const ranged = await input({ topics: [`${topic}:1-2`] });
    const got = await readMessages(ranged.input, 10);
    assert.deepEqual(new Set(got.flatMap((t) => t.batch.map((m) => m.getMeta('logbus_partition')))), new Set([1, 2]));
    assert.equal(await readWithin(ranged.input, 500), undefined);
    // With a group: offsets are committed for the listed partition only; a comma list works too.
    const group = `g-${uid()}`;
    const single = await input({ topics: [`${topic}:3,${topic}:0`], consumer_group: group });
    const both = await readMessages(single.input, 10);
    assert.deepEqual(new Set(both.flatMap((t) => t.batch.map((m) => m.getMeta('logbus_partition')))), new Set([0, 3]));
    await committedEquals(group, topic, { 0: 5, 3: 5 });
    const c = await kafka.committed(group, topic);
    assert.equal(c.get(1), -1);
    assert.equal(c.get(2), -1);
    // Without a group nothing is stored: a new input starts from the oldest again.
    await ranged.input.close!();
    const again = await input({ topics: [`${topic}:1`] });
    assert.deepEqual(texts(await readMessages(again.input, 5)), ['id-100', 'id-101', 'id-102', 'id-103', 'id-104']);
  });

  it('checkpoint_limit: 1 hands out the next message of a partition only once the previous is acked', async () => {
    const topic = await kafka.topic('lockstep', 1);
    await kafka.produceIds(topic, 0, 20);
    const { input: i } = await input({ topics: [topic], consumer_group: `g-${uid()}`, checkpoint_limit: 1 });
    const seen: string[] = [];
    for (let n = 0; n < 20; n++) {
      const tx = await readWithin(i, 10_000);
      assert.ok(tx, `message ${n}`);
      assert.equal(tx.batch.length, 1);
      seen.push(tx.batch[0]!.text());
      if (n === 5) {
        const pending = i.read();
        assert.equal(await Promise.race([pending, sleep(300).then(() => 'waiting')]), 'waiting', 'nothing while one is in flight');
        tx.ack();
        const next = await pending;
        assert.ok(next !== undefined && typeof next === 'object');
        seen.push(next.batch[0]!.text());
        next.ack();
        n++;
        continue;
      }
      tx.ack();
    }
    assert.deepEqual(
      seen,
      Array.from({ length: 20 }, (_, n) => `id-${n}`),
    );
  });

  it('batching is per partition: every batch comes from one partition; the period flushes a partial one', async () => {
    const topic = await kafka.topic('batching', 4);
    for (let p = 0; p < 4; p++) await kafka.produceIds(topic, p * 100, 12, p);
    const { input: i } = await input({ topics: [topic], consumer_group: `g-${uid()}`, batching: { count: 5, period: '300ms' } });
    const txs = await readMessages(i, 48);
    for (const tx of txs) {
      const parts = new Set(tx.batch.map((m) => m.getMeta('logbus_partition')));
      assert.equal(parts.size, 1, 'one partition per batch');
      const offsets = tx.batch.map((m) => m.getMeta('logbus_offset') as number);
      assert.deepEqual(
        offsets,
        offsets.map((_, k) => offsets[0]! + k),
        'consecutive offsets',
      );
    }
    const sizes = txs.map((t) => t.batch.length).sort();
    assert.deepEqual(sizes, [...Array(8).fill(5), ...Array(4).fill(2)].sort(), 'two full batches and one flushed by the period, per partition');
  });

  it('metadata, headers (last value or lists with multi_header), tombstones, lag and its gauge', async () => {
    const topic = await kafka.topic('meta', 1);
    await kafka.produce(topic, [
      { key: 'k1', value: 'v1', headers: { h: 'one', rep: ['a', 'b'] }, timestamp: '1700000000500' },
      { key: null, value: null },
      { key: 'k3', value: 'v3' },
      { key: 'k4', value: 'v4' },
    ]);
    const plain = await input({ topics: [topic], consumer_group: `g-${uid()}`, checkpoint_limit: 8 });
    const [tx] = await readMessages(plain.input, 2, { timeoutMs: 10_000 });
    const [m1, m2] = tx!.batch;
    assert.equal(m1!.text(), 'v1');
    assert.deepEqual(m1!.metaObject(), {
      h: 'one',
      rep: 'b',
      logbus_key: 'k1',
      logbus_topic: topic,
      logbus_partition: 0,
      logbus_offset: 0,
      logbus_lag: 3,
      logbus_timestamp_unix: 1700000000,
      logbus_tombstone_message: false,
      kafka_key: 'k1',
      kafka_topic: topic,
      kafka_partition: 0,
      kafka_offset: 0,
      kafka_lag: 3,
      kafka_timestamp_ms: 1700000000500,
      kafka_timestamp_unix: 1700000000,
      kafka_tombstone_message: false,
    });
    assert.equal(m2!.getMeta('logbus_tombstone_message'), true);
    assert.equal(m2!.content.length, 0);
    assert.equal(m2!.getMeta('logbus_key'), '');
    assert.equal(m2!.getMeta('logbus_lag'), 2);
    // checkpoint_limit 8: transactions of 2; the gauge holds the lag of the last one handed out.
    assert.equal(tx!.batch.length, 2);
    assert.equal(plain.gauges.get(`logbus_lag{${topic},0}`), 2);
    await readMessages(plain.input, 2);
    assert.equal(plain.gauges.get(`logbus_lag{${topic},0}`), 0);

    const multi = await input({ topics: [topic], consumer_group: `g-${uid()}`, multi_header: true });
    const [first] = (await readMessages(multi.input, 4)).flatMap((t) => t.batch);
    assert.deepEqual(first!.getMeta('rep'), ['a', 'b']);
    assert.deepEqual(first!.getMeta('h'), ['one']);
  });

  it('auto_replay_nacks: false drops a rejected message and commits past it', async () => {
    const topic = await kafka.topic('drop', 1);
    await kafka.produceIds(topic, 0, 3);
    const group = `g-${uid()}`;
    const b = await input({ topics: [topic], consumer_group: group, checkpoint_limit: 4, auto_replay_nacks: false });
    const txs = await readMessages(b.input, 3, { ack: false });
    for (const tx of txs) tx.ack(new Error('refused'));
    await committedEquals(group, topic, { 0: 3 });
    assert.ok(b.ctx.logger.lines.some((l) => l.level === 'WARN' && /Dropping rejected messages/.test(l.msg)));
  });

  it('extract_tracing_map: each message continues the trace its headers carry', async () => {
    const topic = await kafka.topic('tracing', 1);
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await kafka.produce(topic, [{ value: 'traced', headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } }, { value: 'plain' }]);
    const { input: i } = await input({ topics: [topic], consumer_group: `g-${uid()}`, extract_tracing_map: 'root = @' });
    const [traced, plain] = (await readMessages(i, 2)).flatMap((t) => t.batch);
    assert.equal(traceContextOf(traced!)?.traceId, traceId);
    assert.equal(traceContextOf(traced!)?.spanId, '00f067aa0ba902b7');
    assert.equal(traceContextOf(plain!), undefined);
  });

  it('fetch_buffer_cap: fetching waits while a partition has that many records unread', async () => {
    const topic = await kafka.topic('backpressure', 1);
    const value = 'x'.repeat(4096);
    for (let n = 0; n < 4; n++)
      await kafka.produce(
        topic,
        Array.from({ length: 500 }, () => ({ value })),
      );
    const { input: i } = await input({ topics: [topic], consumer_group: `g-${uid()}`, fetch_buffer_cap: 10, checkpoint_limit: 10 });
    // Nobody reads: what is buffered stops at the cap's floor of 2 MiB plus the fetch that passed it
    // (the records were written as 2 MB batches of 500, each fetched whole): 1000 of the 2000.
    const feeds = (i as unknown as { consumer: { active: Array<{ buffered: number }> } }).consumer.active;
    await waitFor('a first fetch', async () => (feeds[0] !== undefined && feeds[0].buffered > 0 ? true : undefined), 10_000, 20);
    await sleep(1500);
    assert.ok(feeds[0]!.buffered <= 1000, `${feeds[0]!.buffered} records buffered`);
    const got = await readMessages(i, 2000, { timeoutMs: 60_000 });
    assert.equal(
      got.reduce((n, t) => n + t.batch.length, 0),
      2000,
    );
  });

  it("fetch_buffer_cap: small records are fetched ahead up to two fetches' worth, so reading overlaps the next fetch", async () => {
    const topic = await kafka.topic('fetch-ahead', 1);
    const value = 'x'.repeat(1000);
    for (let n = 0; n < 8; n++)
      await kafka.produce(
        topic,
        Array.from({ length: 500 }, () => ({ value })),
      );
    const { input: i } = await input({ topics: [topic], consumer_group: `g-${uid()}` });
    // Nobody reads. One fetch brings about 1 MB (some 1000 records, far above the cap of 256); the
    // next one must not wait for the reader, or the reader waits for it.
    const feeds = (i as unknown as { consumer: { active: Array<{ buffered: number }> } }).consumer.active;
    await waitFor('two fetches buffered', async () => (feeds[0] !== undefined && feeds[0].buffered >= 1500 ? true : undefined), 15_000, 20);
    assert.ok(feeds[0]!.buffered < 4000, `${feeds[0]!.buffered} records buffered: the buffer is still bounded`);
    assert.equal(
      (await readMessages(i, 4000, { timeoutMs: 60_000 })).reduce((n, t) => n + t.batch.length, 0),
      4000,
    );
  });

  it('reads compressed record batches (gzip, snappy, lz4, zstd)', async () => {
    await loadKafkajs();
    registerCompressionCodecs();
    const topic = await kafka.topic('compressed', 1);
    const producer = kafka.kafka.producer();
    await producer.connect();
    const { GZIP, Snappy, LZ4, ZSTD } = kafkajs.CompressionTypes;
    let n = 0;
    for (const compression of [GZIP, Snappy, LZ4, ZSTD]) {
      await producer.send({ topic, compression, messages: Array.from({ length: 50 }, () => ({ value: `id-${n++}` })) });
    }
    await producer.disconnect();
    const { input: i } = await input({ topics: [topic], consumer_group: `g-${uid()}` });
    assert.deepEqual(
      texts(await readMessages(i, 200)),
      Array.from({ length: 200 }, (_, k) => `id-${k}`),
    );
  });
});
