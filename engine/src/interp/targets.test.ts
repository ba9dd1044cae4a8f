/**
 * What a workflow orders its branches by (mappingTargets) and how a branch maps its result back
 * (Mapping.applyOnto, Benthos' MapOnto).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message } from '../message/message.js';
import { compileMapping, mappingTargets } from './index.js';

describe('mappingTargets', () => {
  it('gives the paths a mapping reads and assigns, `this` inside lambdas and .(...) not counted', () => {
    const t = mappingTargets(`
root.fooid = this.foo.id
meta kind = @type.or(metadata("alt"))
root.n = json("a.b") + this.list.map_each(x -> x.size).sum()
root.m = this.obj.(o -> o.inner)
if this.flag { root.deep.x = 1 }
meta = deleted()
`);
    assert.deepEqual(t.provided, [['path', 'fooid'], ['metadata', 'kind'], ['path', 'n'], ['path', 'm'], ['path', 'deep', 'x'], ['metadata']]);
    assert.deepEqual(t.used, [
      ['path', 'foo', 'id'],
      ['metadata', 'type'],
      ['metadata', 'alt'],
      ['path', 'a', 'b'],
      ['path', 'list'],
      ['path', 'obj'],
      ['path', 'flag'],
    ]);
  });
});

describe('Mapping.applyOnto', () => {
  it('reads this, content() and metadata() from the source, root and @ from the target, writes onto the target', () => {
    const target = new Message('{"id":1}', { origin: 'o' });
    const result = new Message('{"n":5}', { inner: 'i' });
    const m = compileMapping('root.got = this.n\nroot.raw = content().string()\nmeta both = metadata("inner") + @origin');
    assert.equal(m.applyOnto(target, { batch: [result], index: 0 }), true);
    assert.deepEqual(target.json(), { id: 1, got: 5, raw: '{"n":5}' });
    assert.equal(target.getMeta('both'), 'io');
    assert.deepEqual(result.json(), { n: 5 }, 'the source is left as it was');
  });

  it('starts an empty target from nothing (no parse error) and leaves it when the root is deleted', () => {
    const empty = new Message('');
    compileMapping('meta k = "v"').applyOnto(empty, { batch: [new Message('{}')], index: 0 });
    assert.equal(empty.content.length, 0);
    assert.equal(empty.getMeta('k'), 'v');
    const kept = new Message('{"a":1}');
    assert.equal(compileMapping('root = deleted()').applyOnto(kept, { batch: [new Message('{}')], index: 0 }), false);
    assert.deepEqual(kept.json(), { a: 1 });
  });
});
