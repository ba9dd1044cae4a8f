/**
 * `aws_sqs` input and output against moto's SQS (real requests over loopback): what the output
 * sends (bodies, metadata as attributes, FIFO group and deduplication ids, per-message queue URLs,
 * refused messages), what the input reads (metadata), and its at-least-once contract: a message
 * is deleted only once acked, a nacked one comes back at once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchError, Message, type Input, type Output, type Transaction } from '@svc/engine';
import { buildComponent, testContext, waitFor } from '@svc/engine/testing';
import { depth, fill, session, takeAll, tempQueue } from './test-support.js';

function output(config: Record<string, unknown>): Promise<Output> {
  return buildComponent<Output>('output', 'aws_sqs', { ...session, ...config }, testContext({ type: 'aws_sqs', path: 'root.output' }));
}

function input(config: Record<string, unknown>): Promise<Input> {
  return buildComponent<Input>('input', 'aws_sqs', { ...session, ...config }, testContext({ type: 'aws_sqs', path: 'root.input' }));
}

async function readOne(i: Input): Promise<Transaction> {
  const t = await i.read();
  assert.ok(typeof t === 'object' && 'batch' in t, 'a transaction');
  return t;
}

describe('aws_sqs output', () => {
  it('sends each message with its metadata as String attributes, except excluded prefixes', async () => {
    const q = await tempQueue('out-attrs');
    const out = await output({ url: q, metadata: { exclude_prefixes: ['kafka_'] } });
    await out.connect!();
    const batch = Array.from({ length: 13 }, (_, i) => new Message(`{"id":${i}}`, { region: 'eu', kafka_key: 'k', 'bad key!': 'x' }));
    await out.write(batch);
    await out.close!();
    const got = await takeAll(q);
    assert.deepEqual(
      got.map((m) => JSON.parse(m.Body!).id).sort((a, b) => a - b),
      [...Array(13).keys()],
    );
    for (const m of got) assert.deepEqual(m.MessageAttributes, { region: { DataType: 'String', StringValue: 'eu' } });
  });

  it('interpolates the queue URL per message and sets FIFO group and deduplication ids', async () => {
    const a = await tempQueue('out-a', true);
    const b = await tempQueue('out-b', true);
    const out = await output({
      url: '${! meta("to") }',
      message_group_id: '${! json("g") }',
      message_deduplication_id: '${! json("id") }',
    });
    await out.connect!();
    const batch = [0, 1, 2, 3].map((i) => new Message(`{"id":${i},"g":"g${i % 2}"}`, { to: i < 2 ? a : b }));
    await out.write(batch);
    // The same ids again: a FIFO queue drops them as duplicates.
    await out.write(batch.map((m) => m.copy()));
    await out.close!();
    const inA = await takeAll(a);
    const inB = await takeAll(b);
    assert.deepEqual(inA.map((m) => JSON.parse(m.Body!).id).sort(), [0, 1]);
    assert.deepEqual(inB.map((m) => JSON.parse(m.Body!).id).sort(), [2, 3]);
    assert.equal(inA[0]!.Attributes?.MessageGroupId?.startsWith('g'), true);
  });

  it('fails only the messages that could not be sent (a BatchError naming them)', async () => {
    const q = await tempQueue('out-partial');
    const out = await output({ url: q, delay_seconds: '${! meta("delay") }' });
    await out.connect!();
    const batch = [new Message('ok', { delay: '0' }), new Message('bad', { delay: 'soon' }), new Message('also ok', { delay: '1' })];
    const err = await out.write(batch).then(
      () => undefined,
      (e: unknown) => e,
    );
    await out.close!();
    assert.ok(err instanceof BatchError, String(err));
    assert.equal(err.failedCount, 1);
    assert.match(String(err.errorAt(1)), /delay_seconds must be a whole number/);
    await waitFor('both good messages', async () => ((await depth(q)).visible >= 1 ? true : undefined));
  });
});

describe('aws_sqs input', () => {
  it('reads messages with their metadata and deletes them only once acked', async () => {
    const q = await tempQueue('in-ack');
    await fill(q, 3);
    const i = await input({ url: q, wait_time_seconds: 1 });
    await i.connect!();
    const txs = [await readOne(i), await readOne(i), await readOne(i)];
    const m = txs[0]!.batch[0]!;
    assert.match(m.getMetaString('sqs_message_id'), /.+/);
    assert.match(m.getMetaString('sqs_receipt_handle'), /.+/);
    assert.equal(m.getMetaString('sqs_approximate_receive_count'), '1');
    assert.deepEqual((await depth(q)).inFlight, 3);
    for (const t of txs) await t.ack();
    await waitFor('the acked messages deleted', async () => {
      const d = await depth(q);
      return d.inFlight === 0 && d.visible === 0 ? true : undefined;
    });
    await i.close!();
  });

  it('a nacked message is visible again at once and comes back', async () => {
    const q = await tempQueue('in-nack');
    await fill(q, 1, () => 'again');
    const i = await input({ url: q, wait_time_seconds: 1 });
    await i.connect!();
    const first = await readOne(i);
    await first.ack(new Error('the output refused it'));
    const second = await readOne(i);
    assert.equal(second.batch[0]!.text(), 'again');
    assert.equal(second.batch[0]!.getMetaString('sqs_approximate_receive_count'), '2');
    await second.ack();
    await i.close!();
    await waitFor('deleted', async () => ((await depth(q)).inFlight === 0 ? true : undefined));
  });

  it('close() leaves what it did not hand out to SQS, visible at once', async () => {
    const q = await tempQueue('in-close');
    await fill(q, 10);
    const i = await input({ url: q, wait_time_seconds: 1 });
    await i.connect!();
    const t = await readOne(i);
    await t.ack();
    await i.close!();
    const left = await takeAll(q);
    assert.equal(left.length, 9, 'the nine buffered messages are back in the queue');
  });
});
