import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Message } from '@svc/engine';
import { deliveryMetadata, messageHeaders } from './metadata.js';

const props = {
  contentType: undefined,
  contentEncoding: undefined,
  headers: undefined,
  deliveryMode: undefined,
  priority: undefined,
  correlationId: undefined,
  replyTo: undefined,
  expiration: undefined,
  messageId: undefined,
  timestamp: undefined,
  type: undefined,
  userId: undefined,
  appId: undefined,
  clusterId: undefined,
};
const fields = { deliveryTag: 7, redelivered: false, exchange: '', routingKey: 'orders', consumerTag: 'c1' };

test('deliveryMetadata: every property under its Benthos key, as text; unset ones absent', () => {
  const meta = deliveryMetadata({
    fields: { ...fields, exchange: 'ex', redelivered: true },
    properties: {
      ...props,
      contentType: 'application/json',
      contentEncoding: 'gzip',
      deliveryMode: 2,
      priority: 5,
      correlationId: 'corr',
      replyTo: 'replies',
      expiration: '60000',
      messageId: 'm-1',
      timestamp: 1700000000,
      type: 'order.created',
      userId: 'guest',
      appId: 'shop',
    },
  });
  assert.deepEqual(meta, {
    amqp_content_type: 'application/json',
    amqp_content_encoding: 'gzip',
    amqp_delivery_mode: '2',
    amqp_priority: '5',
    amqp_correlation_id: 'corr',
    amqp_reply_to: 'replies',
    amqp_expiration: '60000',
    amqp_message_id: 'm-1',
    amqp_timestamp: '1700000000',
    amqp_type: 'order.created',
    amqp_user_id: 'guest',
    amqp_app_id: 'shop',
    amqp_consumer_tag: 'c1',
    amqp_delivery_tag: '7',
    amqp_redelivered: 'true',
    amqp_exchange: 'ex',
    amqp_routing_key: 'orders',
  });
  // Nothing set: priority is still 0 (as Benthos reports it), the default exchange is absent.
  assert.deepEqual(deliveryMetadata({ fields, properties: props }), {
    amqp_priority: '0',
    amqp_consumer_tag: 'c1',
    amqp_delivery_tag: '7',
    amqp_redelivered: 'false',
    amqp_routing_key: 'orders',
  });
});

test('deliveryMetadata: headers as text, - made _, tables and arrays flattened, typed values formatted', () => {
  const meta = deliveryMetadata({
    fields,
    properties: {
      ...props,
      headers: {
        'x-tenant': 'acme',
        count: 3,
        ratio: 0.5,
        ok: false,
        raw: Buffer.from('bytes'),
        empty: '',
        none: null,
        nested: { 'inner-key': 'v', deeper: { n: 1 } },
        list: ['a', 2],
        at: { '!': 'timestamp', value: 1700000000 },
        price: { '!': 'decimal', value: { places: 2, digits: 12345 } },
        small: { '!': 'decimal', value: { places: 3, digits: 5 } },
        // A property key wins over a header of the same name.
        amqp_routing_key: 'from-a-header',
      },
    },
  });
  assert.equal(meta.x_tenant, 'acme');
  assert.equal(meta.count, '3');
  assert.equal(meta.ratio, '0.5');
  assert.equal(meta.ok, 'false');
  assert.equal(meta.raw, 'bytes');
  assert.equal('empty' in meta, false);
  assert.equal('none' in meta, false);
  assert.equal(meta.nested_inner_key, 'v');
  assert.equal(meta.nested_deeper_n, '1');
  assert.equal(meta.list_0, 'a');
  assert.equal(meta.list_1, '2');
  assert.equal(meta.at, '2023-11-14T22:13:20Z');
  assert.equal(meta.price, '123.45');
  assert.equal(meta.small, '0.005');
  assert.equal(meta.amqp_routing_key, 'orders');
});

test('messageHeaders: metadata with _ made -, excluded prefixes left out, structured values as JSON', () => {
  const m = new Message('x', { trace_id: 'abc', n: 4, flag: true, doc: { a: [1] }, amqp_delivery_tag: '9', gone: null });
  assert.deepEqual(messageHeaders(m, ['amqp_']), { 'trace-id': 'abc', n: 4, flag: true, doc: '{"a":[1]}' });
  assert.equal(messageHeaders(new Message('x'), []), undefined);
  assert.equal(messageHeaders(new Message('x', { amqp_x: '1' }), ['amqp_']), undefined);
});
