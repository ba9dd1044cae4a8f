/**
 * `redis_pubsub` and `redis_hash` against the real Redis: what the output publishes reaches the
 * input (channel and pattern in metadata); HSET fields come from metadata, then the JSON object,
 * then `fields`, each later one overwriting.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message, type Transaction } from '@svc/engine';
import { buildInput, buildOutput, redis, tempKey } from './test-support.js';

describe('redis_pubsub (real Redis)', () => {
  it('published messages arrive with redis_pubsub_channel, and redis_pubsub_pattern with use_patterns', async () => {
    const base = tempKey('ps');
    const plain = await buildInput('redis_pubsub', { channels: [`${base}.a`] });
    const patterned = await buildInput('redis_pubsub', { channels: [`${base}.*`], use_patterns: true });
    const out = await buildOutput('redis_pubsub', { channel: `${base}.\${! meta("c") }` });
    try {
      await plain.connect?.();
      await patterned.connect?.();
      await out.write([new Message(Buffer.from([1, 2, 255]), { c: 'a' }), new Message('b', { c: 'b' })]);
      const p = (await plain.read()) as Transaction;
      assert.deepEqual(
        p.batch.map((m) => m.content.toString('hex')),
        ['0102ff'],
      );
      assert.equal(p.batch[0]!.getMeta('redis_pubsub_channel'), `${base}.a`);
      assert.equal(p.batch[0]!.getMeta('redis_pubsub_pattern'), '');
      const got: Message[] = [];
      while (got.length < 2) got.push(...((await patterned.read()) as Transaction).batch);
      assert.deepEqual(
        got.map((m) => [m.getMeta('redis_pubsub_channel'), m.getMeta('redis_pubsub_pattern')]),
        [
          [`${base}.a`, `${base}.*`],
          [`${base}.b`, `${base}.*`],
        ],
      );
    } finally {
      await Promise.all([plain.close?.(), patterned.close?.(), out.close?.()]);
    }
  });
});

describe('redis_hash (real Redis)', () => {
  it('metadata, then the JSON object, then fields, each overwriting the one before', async () => {
    const key = tempKey('hash');
    const out = await buildOutput('redis_hash', {
      key: '${! meta("k") }',
      walk_metadata: true,
      walk_json_object: true,
      fields: { b: '${! this.b }-field' },
    });
    try {
      await out.write([new Message('{"a":"json","b":"json","n":12345678901234567890,"t":true,"o":{"x":1}}', { k: key, a: 'meta', m: 'meta' })]);
    } finally {
      await out.close?.();
    }
    // The test's connection speaks RESP3: HGETALL is a map, given as an object.
    const h = await (await redis()).send<Record<string, Buffer>>(['HGETALL', key]);
    const obj = Object.fromEntries(Object.entries(h).map(([k, v]) => [k, v.toString()]));
    assert.deepEqual(obj, { k: key, a: 'json', m: 'meta', b: 'json-field', n: '12345678901234567890', t: '1', o: '{"x":1}' });
  });

  it('a config with no way of setting fields is refused at start', async () => {
    await assert.rejects(buildOutput('redis_hash', { key: 'k' }), /at least one mechanism for setting fields/);
  });
});
