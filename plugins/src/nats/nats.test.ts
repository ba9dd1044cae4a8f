/**
 * The nats family against a real nats-server (JetStream on), over loopback: core `nats` publish
 * and subscribe with headers, metadata and queue groups; `nats_jetstream` output (acked by the
 * stream, refused when no stream captures the subject) and input (metadata, a durable consumer
 * that a new input goes on from, a nack delivered again).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message, type Input, type Transaction } from '@svc/engine';
import { buildInput, buildOutput, nats, publishAll, readStream, storedIn, tempStream, unique } from './test-support.js';

async function readOne(i: Input): Promise<Transaction> {
  const t = await i.read();
  assert.ok(typeof t === 'object' && 'batch' in t, 'a transaction');
  return t;
}

describe('nats (core)', () => {
  it('the output publishes with interpolated subject and headers; the input reads them with metadata', async () => {
    const base = unique('core');
    const input = await buildInput('nats', { subject: `${base}.>` });
    await input.connect!();
    const output = await buildOutput('nats', {
      subject: `${base}.\${! meta("kind") }`,
      headers: { 'Content-Type': 'application/json' },
      metadata: { include_prefixes: ['trace_'] },
    });
    await output.connect!();
    await output.write([new Message('{"a":1}', { kind: 'created', trace_id: 't1', other: 'not sent' })]);
    const t = await readOne(input);
    const m = t.batch[0]!;
    assert.equal(m.text(), '{"a":1}');
    assert.equal(m.getMetaString('nats_subject'), `${base}.created`);
    assert.equal(m.getMetaString('Content-Type'), 'application/json');
    assert.equal(m.getMetaString('trace_id'), 't1');
    assert.equal(m.getMeta('other'), undefined);
    await t.ack();
    await output.close!();
    await input.close!();
  });

  it('send_ack answers a message with a reply subject +ACK once delivered', async () => {
    const subject = unique('reply');
    const input = await buildInput('nats', { subject });
    await input.connect!();
    const nc = await nats();
    const answer = nc.request(subject, Buffer.from('ping'), { timeout: 5000 });
    const t = await readOne(input);
    await t.ack();
    assert.equal(Buffer.from((await answer).data).toString(), '+ACK');
    await input.close!();
  });
});

describe('nats_jetstream', () => {
  it('the output resolves once the stream stored each message; a subject no stream captures fails', async () => {
    const stream = await tempStream('out');
    const output = await buildOutput('nats_jetstream', { subject: `${stream}.\${! meta("k") }` });
    await output.connect!();
    await output.write([new Message('a', { k: 'x' }), new Message('b', { k: 'y' })]);
    assert.equal(await storedIn(stream), 2);
    assert.deepEqual((await readStream(stream)).map(String), ['a', 'b']);
    const nowhere = await buildOutput('nats_jetstream', { subject: unique('nowhere') });
    await nowhere.connect!();
    await assert.rejects(nowhere.write([new Message('lost?')]), /did not store the message/);
    await nowhere.close!();
    await output.close!();
  });

  it('the input acks after delivery: a nack comes back, a durable consumer goes on where the last input stopped', async () => {
    const stream = await tempStream('in');
    await publishAll(`${stream}.a`, 3);
    const conf = { subject: `${stream}.>`, durable: 'svc_test', ack_wait: '2s' };
    const first = await buildInput('nats_jetstream', conf);
    await first.connect!();
    /** Reads transactions until `n` messages came; they and their transactions. */
    const take = async (i: Input, n: number) => {
      const txs: Transaction[] = [];
      const msgs: Message[] = [];
      while (msgs.length < n) {
        const t = await readOne(i);
        txs.push(t);
        msgs.push(...t.batch);
      }
      return { txs, msgs };
    };
    const once = await take(first, 3);
    assert.deepEqual(
      once.msgs.map((m) => m.text()),
      ['{"id":0}', '{"id":1}', '{"id":2}'],
    );
    const m = once.msgs[0]!;
    assert.equal(m.getMetaString('nats_subject'), `${stream}.a`);
    assert.equal(m.getMetaString('nats_sequence_stream'), '1');
    assert.equal(m.getMetaString('nats_num_delivered'), '1');
    assert.equal(m.getMetaString('nats_consumer'), 'svc_test');
    for (const t of once.txs) await t.ack(new Error('the output refused it'));
    const again = await take(first, 3);
    assert.deepEqual(again.msgs.map((x) => x.text()).sort(), ['{"id":0}', '{"id":1}', '{"id":2}']);
    for (const x of again.msgs) assert.equal(x.getMetaString('nats_num_delivered'), '2');
    for (const t of again.txs) await t.ack();
    await first.close!();
    await publishAll(`${stream}.a`, 1);
    const second = await buildInput('nats_jetstream', conf);
    await second.connect!();
    const next = await take(second, 1);
    assert.deepEqual(
      next.msgs.map((x) => x.getMetaString('nats_sequence_stream')),
      ['4'],
      'only the new message: the acked ones are not delivered again',
    );
    for (const t of next.txs) await t.ack();
    await second.close!();
  });

  it('refuses what it does not implement at load, saying what to do', async () => {
    await assert.rejects(buildInput('nats_jetstream', { subject: 'x', auth: { user_jwt: 'eyJ...' } }), /auth.user_jwt is not implemented/);
  });
});
