/** The amqp_0_9 output against the real RabbitMQ. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BatchError, Message, NotConnectedError } from '@svc/engine';
import { TcpOutage } from '@svc/engine/testing';
import {
  RABBITMQ_URL,
  broker,
  brokerTarget,
  buildOutput,
  freshChannel,
  forgetLater,
  takeAll,
  tempExchange,
  tempQueue,
  unique,
  urlOnPort,
} from './test-support.js';

/** The user of the test connection: the broker checks user_id against it. */
const USER = decodeURIComponent(new URL(RABBITMQ_URL).username) || 'guest';

describe('amqp_0_9 output', () => {
  it('publishes each message with its properties, and metadata as headers', async () => {
    const queue = await tempQueue('props');
    const out = await buildOutput({
      urls: [RABBITMQ_URL],
      exchange: '',
      key: queue,
      type: '${! meta("kind") }/v1',
      content_type: 'application/json',
      content_encoding: 'identity',
      correlation_id: '${! json("id") }',
      reply_to: 'replies',
      expiration: '60000',
      message_id: 'msg-${! json("id") }',
      user_id: USER,
      app_id: 'svc-tests',
      priority: '${! json("id") }',
      persistent: true,
      metadata: { exclude_prefixes: ['secret_'] },
    });
    await out.connect!();
    await out.write([
      new Message('{"id":1}', { kind: 'order', trace_id: 't-1', secret_token: 'hidden', count: 2 }),
      new Message('{"id":2}', { kind: 'refund' }),
    ]);
    await out.close!();
    const got = await takeAll(queue);
    assert.deepEqual(
      got.map((m) => m.content.toString()),
      ['{"id":1}', '{"id":2}'],
    );
    const p = got[0]!.properties;
    assert.equal(p.type, 'order.v1', '/ becomes . in type, as in Benthos');
    assert.equal(p.contentType, 'application/json');
    assert.equal(p.contentEncoding, 'identity');
    assert.equal(p.correlationId, '1');
    assert.equal(p.replyTo, 'replies');
    assert.equal(p.expiration, '60000');
    assert.equal(p.messageId, 'msg-1');
    assert.equal(p.userId, USER);
    assert.equal(p.appId, 'svc-tests');
    assert.equal(p.priority, 1);
    assert.equal(p.deliveryMode, 2);
    assert.deepEqual(p.headers, { kind: 'order', 'trace-id': 't-1', count: 2 });
    assert.equal(got[1]!.properties.priority, 2);
    assert.equal(got[1]!.properties.type, 'refund.v1');
  });

  it('transient by default, with the default content type and no empty properties', async () => {
    const queue = await tempQueue('defaults');
    const out = await buildOutput({ urls: [RABBITMQ_URL], exchange: '', key: queue });
    await out.connect!();
    await out.write([new Message('plain')]);
    await out.close!();
    const [m] = await takeAll(queue);
    assert.equal(m!.properties.deliveryMode, 1);
    assert.equal(m!.properties.contentType, 'application/octet-stream');
    assert.equal(m!.properties.type, undefined);
    assert.equal(m!.properties.messageId, undefined);
  });

  it('exchange_declare declares the exchange; the routing key is interpolated per message', async () => {
    const exchange = unique('topic');
    forgetLater('exchange', exchange);
    const out = await buildOutput({
      urls: [RABBITMQ_URL],
      exchange,
      exchange_declare: { enabled: true, type: 'topic', durable: false },
      key: '${! meta("region") }/orders',
    });
    await out.connect!();
    // Declared on connect: it exists before the first write.
    const ch = await freshChannel();
    await ch.checkExchange(exchange);
    await ch.close();
    const eu = await tempQueue('eu');
    const us = await tempQueue('us');
    const { channel } = await broker();
    await channel.bindQueue(eu, exchange, 'eu.*');
    await channel.bindQueue(us, exchange, 'us.*');
    await out.write([new Message('a', { region: 'eu' }), new Message('b', { region: 'us' }), new Message('c', { region: 'eu' })]);
    await out.close!();
    assert.deepEqual(
      (await takeAll(eu)).map((m) => [m.content.toString(), m.fields.routingKey]),
      [
        ['a', 'eu.orders'],
        ['c', 'eu.orders'],
      ],
    );
    assert.deepEqual(
      (await takeAll(us)).map((m) => m.content.toString()),
      ['b'],
    );
  });

  it('an interpolated exchange is declared on first use, once per name', async () => {
    const prefix = unique('dyn');
    forgetLater('exchange', `${prefix}-a`);
    forgetLater('exchange', `${prefix}-b`);
    const out = await buildOutput({
      urls: [RABBITMQ_URL],
      exchange: `${prefix}-\${! meta("to") }`,
      exchange_declare: { enabled: true, type: 'fanout', durable: false },
    });
    await out.connect!();
    await out.write([new Message('1', { to: 'a' }), new Message('2', { to: 'b' }), new Message('3', { to: 'a' })]);
    const ch = await freshChannel();
    await ch.checkExchange(`${prefix}-a`);
    await ch.checkExchange(`${prefix}-b`);
    await ch.close();
    await out.close!();
  });

  it('publisher confirms with mandatory: an unroutable message rejects the write; without mandatory it is confirmed', async () => {
    const exchange = await tempExchange('unroutable', 'direct');
    const queue = await tempQueue('routable');
    const { channel } = await broker();
    await channel.bindQueue(queue, exchange, 'known');
    const strict = await buildOutput({ urls: [RABBITMQ_URL], exchange, key: '${! meta("key") }', mandatory: true });
    await strict.connect!();
    await strict.write([new Message('ok', { key: 'known' })]);
    await assert.rejects(strict.write([new Message('fine', { key: 'known' }), new Message('lost?', { key: 'nowhere' })]), (err: Error) => {
      assert.match(err.message, /amqp_0_9 output: the broker returned the message as unroutable \(312 NO_ROUTE; exchange ".*", key "nowhere"\)/);
      // 'fine' was confirmed: only the returned message is named, so only it is published again.
      assert.ok(err instanceof BatchError, `a BatchError, got ${err.name}`);
      assert.deepEqual(err.indexes(), [1]);
      return true;
    });
    // Every message returned: nothing was delivered, an ordinary failure (the batch is nacked).
    await assert.rejects(strict.write([new Message('lost', { key: 'nowhere' })]), (err: Error) => !(err instanceof BatchError) && /NO_ROUTE/.test(err.message));
    // The output stays usable after a return.
    await strict.write([new Message('after', { key: 'known' })]);
    await strict.close!();
    const lax = await buildOutput({ urls: [RABBITMQ_URL], exchange, key: 'nowhere' });
    await lax.connect!();
    await lax.write([new Message('dropped by the broker')]);
    await lax.close!();
    assert.deepEqual(
      (await takeAll(queue)).map((m) => m.content.toString()),
      ['ok', 'fine', 'after'],
    );
  });

  it('a bad priority fails the write with a clear error', async () => {
    const queue = await tempQueue('prio');
    const out = await buildOutput({ urls: [RABBITMQ_URL], exchange: '', key: queue, priority: '${! meta("p") }' });
    await out.connect!();
    await assert.rejects(out.write([new Message('x', { p: 'high' })]), /amqp_0_9 output: priority must be an integer from 0 to 9, got "high"/);
    await out.close!();
  });

  it('a lost connection makes writes throw NotConnectedError; connect() restores them', async () => {
    const queue = await tempQueue('reconnect');
    const outage = new TcpOutage(brokerTarget());
    const port = await outage.start();
    try {
      const out = await buildOutput({ urls: [urlOnPort(port)], exchange: '', key: queue });
      await out.connect!();
      await out.write([new Message('before')]);
      outage.cut(200);
      await new Promise((r) => setTimeout(r, 50));
      await assert.rejects(out.write([new Message('during')]), (err: unknown) => err instanceof NotConnectedError);
      await outage.restored();
      await out.connect!();
      await out.write([new Message('after')]);
      await out.close!();
      assert.deepEqual(
        (await takeAll(queue)).map((m) => m.content.toString()),
        ['before', 'after'],
      );
    } finally {
      await outage.stop();
    }
  });
});
