import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message, registry } from '@svc/engine';
import './index.js';
import { messages, processor, run, testContext, texts } from './test-context.js';

describe('mapping processor', () => {
  it('builds a new document from root', async () => {
    const p = await processor({ mapping: 'root.id = this.user.id\nroot.n = this.n + 1' });
    const out = await run(p, messages('{"user":{"id":"a"},"n":1,"other":true}', '{"user":{"id":"b"},"n":2}'));
    assert.deepEqual(out.map(texts), [['{"id":"a","n":2}', '{"id":"b","n":3}']]);
  });

  it('filters a message whose root is deleted, and the whole batch when all are', async () => {
    const p = await processor({ mapping: 'root = if this.drop { deleted() } else { this }' });
    const out = await run(p, messages('{"drop":false,"i":0}', '{"drop":true,"i":1}', '{"drop":false,"i":2}'));
    assert.deepEqual(out.map(texts), [['{"drop":false,"i":0}', '{"drop":false,"i":2}']]);
    assert.deepEqual(await run(p, messages('{"drop":true}', '{"drop":true}')), []);
  });

  it('flags a message it fails on with a readable error and leaves it unchanged', async () => {
    const p = await processor({ mapping: 'meta seen = "yes"\nroot.total = this.price * 2' });
    const bad = new Message('{"price":"ten"}', { k: 'v' });
    const [out] = await run(p, [new Message('{"price":3}'), bad]);
    assert.equal(out!.length, 2, 'a failed message is not filtered');
    assert.equal(out![0]!.text(), '{"total":6}');
    assert.equal(out![0]!.error, undefined);
    assert.equal(bad.text(), '{"price":"ten"}');
    assert.deepEqual(bad.metaObject(), { k: 'v' }, 'metadata is unchanged too');
    assert.match(bad.error!, /^failed assignment \(line 2\): cannot multiply types string \(from field `this\.price`\) and number/);
  });

  it('flags a message whose content is not JSON when the mapping reads this', async () => {
    const p = await processor({ mapping: 'root = this.a' });
    const [out] = await run(p, messages('not json'));
    assert.equal(out![0]!.text(), 'not json');
    assert.match(out![0]!.error!, /parse as json/);
  });

  it('assigns metadata and keeps the content when root is never assigned', async () => {
    const p = await processor({ mapping: 'meta topic = "orders-" + this.region\nmeta old = deleted()' });
    const m = new Message('{"region":"eu"}', { old: 'x', kept: 'y' });
    const [out] = await run(p, [m]);
    assert.equal(out![0]!.text(), '{"region":"eu"}');
    assert.deepEqual(out![0]!.metaObject(), { kept: 'y', topic: 'orders-eu' });
  });

  it('writes a string root as raw bytes and sees the batch (batch_index, batch_size)', async () => {
    const p = await processor({ mapping: 'root = content().string().uppercase() + " " + batch_index().string() + "/" + batch_size().string()' });
    const [out] = await run(p, messages('a', 'b'));
    assert.deepEqual(texts(out!), ['A 0/2', 'B 1/2']);
  });

  it('is also registered as bloblang, with the same spec', async () => {
    assert.equal(registry().get('processor', 'bloblang')!.spec, registry().get('processor', 'mapping')!.spec);
    const p = await processor({ bloblang: 'root = this.a' });
    assert.deepEqual((await run(p, messages('{"a":[1]}'))).map(texts), [['[1]']]);
  });

  it('flags a failed message without a log line per message (the runtime logs failures, throttled)', async () => {
    const ctx = testContext();
    const p = await processor({ mapping: 'root = throw("nope")' }, ctx);
    const [out] = await run(p, messages('{}', '{}'));
    assert.deepEqual(
      out!.map((m) => m.error),
      ['failed assignment (line 1): nope', 'failed assignment (line 1): nope'],
    );
    assert.deepEqual(ctx.logger.lines, []);
  });

  it('refuses a mapping that does not compile, naming the position', async () => {
    await assert.rejects(processor({ mapping: 'root = this.' }), /line 1 char \d+/);
  });
});
