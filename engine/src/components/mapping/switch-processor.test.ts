import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message, registerProcessor, f } from '@svc/engine';
import './index.js';
import { messages, processor, run, testContext, texts } from './test-context.js';

const tag = (t: string) => ({ mutation: `root.seen = (this.seen | []).append("${t}")` });
const seen = (m: Message) => (m.json() as { seen?: string[] }).seen ?? [];
const docs = (...ids: number[]) => ids.map((id) => new Message(JSON.stringify({ id })));

// A processor that turns each message into two new ones: for the order of created messages.
registerProcessor('mapping_test_twice', {
  summary: 'Test processor: replaces each message by two new copies.',
  config: f.object({}),
  factory: () => ({ process: (batch) => [batch.flatMap((m) => [new Message(m.text() + 'a'), new Message(m.text() + 'b')])] }),
});

describe('switch processor', () => {
  it('runs the processors of the first case whose check passes, and leaves unmatched messages alone', async () => {
    const p = await processor({
      switch: [
        { check: 'this.id < 2', processors: [tag('low')] },
        { check: 'this.id < 4', processors: [tag('mid')] },
      ],
    });
    const [out] = await run(p, docs(0, 1, 2, 3, 4, 5));
    assert.deepEqual(out!.map(seen), [['low'], ['low'], ['mid'], ['mid'], [], []]);
    assert.deepEqual(
      out!.map((m) => (m.json() as { id: number }).id),
      [0, 1, 2, 3, 4, 5],
    );
  });

  it('treats an empty check as always true', async () => {
    const p = await processor({ switch: [{ check: 'this.id == 0', processors: [tag('zero')] }, { processors: [tag('rest')] }] });
    const [out] = await run(p, docs(1, 0, 2));
    assert.deepEqual(out!.map(seen), [['rest'], ['zero'], ['rest']]);
  });

  it('keeps the original order when the cases interleave', async () => {
    const p = await processor({ switch: [{ check: 'this.id % 2 == 0', processors: [tag('even')] }, { processors: [tag('odd')] }] });
    const [out] = await run(p, docs(0, 1, 2, 3, 4));
    assert.deepEqual(
      out!.map((m) => `${(m.json() as { id: number }).id}:${seen(m)}`),
      ['0:even', '1:odd', '2:even', '3:odd', '4:even'],
    );
  });

  it('processes the messages of a case together, as one batch', async () => {
    const p = await processor({
      switch: [{ check: 'this.id % 2 == 0', processors: [{ mutation: 'root.size = batch_size()\nroot.index = batch_index()' }] }],
    });
    const [out] = await run(p, docs(0, 1, 2, 3, 4));
    assert.deepEqual(
      out!.map((m) => m.text()),
      ['{"id":0,"size":3,"index":0}', '{"id":1}', '{"id":2,"size":3,"index":1}', '{"id":3}', '{"id":4,"size":3,"index":2}'],
    );
  });

  it('falls through into the next case without its check', async () => {
    const p = await processor({
      switch: [
        { check: 'this.id == 0', processors: [tag('a')], fallthrough: true },
        { check: 'false', processors: [tag('b')] },
        { check: 'this.id == 1', processors: [tag('c')], fallthrough: true },
        { check: 'this.id == 2', processors: [tag('d')] },
      ],
    });
    const [out] = await run(p, docs(0, 1, 2, 3));
    assert.deepEqual(out!.map(seen), [['a', 'b'], ['c', 'd'], ['d'], []]);
  });

  it('flags a message whose check fails, does not test it further, and passes it on', async () => {
    const ctx = testContext();
    const p = await processor(
      {
        switch: [{ check: 'this.n > 1', processors: [tag('big')] }, { processors: [tag('other')] }],
      },
      ctx,
    );
    const [out] = await run(p, [new Message('{"n":5}'), new Message('{"n":"x"}'), new Message('not json'), new Message('{"n":0}')]);
    assert.deepEqual(texts(out!), [
      '{"n":5,"seen":["big"]}',
      '{"n":"x"}!cannot compare types string (from field `this.n`) and number (from number literal)',
      "not json!unable to reference message as structured (with 'this.n'): parse as json: invalid character 'o' in literal null (expecting 'u')",
      '{"n":0,"seen":["other"]}',
    ]);
    assert.equal(ctx.logger.lines.filter((l) => l.level === 'ERROR' && l.msg.startsWith('Failed to test case 0: ')).length, 2);
  });

  it('flags a message whose check is not a boolean', async () => {
    const p = await processor({ switch: [{ check: 'this.n', processors: [tag('x')] }] });
    const [out] = await run(p, [new Message('{"n":5}')]);
    assert.equal(out![0]!.error, 'expected bool value, got number (5)');
    assert.deepEqual(seen(out![0]!), []);
  });

  it('drops messages its processors filter, and returns nothing when all are', async () => {
    const p = await processor({ switch: [{ check: 'this.id > 0', processors: [{ mapping: 'root = deleted()' }] }] });
    const out = await run(p, docs(0, 1, 2));
    assert.deepEqual(out.map(texts), [['{"id":0}']]);
    assert.deepEqual(await run(p, docs(1, 2)), []);
  });

  it('places messages its processors created after the message before them', async () => {
    const p = await processor({ switch: [{ check: 'content() == "b"', processors: [{ mapping_test_twice: {} }] }] });
    const [out] = await run(p, messages('a', 'b', 'c'));
    assert.deepEqual(texts(out!), ['a', 'ba', 'bb', 'c']);
  });

  it('flags every message of a case whose processor throws', async () => {
    registerProcessor('mapping_test_throw', {
      summary: 'Test processor: throws.',
      config: f.object({}),
      factory: () => ({
        process: () => {
          throw new Error('kaput (test)');
        },
      }),
    });
    const p = await processor({ switch: [{ check: 'this.id > 0', processors: [{ mapping_test_throw: {} }, tag('after')] }] });
    const [out] = await run(p, docs(0, 1));
    assert.deepEqual(texts(out!), ['{"id":0}', '{"id":1,"seen":["after"]}!kaput (test)']);
  });
});
