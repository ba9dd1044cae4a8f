import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message } from '@svc/engine';
import './index.js';
import { messages, processor, run, texts } from './test-context.js';

describe('mutation processor', () => {
  it('edits the document in place and keeps the other fields', async () => {
    const p = await processor({ mutation: 'root.b = this.a + 1\nroot.gone = deleted()' });
    const [out] = await run(p, messages('{"a":1,"keep":"x","gone":true}'));
    assert.deepEqual(JSON.parse(out![0]!.text()), { a: 1, keep: 'x', b: 2 });
  });

  it('assigns metadata and keeps the existing keys', async () => {
    const p = await processor({ mutation: 'meta kind = "order"' });
    const m = new Message('{"a":1}', { id: '7' });
    const [out] = await run(p, [m]);
    assert.equal(out![0]!.text(), '{"a":1}');
    assert.deepEqual(out![0]!.metaObject(), { id: '7', kind: 'order' });
  });

  it('filters a message whose root is deleted', async () => {
    const p = await processor({ mutation: 'root = if this.skip == true { deleted() }' });
    const out = await run(p, messages('{"skip":true}', '{"skip":false}'));
    assert.deepEqual(out.map(texts), [['{"skip":false}']]);
  });

  it('leaves a message it fails on unchanged, edits of earlier lines included, and flags it', async () => {
    const p = await processor({ mutation: 'root.first = "edited"\nroot.sum = this.a + this.b' });
    const m = new Message('{"a":1,"b":"two"}');
    m.json(); // parsed and cached: the mapping edits that very object
    const [out] = await run(p, [m]);
    assert.equal(out![0]!.text(), '{"a":1,"b":"two"}');
    assert.deepEqual(out![0]!.json(), { a: 1, b: 'two' }, 'the parsed view matches the bytes');
    assert.match(out![0]!.error!, /^failed assignment \(line 2\): cannot add types number \(from field `this\.a`\) and string \(from field `this\.b`\)/);
  });

  it('restores a document an earlier step left as JSON only', async () => {
    const p = await processor({ mutation: 'root.x = 1\nroot.y = throw("stop")' });
    const m = new Message();
    m.setJson({ a: 1 });
    const [out] = await run(p, [m]);
    assert.deepEqual(out![0]!.json(), { a: 1 });
    assert.equal(out![0]!.error, 'failed assignment (line 2): stop');
  });
});
