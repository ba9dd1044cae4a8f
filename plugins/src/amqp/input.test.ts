/** The amqp_0_9 input against the real RabbitMQ. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { END_OF_INPUT, NotConnectedError, type Input, type Transaction } from '@svc/engine';
import { TcpOutage } from '@svc/engine/testing';
import { redactUrl } from '@svc/engine';
import {
  RABBITMQ_URL,
  broker,
  brokerTarget,
  buildInput,
  context,
  depth,
  fill,
  forgetLater,
  tempExchange,
  tempQueue,
  unique,
  urlOnPort,
  within,
} from './test-support.js';

/** Reads transactions until `count` messages came, within 10 s. */
async function readMessages(input: Input, count: number): Promise<Transaction[]> {
  const txs: Transaction[] = [];
  let n = 0;
  const deadline = Date.now() + 10_000;
  while (n < count) {
    const r = await within(Promise.resolve(input.read()), Math.max(1, deadline - Date.now()));
    if (r === 'pending') throw new Error(`read ${n} of ${count} messages in 10 s`);
    if (r === END_OF_INPUT) throw new Error('the input ended');
    txs.push(r);
    n += r.batch.length;
  }
  return txs;
}

describe('amqp_0_9 input', () => {
  it('reads messages with their properties and headers as metadata; acks empty the queue', async () => {
    const queue = await tempQueue('read');
    await fill(queue, 20, (i) => `msg-${i}`, {
      headers: { 'x-tenant': 'acme', nested: { level: 2 } },
      contentType: 'text/plain',
      correlationId: 'corr-1',
      messageId: 'id-1',
      priority: 3,
      timestamp: 1_700_000_000,
      type: 'greeting',
      appId: 'tests',
      persistent: true,
    });
    const input = await buildInput({ urls: [RABBITMQ_URL], queue, prefetch_count: 50 });
    await input.connect!();
    const txs = await readMessages(input, 20);
    const msgs = txs.flatMap((t) => t.batch);
    assert.deepEqual(
      msgs.map((m) => m.text()),
      Array.from({ length: 20 }, (_, i) => `msg-${i}`),
    );
    const meta = msgs[0]!.metaObject();
    assert.equal(meta.x_tenant, 'acme');
    assert.equal(meta.nested_level, '2');
    assert.equal(meta.amqp_content_type, 'text/plain');
    assert.equal(meta.amqp_correlation_id, 'corr-1');
    assert.equal(meta.amqp_message_id, 'id-1');
    assert.equal(meta.amqp_priority, '3');
    assert.equal(meta.amqp_timestamp, '1700000000');
    assert.equal(meta.amqp_type, 'greeting');
    assert.equal(meta.amqp_app_id, 'tests');
    assert.equal(meta.amqp_delivery_mode, '2');
    assert.equal(meta.amqp_redelivered, 'false');
    assert.equal(meta.amqp_routing_key, queue);
    assert.equal(meta.amqp_delivery_tag, '1');
    assert.match(String(meta.amqp_consumer_tag), /^amq\.ctag-/);
    assert.equal('amqp_exchange' in meta, false, 'the default exchange has no name');
    for (const t of txs) t.ack();
    await input.close!();
    assert.equal(await depth(queue), 0);
  });

  it('a nack requeues: the message comes back, flagged redelivered; a nack matching nack_reject_patterns drops it', async () => {
    const queue = await tempQueue('nack');
    await fill(queue, 1, () => 'again');
    const input = await buildInput({ urls: [RABBITMQ_URL], queue, nack_reject_patterns: ['^poison:'] });
    await input.connect!();
    const [first] = await readMessages(input, 1);
    assert.equal(first!.batch[0]!.getMeta('amqp_redelivered'), 'false');
    first!.ack(new Error('output refused it'));
    const [second] = await readMessages(input, 1);
    assert.equal(second!.batch[0]!.text(), 'again');
    assert.equal(second!.batch[0]!.getMeta('amqp_redelivered'), 'true');
    second!.ack(new Error('poison: cannot be parsed'));
    // Rejected without requeue: it does not come back.
    assert.equal(await within(Promise.resolve(input.read()), 500), 'pending');
    await input.close!();
    assert.equal(await depth(queue), 0);
  });

  it('prefetch_count bounds the unacknowledged messages; acking lets more in', async () => {
    const queue = await tempQueue('prefetch');
    await fill(queue, 10);
    const input = await buildInput({ urls: [RABBITMQ_URL], queue, prefetch_count: 3 });
    await input.connect!();
    const txs = await readMessages(input, 3);
    // A fourth message does not come while three are unacknowledged.
    const next = Promise.resolve(input.read());
    assert.equal(await within(next, 500), 'pending');
    assert.equal(await depth(queue), 7);
    for (const t of txs) t.ack();
    const more = await next;
    assert.notEqual(more, END_OF_INPUT);
    assert.ok((more as Transaction).batch.length <= 3);
    (more as Transaction).ack();
    await input.close!();
  });

  it('queue_declare and bindings_declare create the queue and bind it on connect', async () => {
    const exchange = await tempExchange('bind', 'topic');
    const queue = unique('declared');
    forgetLater('queue', queue);
    const input = await buildInput({
      urls: [RABBITMQ_URL],
      queue,
      queue_declare: { enabled: true, durable: false, auto_delete: false },
      bindings_declare: [
        { exchange, key: 'orders.*' },
        { exchange, key: 'audit.#' },
      ],
    });
    await input.connect!();
    const { channel } = await broker();
    channel.publish(exchange, 'orders.created', Buffer.from('o'));
    channel.publish(exchange, 'audit.a.b', Buffer.from('a'));
    channel.publish(exchange, 'other', Buffer.from('not bound'));
    await channel.waitForConfirms();
    const msgs = (await readMessages(input, 2)).flatMap((t) => {
      t.ack();
      return t.batch;
    });
    assert.deepEqual(msgs.map((m) => [m.text(), m.getMeta('amqp_exchange'), m.getMeta('amqp_routing_key')]).sort(), [
      ['a', exchange, 'audit.a.b'],
      ['o', exchange, 'orders.created'],
    ]);
    assert.equal(await within(Promise.resolve(input.read()), 300), 'pending');
    await input.close!();
  });

  it('auto_ack: messages are acknowledged as they are read', async () => {
    const queue = await tempQueue('autoack');
    await fill(queue, 5);
    const input = await buildInput({ urls: [RABBITMQ_URL], queue, auto_ack: true });
    await input.connect!();
    await readMessages(input, 5);
    // Never acked by the pipeline, and still gone from the broker after the input closes.
    await input.close!();
    assert.equal(await depth(queue), 0);
  });

  it('close() requeues what was not read and waits for the transactions in flight', async () => {
    const queue = await tempQueue('close');
    await fill(queue, 6);
    const input = await buildInput({ urls: [RABBITMQ_URL], queue, prefetch_count: 2 });
    await input.connect!();
    const [tx] = await readMessages(input, 1);
    const closing = input.close!();
    // The pending transaction is acked after close() was called: the ack still reaches the broker.
    await new Promise((r) => setTimeout(r, 100));
    tx!.ack();
    await closing;
    assert.equal(await input.read(), END_OF_INPUT);
    assert.equal(await depth(queue), 6 - tx!.batch.length);
  });

  it('a nack that comes while close() waits requeues at once: the requeue back-off does not hold the shutdown drain', async () => {
    const queue = await tempQueue('close-nack');
    await fill(queue, 1, () => 'refused');
    const input = await buildInput({ urls: [RABBITMQ_URL], queue, prefetch_count: 1 });
    await input.connect!();
    // Ten nacks in a row: the next requeue would back off for a full second.
    for (let i = 0; i < 10; i++) (await readMessages(input, 1))[0]!.ack(new Error('upstream down'));
    const [tx] = await readMessages(input, 1);
    const closing = input.close!();
    await new Promise((r) => setTimeout(r, 50));
    tx!.ack(new Error('upstream down'));
    // Before, close() waited out that second; a shutdown_timeout of 1 s then ran out with nothing
    // owed ("Could not deliver 0 message(s)", exit 1).
    assert.notEqual(await within(closing, 500), 'pending', 'close() returned without waiting out the back-off');
    assert.equal(await depth(queue), 1, 'the message is back in the queue');
  });

  it('a lost connection: reads throw NotConnectedError, a late ack is a no-op, the broker redelivers after reconnecting', async () => {
    const queue = await tempQueue('lost');
    await fill(queue, 3);
    const outage = new TcpOutage(brokerTarget());
    const port = await outage.start();
    try {
      const ctx = context();
      const input = await buildInput({ urls: [urlOnPort(port)], queue }, ctx);
      await input.connect!();
      const before = await readMessages(input, 3);
      outage.cut(300);
      await assert.rejects(
        async () => input.read(),
        (err: unknown) => {
          assert.ok(err instanceof NotConnectedError);
          assert.ok((err as Error).message.startsWith(`amqp_0_9 input: lost the connection to ${redactUrl(urlOnPort(port))}`), (err as Error).message);
          return true;
        },
      );
      // Acks of deliveries from the dead channel are dropped, not sent on a new one.
      for (const t of before) t.ack();
      assert.ok(ctx.logger.lines.some((l) => l.level === 'DEBUG' && /from a closed channel/.test(l.msg)));
      await outage.restored();
      await input.connect!();
      const after = (await readMessages(input, 3)).flatMap((t) => {
        t.ack();
        return t.batch;
      });
      assert.deepEqual(
        after.map((m) => m.getMeta('amqp_redelivered')),
        ['true', 'true', 'true'],
      );
      assert.equal(outage.accepted, 2);
      await input.close!();
      assert.equal(await depth(queue), 0);
    } finally {
      await outage.stop();
    }
  });

  it('fails over: the URLs are tried in order and the first that connects is used', async () => {
    const queue = await tempQueue('failover');
    await fill(queue, 1);
    const ctx = context();
    // Port 1 on loopback: nothing listens there.
    const input = await buildInput({ urls: [`${urlOnPort(1)},${RABBITMQ_URL}`], queue }, ctx);
    await input.connect!();
    const [tx] = await readMessages(input, 1);
    tx!.ack();
    await input.close!();
    assert.ok(ctx.logger.lines.some((l) => l.msg === `Receiving AMQP 0.9 messages from queue "${queue}" at ${redactUrl(RABBITMQ_URL)}`));
  });
});
