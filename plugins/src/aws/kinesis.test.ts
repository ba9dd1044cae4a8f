/**
 * `aws_kinesis` input and output against moto's Kinesis and DynamoDB (real requests over
 * loopback): what the output puts (records, partition keys, a record too large failing alone),
 * what the input reads (metadata, every shard), and its at-least-once contract: the checkpoint in
 * the DynamoDB table never passes a record that was not acked, and a new client resumes after it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchError, Message, type Input, type Output, type Transaction } from '@svc/engine';
import { buildComponent, testContext } from '@svc/engine/testing';
import { checkpoints, fillStream, ids, readStream, tempStream, tempTableName } from './kinesis-test-support.js';
import { session } from './test-support.js';

function output(config: Record<string, unknown>): Promise<Output> {
  return buildComponent<Output>('output', 'aws_kinesis', { ...session, ...config }, testContext({ type: 'aws_kinesis', path: 'root.output' }));
}

function input(stream: string, table: string, config: Record<string, unknown> = {}): Promise<Input> {
  return buildComponent<Input>(
    'input',
    'aws_kinesis',
    { ...session, streams: [stream], dynamodb: { table, create: true }, commit_period: '100ms', rebalance_period: '500ms', ...config },
    testContext({ type: 'aws_kinesis', path: 'root.input' }),
  );
}

async function readN(i: Input, n: number): Promise<Transaction[]> {
  const out: Transaction[] = [];
  while (out.length < n) {
    const t = await i.read();
    assert.ok(typeof t === 'object' && 'batch' in t, 'a transaction');
    out.push(t);
  }
  return out;
}

describe('aws_kinesis output', () => {
  it('puts each message as a record with its interpolated partition key', async () => {
    const stream = await tempStream('out');
    const out = await output({ stream, partition_key: '${! json("id") }' });
    await out.connect!();
    await out.write([0, 1, 2].map((i) => new Message(`{"id":${i}}`)));
    await out.close!();
    const got = await readStream(stream);
    assert.deepEqual(ids(got), [0, 1, 2]);
    assert.deepEqual(
      got.map((r) => r.PartitionKey),
      ['0', '1', '2'],
    );
  });

  it('fails only the record Kinesis cannot take (over 1 MiB); the others are stored once', async () => {
    const stream = await tempStream('out-big');
    const out = await output({ stream, partition_key: 'p' });
    await out.connect!();
    const batch = [new Message('{"id":0}'), new Message(Buffer.alloc(1024 * 1024 + 1, 'x')), new Message('{"id":2}')];
    await assert.rejects(out.write(batch), (err: unknown) => err instanceof BatchError && err.indexes().join() === '1');
    await out.close!();
    assert.deepEqual(ids(await readStream(stream)), [0, 2]);
  });
});

describe('aws_kinesis input', () => {
  it('reads every shard with its metadata and stores each shard’s sequence once acked; a new client reads only what came after', async () => {
    const stream = await tempStream('in', 2);
    const table = tempTableName('ckpt');
    await fillStream(stream, 20);
    const first = await input(stream, table);
    await first.connect!();
    const ts = await readN(first, 20);
    const msgs = ts.map((t) => t.batch[0]!);
    assert.deepEqual(
      msgs.map((m) => (m.json() as { id: number }).id).sort((a, b) => a - b),
      [...Array(20).keys()],
    );
    const m = msgs[0]!;
    assert.equal(m.getMeta('kinesis_stream'), stream);
    assert.match(String(m.getMeta('kinesis_shard')), /^shardId-/);
    assert.match(String(m.getMeta('kinesis_partition_key')), /^k\d+$/);
    assert.match(String(m.getMeta('kinesis_sequence_number')), /^\d+$/);
    assert.equal(new Set(msgs.map((x) => x.getMeta('kinesis_shard'))).size, 2, 'both shards read');
    for (const t of ts) t.ack();
    await first.close!();
    // Given up on close: each shard's last sequence, no holder.
    const rows = await checkpoints(table);
    assert.equal(rows.length, 2);
    const all = await readStream(stream);
    for (const row of rows) {
      const last = all.filter((r) => r.shard === row.shard).at(-1)!;
      assert.deepEqual({ client: row.client, sequence: row.sequence }, { client: undefined, sequence: last.SequenceNumber });
    }

    await fillStream(stream, 5, (i) => `{"id":${100 + i}}`);
    const second = await input(stream, table);
    await second.connect!();
    const more = await readN(second, 5);
    assert.deepEqual(
      more.map((t) => (t.batch[0]!.json() as { id: number }).id).sort((a, b) => a - b),
      [100, 101, 102, 103, 104],
    );
    for (const t of more) t.ack();
    await second.close!();
  });

  it('never checkpoints past a record not yet acked: a new client reads again from it', async () => {
    const stream = await tempStream('in-gap');
    const table = tempTableName('ckpt-gap');
    await fillStream(stream, 6);
    const first = await input(stream, table);
    await first.connect!();
    const ts = await readN(first, 6);
    // Records 0 and 1 acked, 2 not, 3-5 acked: the checkpoint may only reach record 1.
    for (const [i, t] of ts.entries()) if (i !== 2) t.ack();
    await first.close!();
    const all = await readStream(stream);
    assert.equal((await checkpoints(table))[0]!.sequence, all[1]!.SequenceNumber);
    const second = await input(stream, table);
    await second.connect!();
    const again = await readN(second, 4);
    assert.deepEqual(
      again.map((t) => (t.batch[0]!.json() as { id: number }).id),
      [2, 3, 4, 5],
    );
    for (const t of again) t.ack();
    await second.close!();
  });

  it('refuses a config without a checkpoint table, and mixed balanced and explicit streams', async () => {
    await assert.rejects(input('s', ''), /dynamodb.table is required/);
    await assert.rejects(input('a', 't', { streams: ['a', 'b:0'] }), /cannot be mixed/);
  });
});
