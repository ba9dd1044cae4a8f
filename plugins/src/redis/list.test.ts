/**
 * `redis_list` against the real Redis: the output pushes each message (bytes as they are) onto the
 * list its key names, in order; the input pops them back in that order, as batches, and a stop
 * with elements just popped puts them back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { END_OF_INPUT, Message, type Transaction } from '@svc/engine';
import { buildInput, buildOutput, listOf, redis, tempKey } from './test-support.js';

describe('redis_list (real Redis)', () => {
  it('the output pushes each message onto the list of its interpolated key, in order, bytes untouched', async () => {
    const a = tempKey('list-a');
    const b = tempKey('list-b');
    const out = await buildOutput('redis_list', { key: '${! meta("k") }' });
    try {
      const bytes = Buffer.from([0, 255, 10, 13, 128]);
      await out.write([new Message('1', { k: a }), new Message('2', { k: a }), new Message('3', { k: b }), new Message(bytes, { k: a })]);
      assert.deepEqual(await listOf(b), ['3']);
      const raw = await (await redis()).send<Buffer[]>(['LRANGE', a, '0', '-1']);
      assert.deepEqual(
        raw.map((x) => x.toString('hex')),
        ['31', '32', bytes.toString('hex')],
      );
    } finally {
      await out.close?.();
    }
  });

  it('text and bytes alike arrive byte for byte: a BOM, multi-byte UTF-8, CESU surrogates, a large value', async () => {
    const k = tempKey('list-bytes');
    const out = await buildOutput('redis_list', { key: k });
    const values = [
      Buffer.from('\uFEFFbom first', 'utf8'),
      Buffer.from('é 中 😀', 'utf8'),
      Buffer.from([0xed, 0xa0, 0x80, 0x41]),
      Buffer.from([0xc3]),
      Buffer.alloc(0),
      Buffer.from('ü'.repeat(40_000), 'utf8'),
      Buffer.concat([Buffer.from('x'.repeat(20_000)), Buffer.from([0xff])]),
    ];
    try {
      await out.write(values.map((v) => new Message(v)));
      const raw = await (await redis()).send<Buffer[]>(['LRANGE', k, '0', '-1']);
      assert.deepEqual(
        raw.map((x) => x.toString('hex')),
        values.map((v) => v.toString('hex')),
      );
    } finally {
      await out.close?.();
    }
  });

  it('lpush pushes onto the head; a key holding another type fails only its message', async () => {
    const k = tempKey('list-lpush');
    const notList = tempKey('list-string');
    await (await redis()).send(['SET', notList, 'x']);
    const out = await buildOutput('redis_list', { key: '${! meta("k") }', command: 'lpush' });
    try {
      await out.write([new Message('1', { k }), new Message('2', { k })]);
      assert.deepEqual(await listOf(k), ['2', '1']);
      const err = await out.write([new Message('3', { k }), new Message('4', { k: notList })]).then(
        () => undefined,
        (e: unknown) => e as { failedCount: number; name: string },
      );
      assert.equal(err?.name, 'BatchError');
      assert.equal(err?.failedCount, 1);
      assert.deepEqual(await listOf(k), ['3', '2', '1']);
    } finally {
      await out.close?.();
    }
  });

  it('the input pops what waits as batches in list order, then waits for more (blpop and brpop)', async () => {
    const k = tempKey('list-in');
    const r = await redis();
    await r.send(['RPUSH', k, ...Array.from({ length: 150 }, (_, i) => String(i))]);
    const input = await buildInput('redis_list', { key: k, timeout: '200ms' });
    try {
      const got: string[] = [];
      while (got.length < 150) {
        const t = (await input.read()) as Transaction;
        got.push(...t.batch.map((m) => m.content.toString()));
        t.ack();
      }
      assert.deepEqual(
        got,
        Array.from({ length: 150 }, (_, i) => String(i)),
      );
      const later = input.read() as Promise<Transaction>;
      await new Promise((res) => setTimeout(res, 300));
      await r.send(['RPUSH', k, 'late']);
      assert.deepEqual(
        (await later).batch.map((m) => m.content.toString()),
        ['late'],
      );
    } finally {
      await input.close?.();
    }
    const tail = await buildInput('redis_list', { key: k, command: 'brpop', timeout: '200ms' });
    try {
      await r.send(['RPUSH', k, 'a', 'b']);
      const t = (await tail.read()) as Transaction;
      assert.deepEqual(
        t.batch.map((m) => m.content.toString()),
        ['b', 'a'],
      );
    } finally {
      await tail.close?.();
    }
  });

  it('stopping while a pop waits: what it popped goes back to the list, nothing is lost', async () => {
    const k = tempKey('list-stop');
    const input = await buildInput('redis_list', { key: k, timeout: '1s' });
    const pending = input.read();
    await new Promise((res) => setTimeout(res, 100));
    const closing = input.close!();
    await (await redis()).send(['RPUSH', k, 'x']);
    await closing;
    assert.equal(await pending, END_OF_INPUT);
    assert.deepEqual(await listOf(k), ['x']);
  });
});
