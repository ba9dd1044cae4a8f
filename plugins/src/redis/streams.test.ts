/**
 * `redis_streams` against the real Redis: the output adds entries with the metadata and the body
 * as fields; the input reads them as a consumer group member, acknowledges an entry (XACK) only
 * after its batch was acked, serves a nacked batch again, and after a restart reads the entries
 * it had read and not acknowledged before new ones.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message, type Input, type Transaction } from '@svc/engine';
import { buildInput, buildOutput, redis, tempKey } from './test-support.js';

async function pendingCount(stream: string, group: string): Promise<number> {
  const r = await (await redis()).send<[number, ...unknown[]]>(['XPENDING', stream, group]);
  return Number(r[0]);
}

async function readTx(input: Input): Promise<Transaction> {
  return (await input.read()) as Transaction;
}

describe('redis_streams (real Redis)', () => {
  it('the output adds metadata and body as fields (the body wins a clash), metadata.exclude_prefixes left out', async () => {
    const s = tempKey('stream-out');
    const out = await buildOutput('redis_streams', { stream: s, metadata: { exclude_prefixes: ['skip_'] } });
    try {
      await out.write([new Message(Buffer.from([0, 1, 255]), { a: '1', skip_me: 'x', body: 'not me' }), new Message('two')]);
    } finally {
      await out.close?.();
    }
    const entries = await (await redis()).send<Array<[Buffer, Buffer[]]>>(['XRANGE', s, '-', '+']);
    assert.equal(entries.length, 2);
    const fields = entries.map(([, kv]) => kv.map((b) => b.toString('hex')));
    assert.deepEqual(fields[0], [Buffer.from('a').toString('hex'), '31', Buffer.from('body').toString('hex'), '0001ff']);
    assert.deepEqual(entries[1]![1].map(String), ['body', 'two']);
  });

  it('reads as a group member; XACK only after the ack; metadata redis_stream and the other fields', async () => {
    const s = tempKey('stream-in');
    const r = await redis();
    await r.send(['XADD', s, '*', 'body', 'hello', 'kind', 'greeting']);
    await r.send(['XADD', s, '*', 'body', 'world']);
    const input = await buildInput('redis_streams', { streams: [s], consumer_group: 'g', client_id: 'c1', commit_period: '20ms' });
    try {
      await input.connect?.();
      const t = await readTx(input);
      assert.deepEqual(
        t.batch.map((m) => m.content.toString()),
        ['hello', 'world'],
      );
      assert.equal(t.batch[0]!.getMeta('kind'), 'greeting');
      assert.match(String(t.batch[0]!.getMeta('redis_stream')), /^\d+-\d+$/);
      await new Promise((res) => setTimeout(res, 100));
      assert.equal(await pendingCount(s, 'g'), 2, 'not acknowledged before the ack');
      t.ack();
      await new Promise((res) => setTimeout(res, 100));
      assert.equal(await pendingCount(s, 'g'), 0, 'acknowledged after the ack');
    } finally {
      await input.close?.();
    }
  });

  it('a nacked batch is served again and stays pending until acked', async () => {
    const s = tempKey('stream-nack');
    await (await redis()).send(['XADD', s, '*', 'body', 'again']);
    const input = await buildInput('redis_streams', { streams: [s], consumer_group: 'g', client_id: 'c1', commit_period: '20ms', auto_replay_nacks: false });
    try {
      await input.connect?.();
      const t = await readTx(input);
      t.batch[0]!.content = Buffer.from('changed by a processor');
      t.ack(new Error('output down'));
      const again = await readTx(input);
      assert.deepEqual(
        again.batch.map((m) => m.content.toString()),
        ['again'],
      );
      await new Promise((res) => setTimeout(res, 100));
      assert.equal(await pendingCount(s, 'g'), 1);
      again.ack();
    } finally {
      await input.close?.();
    }
    assert.equal(await pendingCount(s, 'g'), 0, 'the last acks are sent on close');
  });

  it('after a restart the same client_id reads its unacknowledged entries first, then new ones', async () => {
    const s = tempKey('stream-restart');
    const r = await redis();
    await r.send(['XADD', s, '*', 'body', 'first']);
    const conf = { streams: [s], consumer_group: 'g', client_id: 'c1', commit_period: '20ms', timeout: '100ms' };
    const stopped = await buildInput('redis_streams', conf);
    await stopped.connect?.();
    const t = await readTx(stopped);
    assert.deepEqual(
      t.batch.map((m) => m.content.toString()),
      ['first'],
    );
    // Not delivered when it stops: the entry stays pending under c1 (a crash leaves it so too).
    t.ack(new Error('not delivered'));
    await stopped.close?.();
    assert.equal(await pendingCount(s, 'g'), 1);
    await r.send(['XADD', s, '*', 'body', 'second']);
    const next = await buildInput('redis_streams', conf);
    try {
      await next.connect?.();
      const got: string[] = [];
      while (got.length < 2) {
        const t = await readTx(next);
        got.push(...t.batch.map((m) => m.content.toString()));
        t.ack();
      }
      assert.deepEqual(got, ['first', 'second']);
    } finally {
      await next.close?.();
    }
    assert.equal(await pendingCount(s, 'g'), 0);
  });

  it('start_from_oldest false starts a new group at the end; create_streams false needs the stream', async () => {
    const s = tempKey('stream-latest');
    await (await redis()).send(['XADD', s, '*', 'body', 'old']);
    const input = await buildInput('redis_streams', { streams: [s], consumer_group: 'g', start_from_oldest: false, timeout: '100ms' });
    try {
      await input.connect?.();
      const later = readTx(input);
      await new Promise((res) => setTimeout(res, 50));
      await (await redis()).send(['XADD', s, '*', 'body', 'new']);
      const t = await later;
      assert.deepEqual(
        t.batch.map((m) => m.content.toString()),
        ['new'],
      );
      t.ack();
    } finally {
      await input.close?.();
    }
    const missing = await buildInput('redis_streams', { streams: [tempKey('stream-missing')], consumer_group: 'g', create_streams: false });
    try {
      await assert.rejects(missing.connect!(), /creating group g for stream/);
    } finally {
      await missing.close?.();
    }
  });

  it('the stream and its group deleted under it (a Redis restarted empty): the group is made again and reading goes on', async () => {
    const s = tempKey('stream-nogroup');
    const r = await redis();
    await r.send(['XADD', s, '*', 'body', 'before']);
    const input = await buildInput('redis_streams', { streams: [s], consumer_group: 'g', client_id: 'c1', timeout: '50ms', commit_period: '20ms' });
    try {
      await input.connect?.();
      const t = await readTx(input);
      t.ack();
      await r.send(['DEL', s]);
      await assert.rejects(Promise.resolve(input.read()), /NOGROUP/);
      await input.connect?.();
      await r.send(['XADD', s, '*', 'body', 'after']);
      const again = await readTx(input);
      assert.deepEqual(
        again.batch.map((m) => m.content.toString()),
        ['after'],
      );
      again.ack();
    } finally {
      await input.close?.();
    }
  });
});
