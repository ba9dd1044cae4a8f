import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message, f, registerProcessor } from '@svc/engine';
import './index.js';
import { processor, run, texts } from './test-context.js';

const docs = (...ns: unknown[]) => ns.map((n) => new Message(JSON.stringify({ n })));

// Records the size of every batch it is given, and answers asynchronously.
const sizes: number[] = [];
registerProcessor('mapping_test_async_sizes', {
  summary: 'Test processor: records batch sizes, resolves later.',
  config: f.object({}),
  factory: () => ({
    process: async (batch) => {
      sizes.push(batch.length);
      await new Promise((r) => setImmediate(r));
      return [batch];
    },
  }),
});

describe('try processor', () => {
  it('stops applying processors to a message once one fails on it; the others go on', async () => {
    const p = await processor({
      try: [{ mutation: 'root.doubled = this.n * 2' }, { mutation: 'root.after = true' }],
    });
    const [out] = await run(p, docs(1, 'x', 3));
    assert.deepEqual(texts(out!), [
      '{"n":1,"doubled":2,"after":true}',
      '{"n":"x"}!failed assignment (line 1): cannot multiply types string (from field `this.n`) and number (from number literal)',
      '{"n":3,"doubled":6,"after":true}',
    ]);
  });

  it('skips messages that arrive already flagged', async () => {
    const p = await processor({ try: [{ mutation: 'root.touched = true' }] });
    const flagged = new Message('{"n":1}');
    flagged.setError('earlier failure');
    const [out] = await run(p, [flagged, new Message('{"n":2}')]);
    assert.deepEqual(texts(out!), ['{"n":1}!earlier failure', '{"n":2,"touched":true}']);
    const all = [new Message('a'), new Message('b')];
    all.forEach((m) => m.setError('e'));
    assert.deepEqual(await run(p, all), [all]);
  });

  it('applies its processors to each message as a batch of its own, one after the other', async () => {
    sizes.length = 0;
    const p = await processor({ try: [{ mapping_test_async_sizes: {} }, { mutation: 'root.size = batch_size()' }] });
    const [out] = await run(p, docs(1, 2, 3));
    assert.deepEqual(sizes, [1, 1, 1]);
    assert.deepEqual(texts(out!), ['{"n":1,"size":1}', '{"n":2,"size":1}', '{"n":3,"size":1}']);
  });

  it('drops messages its processors filter', async () => {
    const p = await processor({ try: [{ mapping: 'root = if this.n > 1 { deleted() } else { this }' }] });
    assert.deepEqual((await run(p, docs(1, 2))).map(texts), [['{"n":1}']]);
    assert.deepEqual(await run(p, docs(2, 3)), []);
  });
});

describe('catch processor', () => {
  it('runs its processors on flagged messages only, then clears the flag', async () => {
    const p = await processor({
      catch: [{ mapping: 'root = {"failed": content().string(), "why": error()}' }, { mutation: 'root.handled = true' }],
    });
    const bad = new Message('oops');
    bad.setError('parse failed');
    const good = new Message('{"ok":1}');
    const [out] = await run(p, [good, bad]);
    assert.deepEqual(texts(out!), ['{"ok":1}', '{"failed":"oops","why":"parse failed","handled":true}']);
    assert.equal(out![1]!.error, undefined, 'the flag is cleared');
    assert.equal(out![0], good, 'unflagged messages pass untouched');
  });

  it('clears the flag even when its processors fail again, and with no processors at all', async () => {
    const p = await processor({ catch: [{ mapping: 'root = throw("again")' }] });
    const m = new Message('x');
    m.setError('first');
    const [out] = await run(p, [m]);
    assert.deepEqual(texts(out!), ['x']);
    const empty = await processor({ catch: [] });
    const n = new Message('y');
    n.setError('e');
    assert.deepEqual((await run(empty, [n])).map(texts), [['y']]);
  });

  it('passes a batch without failures through as it is', async () => {
    const p = await processor({ catch: [{ mapping: 'root = "changed"' }] });
    const batch = [new Message('a'), new Message('b')];
    assert.deepEqual(await run(p, batch), [batch]);
    assert.deepEqual(texts(batch), ['a', 'b']);
  });

  it('handles what a try left flagged (try then catch)', async () => {
    const t = await processor({ try: [{ mapping: 'root = this.n.number()' }, { mapping: 'root = this + 1' }] });
    const c = await processor({ catch: [{ mapping: 'root = -1' }] });
    const [afterTry] = await run(t, [new Message('{"n":"4"}'), new Message('{"n":"four"}')]);
    const [out] = await run(c, afterTry!);
    assert.deepEqual(texts(out!), ['5', '-1']);
  });
});
