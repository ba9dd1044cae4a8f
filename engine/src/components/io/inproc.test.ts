import { test } from 'node:test';
import assert from 'node:assert/strict';
import { END_OF_INPUT, Message, registry, type Transaction } from '@svc/engine';
import { INPROC_CAPACITY, InprocInput, InprocOutput, inprocQueued } from './inproc.js';
import './index.js';
import { buildInput, buildOutput, lint } from './test-context.js';

let seq = 0;
const channelName = () => `test_channel_${++seq}`;

test('config: each side is a string naming the channel', () => {
  for (const kind of ['input', 'output'] as const) {
    const spec = registry().get(kind, 'inproc')!.spec.config;
    assert.equal(spec.kind, 'string');
    assert.deepEqual(lint(spec, 'events'), []);
    assert.match(lint(spec, ' ').join(), /cannot be empty/);
  }
});

test('a write resolves only when the input acks its transaction', async () => {
  const name = channelName();
  const output = await buildOutput('inproc', name);
  const input = await buildInput('inproc', name);
  let written = false;
  const original = new Message('hello', { k: 'v' });
  const w = output.write([original]).then(() => (written = true));
  const tx = (await input.read()) as Transaction;
  assert.equal(tx.batch[0]!.text(), 'hello');
  tx.batch[0]!.setMeta('k', 'changed downstream');
  assert.equal(original.getMeta('k'), 'v', 'the input gets copies');
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(written, false, 'not before the ack');
  tx.ack();
  await w;
  assert.equal(written, true);
  await input.close!();
});

test('a nack rejects the write with the reason (the writing stream replays it)', async () => {
  const name = channelName();
  const output = new InprocOutput(name);
  const input = new InprocInput(name);
  const pending = input.read(); // the reader waits first this time
  const w = output.write([new Message('x')]);
  const tx = (await pending) as Transaction;
  tx.ack(new Error('validation failed'));
  tx.ack(); // a later ack changes nothing
  await assert.rejects(w, (err: Error) => {
    assert.match(err.message, new RegExp(`inproc "${name}": the receiving stream rejected the batch: validation failed`));
    return true;
  });
  await input.close();
});

test('transactions arrive in order, shared between several inputs', async () => {
  const name = channelName();
  const output = new InprocOutput(name);
  const a = new InprocInput(name);
  const b = new InprocInput(name);
  const writes = [1, 2, 3, 4].map((i) => output.write([new Message(String(i))]));
  const got: string[] = [];
  for (const input of [a, b, a, b]) {
    const tx = (await input.read()) as Transaction;
    got.push(tx.batch[0]!.text());
    tx.ack();
  }
  await Promise.all(writes);
  assert.deepEqual(got, ['1', '2', '3', '4']);
  await a.close();
  await b.close();
});

test('bounded: beyond the capacity writers wait until an input takes one', async () => {
  const name = channelName();
  const output = new InprocOutput(name);
  const writes: Array<Promise<void>> = [];
  for (let i = 0; i < INPROC_CAPACITY + 5; i++) writes.push(output.write([new Message(String(i))]));
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(inprocQueued(name), INPROC_CAPACITY);
  const input = new InprocInput(name);
  const first = (await input.read()) as Transaction;
  assert.equal(first.batch[0]!.text(), '0');
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(inprocQueued(name), INPROC_CAPACITY, 'a waiting writer took the freed place');
  first.ack();
  await writes[0];
  const texts: string[] = [];
  for (let i = 1; i < INPROC_CAPACITY + 5; i++) {
    const tx = (await input.read()) as Transaction;
    texts.push(tx.batch[0]!.text());
    tx.ack();
  }
  await Promise.all(writes);
  assert.deepEqual(
    texts,
    Array.from({ length: INPROC_CAPACITY + 4 }, (_, i) => String(i + 1)),
  );
  await input.close();
});

test('close ends a pending read; closing the last input fails back what nobody took', async () => {
  const name = channelName();
  const input = new InprocInput(name);
  const pending = input.read();
  await input.close();
  assert.equal(await pending, END_OF_INPUT);
  assert.equal(await input.read(), END_OF_INPUT);

  const output = new InprocOutput(name);
  const reader = new InprocInput(name);
  const w = output.write([new Message('stranded')]);
  await reader.close();
  await assert.rejects(w, /the reading input closed before taking the batch/);
  assert.equal(inprocQueued(name), 0);
});
