/**
 * The at-least-once rule of the wrapping outputs, at the sink level: a transaction is acked only
 * once an output confirmed its messages (drop_on's configured drops excepted), and nacked when
 * none did. The children here are sink doubles that record what they were given and answer as
 * told.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RE2JS } from 're2js';
import { BatchError } from '../errors.js';
import { Message, type Batch } from '../message/message.js';
import { silentLogger } from '../observability/logger.js';
import { DropOnOutput } from './drop-on-output.js';
import { FallbackOutput } from './fallback-output.js';
import { RejectErroredOutput } from './reject-errored-output.js';
import { GAVE_UP, RetryOutput } from './retry-output.js';
import type { Sink } from './sink.js';

/** A sink double: records each batch's contents and answers with `answer(n)` for the n-th send. */
function sink(answer: (n: number, batch: Batch) => Error | undefined | 'never'): Sink & { got: string[][] } {
  const got: string[][] = [];
  return {
    got,
    send(batch, done) {
      got.push(batch.map((m) => m.content.toString()));
      const a = answer(got.length, batch);
      if (a !== 'never') queueMicrotask(() => done(a));
    },
    close: () => Promise.resolve(),
  };
}

const batch = (...texts: string[]) => texts.map((t) => new Message(Buffer.from(t)));
const outcome = (s: Sink, b: Batch) => new Promise<Error | undefined>((resolve) => void s.send(b, resolve));

describe('wrapping outputs keep at-least-once', () => {
  it('fallback: acked when a later tier delivers, nacked when every tier failed, only failed messages go on', async () => {
    const first = sink((_, b) => new BatchError(b.length, 'first down').failed(1, new Error('b failed')));
    const second = sink(() => undefined);
    const ok = await outcome(new FallbackOutput([first, second]), batch('a', 'b', 'c'));
    assert.equal(ok, undefined);
    assert.deepEqual(second.got, [['b']]);
    const allDown = new FallbackOutput([sink(() => new Error('one')), sink(() => new Error('two'))]);
    const err = await outcome(allDown, batch('x'));
    assert.equal(err?.message, 'two');
  });

  it('fallback: the last tier failing on some messages names the original ones', async () => {
    const f = new FallbackOutput([sink((_, b) => new BatchError(b.length, 'x').failed(2, new Error('c'))), sink(() => new Error('dead letter down'))]);
    const err = await outcome(f, batch('a', 'b', 'c'));
    assert.ok(err instanceof BatchError);
    assert.deepEqual(err.indexes(), [2]);
  });

  it('reject_errored: errored messages are nacked by index, the others written and confirmed', async () => {
    const child = sink(() => undefined);
    const b = batch('ok', 'bad', 'ok2');
    b[1]!.error = 'boom';
    const err = await outcome(new RejectErroredOutput(child), b);
    assert.deepEqual(child.got, [['ok', 'ok2']]);
    assert.ok(err instanceof BatchError);
    assert.deepEqual(err.indexes(), [1]);
    assert.equal(err.errorAt(1)?.message, 'rejecting due to failed processing: boom');
  });

  it('retry: acked once the child confirms; gives up after max_retries with a nack', async () => {
    const flaky = sink((n) => (n < 3 ? new Error('flaky') : undefined));
    const policy = { maxRetries: 0, initialMs: 1, maxMs: 2, maxElapsedMs: 0 };
    assert.equal(await outcome(new RetryOutput(flaky, policy, silentLogger), batch('m')), undefined);
    assert.equal(flaky.got.length, 3);
    const down = sink(() => new Error('down'));
    const err = await outcome(new RetryOutput(down, { ...policy, maxRetries: 2 }, silentLogger), batch('m'));
    assert.equal(err?.message, GAVE_UP);
    assert.equal(down.got.length, 3);
  });

  it('drop_on: acks only the errors it was told to drop; back_pressure gives up on a write that never ends', async () => {
    const matching = new DropOnOutput(
      sink(() => new Error('429 too many')),
      false,
      [RE2JS.compile('^429')],
      0,
      silentLogger,
    );
    assert.equal(await outcome(matching, batch('m')), undefined);
    const other = new DropOnOutput(
      sink(() => new Error('500 broken')),
      false,
      [RE2JS.compile('^429')],
      0,
      silentLogger,
    );
    assert.equal((await outcome(other, batch('m')))?.message, '500 broken');
    const stuck = new DropOnOutput(
      sink(() => 'never'),
      false,
      [],
      20,
      silentLogger,
    );
    assert.equal((await outcome(stuck, batch('m')))?.message, 'experienced back pressure beyond: 20ms');
    const dropped = new DropOnOutput(
      sink(() => 'never'),
      true,
      [],
      20,
      silentLogger,
    );
    assert.equal(await outcome(dropped, batch('m')), undefined);
  });
});
