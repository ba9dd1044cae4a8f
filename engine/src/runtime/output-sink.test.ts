import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchError, NotConnectedError } from '../errors.js';
import { Message, type Batch } from '../message/message.js';
import { RecordingLogger } from '../plugin/testing.js';
import type { Output } from '../plugin/types.js';
import { OutputSink } from './output-sink.js';
import { StatusBoard } from './status.js';

/** An output that records every write (the texts it was given) and fails as `fail` says. */
class ScriptedOutput implements Output {
  readonly writes: string[][] = [];
  readonly delivered: string[] = [];
  constructor(private readonly fail: (texts: string[], attempt: number) => Error | BatchError | undefined) {}
  async write(batch: Batch): Promise<void> {
    const texts = batch.map((m) => m.text());
    this.writes.push(texts);
    const err = this.fail(texts, this.writes.length);
    if (err instanceof BatchError) {
      for (let i = 0; i < texts.length; i++) if (err.errorAt(i) === undefined) this.delivered.push(texts[i]!);
    }
    if (err) throw err;
    this.delivered.push(...texts);
  }
}

function sinkFor(output: Output, maxInFlight = 1): OutputSink {
  const status = new StatusBoard().track('root.output', 'output', 'scripted');
  return new OutputSink(output, [], undefined, maxInFlight, new RecordingLogger(), status);
}

/** Sends one batch and resolves with what its ack said. */
async function send(sink: OutputSink, texts: string[]): Promise<Error | undefined> {
  let settle!: (e: Error | undefined) => void;
  const acked = new Promise<Error | undefined>((r) => (settle = r));
  await sink.send(
    texts.map((t) => new Message(t)),
    (err) => settle(err),
  );
  return acked;
}

const batchOf = (n: number) => Array.from({ length: n }, (_, i) => `m${i}`);

describe('OutputSink and BatchError', () => {
  it('retries only the messages a BatchError names, until they are delivered, then acks once', async () => {
    // m2 and m5 fail on their first two tries; everything else goes through the first time.
    const tries = new Map<string, number>();
    const output = new ScriptedOutput((texts) => {
      let err: BatchError | undefined;
      texts.forEach((t, i) => {
        const n = (tries.get(t) ?? 0) + 1;
        tries.set(t, n);
        if ((t === 'm2' || t === 'm5') && n <= 2) (err ??= new BatchError(texts.length, 'some failed')).failed(i, new Error(`${t} refused`));
      });
      return err;
    });
    const sink = sinkFor(output);
    assert.equal(await send(sink, batchOf(8)), undefined);
    assert.deepEqual(output.writes, [batchOf(8), ['m2', 'm5'], ['m2', 'm5']]);
    assert.deepEqual([...output.delivered].sort(), batchOf(8).sort(), 'each message delivered exactly once');
    await sink.close();
  });

  it('nacks when the first attempt failed every message (nothing was delivered)', async () => {
    const output = new ScriptedOutput((texts) => {
      const err = new BatchError(texts.length, 'all failed');
      texts.forEach((_, i) => err.failed(i, new Error('no')));
      return err;
    });
    const sink = sinkFor(output);
    const err = await send(sink, batchOf(3));
    assert.ok(err instanceof BatchError);
    assert.equal(output.writes.length, 1);
    await sink.close();
  });

  it('treats a BatchError with no index marked, and any other error, as the whole batch failing', async () => {
    const plain = sinkFor(new ScriptedOutput(() => new Error('down')));
    assert.equal((await send(plain, batchOf(2)))?.message, 'down');
    await plain.close();
    const unmarked = new ScriptedOutput((texts) => new BatchError(texts.length, 'no index'));
    const sink = sinkFor(unmarked);
    assert.equal((await send(sink, batchOf(2)))?.message, 'no index');
    assert.equal(unmarked.writes.length, 1);
    await sink.close();
  });

  it('keeps retrying the remaining messages after a later attempt fails them all (nothing resent)', async () => {
    const output = new ScriptedOutput((texts, attempt) => {
      if (attempt === 1) return new BatchError(texts.length, 'partial').failed(1, new Error('m1 refused'));
      if (attempt <= 3) return new BatchError(texts.length, 'still down').failed(0, new Error('m1 refused'));
      return undefined;
    });
    const sink = sinkFor(output);
    assert.equal(await send(sink, batchOf(3)), undefined);
    assert.deepEqual(output.writes, [batchOf(3), ['m1'], ['m1'], ['m1']]);
    await sink.close();
  });

  it('reconnects on NotConnectedError in the middle of a partial retry and sends only what is left', async () => {
    let connects = 0;
    const output = new ScriptedOutput((texts, attempt) => {
      if (attempt === 1) return new BatchError(texts.length, 'partial').failed(0, new Error('m0 refused'));
      if (attempt === 2) return new NotConnectedError('lost');
      return undefined;
    });
    (output as Output).connect = async () => void connects++;
    const sink = sinkFor(output);
    await sink.connect();
    assert.equal(await send(sink, batchOf(2)), undefined);
    assert.deepEqual(output.writes, [batchOf(2), ['m0'], ['m0']]);
    assert.equal(connects, 2);
    await sink.close();
  });

  it('nacks a partly delivered batch still being retried when the output closes', async () => {
    const output = new ScriptedOutput((texts) => new BatchError(texts.length, 'partial').failed(texts.length - 1, new Error('last refused')));
    const sink = sinkFor(output);
    const acked = send(sink, batchOf(3));
    // Wait (bounded) until the failed message was retried at least once, then close.
    for (let i = 0; i < 200 && output.writes.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(output.writes.length >= 2);
    await sink.close();
    assert.equal((await acked)?.message, 'partial');
    assert.deepEqual(
      output.writes.slice(1),
      output.writes.slice(1).map(() => ['m2']),
    );
  });

  it('BatchError refuses an index outside the batch (it would name another message)', () => {
    assert.throws(() => new BatchError(2, 'x').failed(2, new Error('y')), RangeError);
    assert.deepEqual(new BatchError(4, 'x').failed(3, new Error('a')).failed(1, new Error('b')).indexes(), [1, 3]);
  });
});

describe('OutputSink and a peer that stays away', () => {
  it('backs off between reconnects when the output connects at once but every write says it is not connected (no spin: timers still run)', async () => {
    let away = true;
    const output = new ScriptedOutput(() => (away ? new NotConnectedError('the peer is away') : undefined));
    const sink = sinkFor(output);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    setTimeout(() => (away = false), 1000);
    assert.equal(await send(sink, ['m']), undefined);
    clearInterval(timer);
    assert.ok(ticks >= 15, `timers ran while the output was away (${ticks} ticks)`);
    assert.ok(output.writes.length >= 3 && output.writes.length <= 15, `${output.writes.length} writes in about a second: backed off, not spinning`);
    assert.deepEqual(output.delivered, ['m']);
  });
});
