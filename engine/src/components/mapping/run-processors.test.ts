import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message, answerMessage, isAnswered, type Batch, type Processor } from '@svc/engine';
import { runPerMessage, runProcessors } from './run-processors.js';
import { messages, texts } from './test-context.js';

const append = (s: string): Processor => ({
  process: (batch) => {
    for (const m of batch) m.content = Buffer.from(m.text() + s);
    return [batch];
  },
});
const later = (p: Processor): Processor => ({ process: async (b) => p.process(b) });
const splitter: Processor = { process: (batch) => batch.map((m) => [m]) };
const all = (r: Batch[] | Promise<Batch[]>) => Promise.resolve(r).then((bs) => bs.map(texts));

describe('runProcessors (nested chains)', () => {
  it('runs processors in order over every batch, synchronously while they are', () => {
    const r = runProcessors([append('1'), splitter, append('2')], messages('a', 'b'));
    assert.ok(Array.isArray(r), 'no promise when no processor is async');
    assert.deepEqual(r.map(texts), [['a12'], ['b12']]);
  });

  it('goes on asynchronously after an async processor, in the same order', async () => {
    assert.deepEqual(await all(runProcessors([splitter, later(append('1')), append('2')], messages('a', 'b', 'c'))), [['a12'], ['b12'], ['c12']]);
  });

  it('flags the batch a processor throws on (or rejects) and passes it on', async () => {
    const throws: Processor = {
      process: () => {
        throw new Error('bad (test)');
      },
    };
    const rejects: Processor = { process: () => Promise.reject(new Error('worse (test)')) };
    assert.deepEqual(await all(runProcessors([throws, append('!')], messages('a'))), [['a!!bad (test)']]);
    assert.deepEqual(await all(runProcessors([rejects], messages('a'))), [['a!worse (test)']]);
  });

  it('stops at a processor that filters everything', () => {
    let called = false;
    const spy: Processor = { process: (b) => ((called = true), [b]) };
    assert.deepEqual(runProcessors([{ process: () => [] }, spy], messages('a')), []);
    assert.equal(called, false);
  });

  it('lets an answered message skip the remaining processors and hands it back last', () => {
    const reply: Processor = {
      process: (batch) => {
        answerMessage(batch[0]!, { status: 200 });
        return [batch];
      },
    };
    const r = runProcessors([reply, append('+')], messages('a', 'b')) as Batch[];
    assert.deepEqual(r.map(texts), [['b+'], ['a']]);
    assert.equal(isAnswered(r[1]![0]!), true);
  });

  it('applies processors only to the messages `only` selects; the others skip unchanged', () => {
    const batch = messages('a', 'b', 'c');
    batch[1]!.setError('e');
    const r = runProcessors([append('1')], batch, (m) => m.error === undefined) as Batch[];
    assert.deepEqual(r.map(texts), [['a1', 'c1'], ['b!e']]);
  });

  it('runPerMessage runs each message on its own, in order, and keeps unselected ones in place', async () => {
    const sizes: number[] = [];
    const size: Processor = { process: (b) => (sizes.push(b.length), [b]) };
    const batch = [new Message('a'), new Message('b'), new Message('c')];
    batch[1]!.setError('e');
    const r = await runPerMessage([size, later(append('1'))], batch, (m) => m.error === undefined);
    assert.deepEqual(texts(r), ['a1', 'b!e', 'c1']);
    assert.deepEqual(sizes, [1, 1]);
  });
});
