/**
 * The `mongodb` processor and cache against FerretDB. Processor: writes leave the messages as they
 * were and a refused write flags only its message; find-one replaces a message with the document
 * found (canonical or relaxed extended JSON) and flags one that finds nothing. Cache: get, set,
 * add (refused for a key stored, without a unique index), delete.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message } from '@svc/engine';
import { DATABASE, cache, docsOf, mongo, processor, tempCollection } from './test-support.js';

describe('mongodb processor', () => {
  it('insert-one stores each message and leaves it as it was; a refused write flags only its message', async () => {
    const c = tempCollection('proc_ins');
    const p = await processor({ collection: c, document_map: 'root._id = this.id\nroot.v = this.v' });
    const batch = ['{"id":1,"v":"a"}', '{"id":1,"v":"b"}', '{"id":2,"v":"c"}'].map((m) => new Message(m));
    const [out] = await p.process(batch);
    await p.close!();
    assert.deepEqual(
      out!.map((m) => m.content.toString()),
      ['{"id":1,"v":"a"}', '{"id":1,"v":"b"}', '{"id":2,"v":"c"}'],
    );
    assert.deepEqual(
      out!.map((m) => m.error !== undefined),
      [false, true, false],
    );
    assert.match(out![1]!.error!, /duplicate key/);
    assert.deepEqual(await docsOf(c), [
      { _id: 1, v: 'a' },
      { _id: 2, v: 'c' },
    ]);
  });

  it('find-one: each message becomes the document its filter finds; one that finds nothing is flagged and kept', async () => {
    const c = tempCollection('proc_find');
    await (
      await mongo()
    )
      .db(DATABASE)
      .collection<{ _id: number; name: string; n: number }>(c)
      .insertMany([
        { _id: 1, name: 'one', n: 1 },
        { _id: 2, name: 'two', n: 2 },
      ]);
    const canonical = await processor({ collection: c, operation: 'find-one', filter_map: 'root._id = this.id' });
    const [out] = await canonical.process(['{"id":2}', '{"id":7}'].map((m) => new Message(m)));
    await canonical.close!();
    assert.equal(out![0]!.content.toString(), '{"_id":{"$numberInt":"2"},"name":"two","n":{"$numberInt":"2"}}');
    assert.equal(out![1]!.content.toString(), '{"id":7}');
    assert.match(out![1]!.error!, /no documents in result/);
    const relaxed = await processor({ collection: c, operation: 'find-one', json_marshal_mode: 'relaxed', filter_map: 'root.name = this.name' });
    const [r] = await relaxed.process([new Message('{"name":"one"}')]);
    await relaxed.close!();
    assert.deepEqual(r![0]!.json(), { _id: 1, name: 'one', n: 1 });
  });

  it('refuses what Benthos refuses: find-one without filter_map, a document_map for find-one', async () => {
    await assert.rejects(processor({ collection: 'x', operation: 'find-one' }), /filter_map must be specified/);
    await assert.rejects(
      processor({ collection: 'x', operation: 'find-one', filter_map: 'root = this', document_map: 'root = this' }),
      /document_map not allowed/,
    );
  });
});

describe('mongodb cache', () => {
  it('gets, sets, adds only a missing key (no unique index needed), deletes', async () => {
    const c = tempCollection('cache');
    const kv = await cache({ collection: c, key_field: 'key', value_field: 'value' });
    try {
      assert.equal(await kv.get('a'), undefined);
      await kv.set('a', Buffer.from('one'));
      assert.equal((await kv.get('a'))?.toString(), 'one');
      await kv.set('a', Buffer.from('uno'));
      assert.equal((await kv.get('a'))?.toString(), 'uno');
      assert.equal(await kv.add('a', Buffer.from('two')), false);
      assert.equal((await kv.get('a'))?.toString(), 'uno');
      assert.equal(await kv.add('b', Buffer.from('bee')), true);
      assert.equal((await kv.get('b'))?.toString(), 'bee');
      await kv.delete('a');
      assert.equal(await kv.get('a'), undefined);
      const docs = (await docsOf(c)).map(({ key, value }) => ({ key, value }));
      assert.deepEqual(docs, [{ key: 'b', value: 'bee' }]);
    } finally {
      await kv.close!();
    }
  });
});
