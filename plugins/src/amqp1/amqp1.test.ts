/**
 * The `amqp_1` input and output against the real RabbitMQ (AMQP 1.0 through its rabbitmq_amqp1_0
 * plugin): what a message carries both ways, acks and nacks on the broker, the output waiting for
 * the broker's disposition, and the errors a user sees for a bad config or a refused address.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message, type Input, type Output, type Transaction } from '@svc/engine';
import { RABBITMQ_URL, buildInput, buildOutput, depth, lint, queueAddress, receiveRaw, tempQueue, unique, urlOnPort } from './test-support.js';

async function readOne(input: Input): Promise<Transaction> {
  const t = await input.read();
  assert.ok(typeof t === 'object' && 'batch' in t, 'a transaction');
  return t;
}

/** Reads until `count` messages came, in transactions. */
async function readMessages(input: Input, count: number): Promise<Transaction[]> {
  const out: Transaction[] = [];
  let n = 0;
  while (n < count) {
    const t = await readOne(input);
    out.push(t);
    n += t.batch.length;
  }
  return out;
}

async function closeAll(...cs: (Input | Output)[]): Promise<void> {
  for (const c of cs) await c.close?.();
}

describe('amqp_1', () => {
  it('output → queue → input: bodies, metadata as annotations, application properties, durability', async () => {
    const q = await tempQueue('roundtrip');
    const output = await buildOutput({
      urls: [RABBITMQ_URL],
      target_address: queueAddress(q),
      persistent: true,
      application_properties_map: 'root.region = this.region\nroot.big = this.big',
      metadata: { exclude_prefixes: ['secret_'] },
    });
    await output.connect!();
    const batch = [0, 1, 2].map((i) => new Message(Buffer.from(`{"id":${i},"region":"eu","big":9007199254740993}`), { trace_id: `t${i}`, secret_token: 'no' }));
    await output.write(batch);
    assert.equal(await depth(q), 3, 'the write resolved once the broker held all three');

    const input = await buildInput({ urls: [RABBITMQ_URL], source_address: queueAddress(q), read_header: true });
    await input.connect!();
    const ts = await readMessages(input, 3);
    const msgs = ts.flatMap((t) => t.batch);
    assert.deepEqual(
      msgs.map((m) => m.content.toString()),
      batch.map((m) => m.content.toString()),
    );
    const m0 = msgs[0]!;
    assert.equal(m0.getMeta('trace_id'), 't0', 'a string annotation becomes metadata');
    assert.equal(m0.getMeta('secret_token'), undefined, 'metadata.exclude_prefixes kept it out');
    assert.equal(m0.getMeta('amqp_durable'), 'true', 'persistent: the header says durable');
    assert.equal(m0.getMeta('amqp_priority'), '4');
    assert.match(String(m0.getMeta('amqp_first_acquirer')), /^(true|false)$/);
    assert.equal(m0.getMeta('amqp_delivery_count'), '0');
    for (const t of ts) t.ack();
    await closeAll(input, output);
    assert.equal(await depth(q), 0, 'accepted: gone from the queue');
  });

  it('application properties and annotations as an AMQP 1.0 receiver sees them (64-bit integers exact)', async () => {
    const q = await tempQueue('props');
    const output = await buildOutput({
      urls: [RABBITMQ_URL],
      target_address: queueAddress(q),
      application_properties_map: 'root.region = this.region\nroot.big = this.big\nroot.n = 3',
    });
    await output.connect!();
    await output.write([new Message(Buffer.from('{"region":"eu","big":1234567890123456789}'), { kind: 'order' })]);
    await output.close!();
    const [got] = await receiveRaw(queueAddress(q), 1);
    assert.ok(got);
    const props = got.application_properties as Record<string, unknown>;
    assert.equal(props.region, 'eu');
    assert.equal(props.n, 3);
    // A 64-bit integer goes as an AMQP long, exactly (not rounded through a double).
    assert.equal(Buffer.isBuffer(props.big) ? (props.big as Buffer).readBigInt64BE().toString() : String(props.big), '1234567890123456789');
    assert.equal((got.message_annotations as Record<string, unknown>).kind, 'order');
  });

  it('content_type string sends an AMQP string value; the input reads it back as bytes', async () => {
    const q = await tempQueue('string');
    const output = await buildOutput({ urls: [RABBITMQ_URL], target_address: queueAddress(q), content_type: 'string' });
    await output.connect!();
    await output.write([new Message(Buffer.from('héllo'))]);
    const input = await buildInput({ urls: [RABBITMQ_URL], source_address: queueAddress(q) });
    await input.connect!();
    const t = await readOne(input);
    assert.equal(t.batch[0]!.content.toString(), 'héllo');
    t.ack();
    await closeAll(input, output);
  });

  it('a nack hands the messages back (released): they come again, and an ack settles them', async () => {
    const q = await tempQueue('nack');
    const output = await buildOutput({ urls: [RABBITMQ_URL], target_address: queueAddress(q) });
    await output.connect!();
    await output.write([new Message(Buffer.from('a')), new Message(Buffer.from('b'))]);
    const input = await buildInput({ urls: [RABBITMQ_URL], source_address: queueAddress(q), credit: 2, read_header: true });
    await input.connect!();
    const first = await readMessages(input, 2);
    for (const t of first) t.ack(new Error('the sink is down'));
    const again = await readMessages(input, 2);
    assert.deepEqual(again.flatMap((t) => t.batch.map((m) => m.content.toString())).sort(), ['a', 'b']);
    for (const t of again) t.ack();
    await closeAll(input, output);
    assert.equal(await depth(q), 0);
  });

  it('credit bounds the unacknowledged messages: no more arrive until some are settled', async () => {
    const q = await tempQueue('credit');
    const output = await buildOutput({ urls: [RABBITMQ_URL], target_address: queueAddress(q) });
    await output.connect!();
    await output.write(Array.from({ length: 10 }, (_, i) => new Message(Buffer.from(String(i)))));
    const input = await buildInput({ urls: [RABBITMQ_URL], source_address: queueAddress(q), credit: 3 });
    await input.connect!();
    const held = await readMessages(input, 3);
    assert.equal(
      held.reduce((n, t) => n + t.batch.length, 0),
      3,
    );
    // With 3 unsettled, the broker sends nothing more: a read stays pending.
    const next = Promise.resolve(input.read());
    const raced = await Promise.race([next.then(() => 'read'), new Promise((r) => setTimeout(() => r('pending'), 500))]);
    assert.equal(raced, 'pending');
    for (const t of held) t.ack();
    const t = await next;
    assert.ok(typeof t === 'object' && 'batch' in t && t.batch.length >= 1);
    t.ack();
    await closeAll(input, output);
  });

  it('close() hands back what was received and not read: nothing is lost', async () => {
    const q = await tempQueue('close');
    const output = await buildOutput({ urls: [RABBITMQ_URL], target_address: queueAddress(q) });
    await output.connect!();
    await output.write(Array.from({ length: 20 }, (_, i) => new Message(Buffer.from(String(i)))));
    const input = await buildInput({ urls: [RABBITMQ_URL], source_address: queueAddress(q), credit: 20 });
    await input.connect!();
    const t = await readOne(input);
    t.ack();
    const read = t.batch.length;
    await closeAll(input, output);
    assert.equal(await depth(q), 20 - read);
  });

  it('an address the broker does not know: connect fails naming it and the broker’s reason', async () => {
    const missing = `/amq/queue/${unique('missing')}`;
    const input = await buildInput({ urls: [RABBITMQ_URL], source_address: missing });
    await assert.rejects(input.connect!(), (err: Error) => {
      assert.match(err.message, new RegExp(`^amqp_1 input: cannot receive from ${missing} at amqp://[^@]*xxxxx@`));
      assert.doesNotMatch(err.message, /guest:guest/);
      return true;
    });
    const output = await buildOutput({ urls: [RABBITMQ_URL], target_address: '/nonsense/x' });
    await assert.rejects(output.connect!(), /amqp_1 output: cannot send to \/nonsense\/x at amqp:\/\/[^@]*xxxxx@[^:]+:\d+\/: .*unknown_destination/);
  });

  it('wrong credentials and a closed port: clear errors without the password', async () => {
    const bad = new URL(RABBITMQ_URL);
    bad.password = 'Sup3r-S3cret-pw';
    const input = await buildInput({ urls: [bad.toString()], source_address: '/amq/queue/x' });
    await assert.rejects(input.connect!(), (err: Error) => {
      assert.match(err.message, /^amqp_1 input: cannot connect to amqp:\/\/guest:xxxxx@.*amqp:unauthorized-access/);
      assert.doesNotMatch(err.message, /Sup3r-S3cret-pw/);
      return true;
    });
    const sasl = await buildOutput({
      urls: [urlOnPort(1)],
      target_address: '/amq/queue/x',
      sasl: { mechanism: 'plain', user: 'guest', password: 'Sup3r-S3cret-pw' },
    });
    await assert.rejects(sasl.connect!(), (err: Error) => {
      assert.match(err.message, /ECONNREFUSED.*is the broker running/);
      assert.doesNotMatch(err.message, /Sup3r-S3cret-pw/);
      return true;
    });
  });

  it('config errors are refused at lint with what to do', () => {
    assert.deepEqual(lint('input', { source_address: '/amq/queue/x' }), ["config: field 'urls' must be set"]);
    assert.deepEqual(lint('output', { urls: ['http://h/'], target_address: '/x' }), ['config.urls: "http://h/" is not an amqp:// or amqps:// URL']);
    assert.ok(lint('input', { urls: ['amqp://h/'], source_address: '' }).some((p) => /source_address must name/.test(p)));
    assert.ok(lint('input', { urls: ['amqp://h/'], source_address: '/x', credit: 0 }).some((p) => /credit must be at least 1/.test(p)));
    assert.ok(lint('input', { urls: ['amqp://h/'], source_address: '/x', azure_renew_lock: true }).some((p) => /azure_renew_lock is not implemented/.test(p)));
    assert.ok(
      lint('output', { urls: ['amqp://h/'], target_address: '/x', sasl: { mechanism: 'scram' } }).some((p) => /expected one of none, plain, anonymous/.test(p)),
    );
    assert.ok(lint('output', { urls: ['amqp://h/'], target_address: '/x', content_type: 'json' }).length > 0);
    assert.deepEqual(lint('output', { url: 'amqp://h/', target_address: '/x' }), [], 'the deprecated url still works');
  });
});
