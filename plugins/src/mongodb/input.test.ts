/**
 * The `mongodb` input against FerretDB: a find with its filter, sort and limit, each document a
 * message of extended JSON (canonical or relaxed) with Benthos' metadata, the end of input once
 * the documents are exhausted, batches as the server's cursor replies with `batch_size`, and an
 * aggregate pipeline.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { END_OF_INPUT, registry, type Batch, type Input } from '@svc/engine';
import { lintValue } from '@svc/engine/testing';
import { DATABASE, base, input, mongo, tempCollection } from './test-support.js';

async function fill(collection: string, n: number): Promise<void> {
  await (
    await mongo()
  )
    .db(DATABASE)
    .collection<{ _id: number }>(collection)
    .insertMany(Array.from({ length: n }, (_, i) => ({ _id: i, n: i * 10, odd: i % 2 === 1, f: i + 0.5 })));
}

/** Every batch the input gives until it ends. */
async function drain(inp: Input): Promise<Batch[]> {
  await inp.connect!();
  const out: Batch[] = [];
  for (let i = 0; i < 1000; i++) {
    const t = await inp.read();
    if (t === END_OF_INPUT) break;
    out.push(t.batch);
    await t.ack();
  }
  await inp.close!();
  return out;
}

describe('mongodb input', () => {
  it('find: the documents the query (numbers compared across BSON types), sort and limit select, one message each, canonical extended JSON, then the end', async () => {
    const c = tempCollection('find');
    await fill(c, 10);
    const batches = await drain(await input({ collection: c, query: 'root.odd = true\nroot.n = {"$gte": 20}', sort: { n: -1 }, limit: 3 }));
    assert.deepEqual(
      batches.map((b) => b.length),
      [1, 1, 1],
    );
    const msgs = batches.flat();
    assert.deepEqual(
      msgs.map((m) => m.content.toString()),
      [9, 7, 5].map((i) => `{"_id":{"$numberInt":"${i}"},"n":{"$numberInt":"${i * 10}"},"odd":true,"f":{"$numberDouble":"${i}.5"}}`),
    );
    assert.equal(msgs[0]!.getMeta('mongo_database'), DATABASE);
    assert.equal(msgs[0]!.getMeta('mongo_collection'), c);
  });

  it('json_marshal_mode relaxed: plain JSON numbers', async () => {
    const c = tempCollection('relaxed');
    await fill(c, 2);
    const msgs = (await drain(await input({ collection: c, query: 'root = {}', json_marshal_mode: 'relaxed', sort: { _id: 1 } }))).flat();
    assert.deepEqual(
      msgs.map((m) => m.json()),
      [
        { _id: 0, n: 0, odd: false, f: 0.5 },
        { _id: 1, n: 10, odd: true, f: 1.5 },
      ],
    );
  });

  it('batch_size: a batch per reply of the cursor, at most batch_size documents, every document once', async () => {
    const c = tempCollection('batches');
    await fill(c, 12);
    const batches = await drain(await input({ collection: c, query: 'root = {}', batch_size: 5, sort: { _id: 1 } }));
    assert.deepEqual(
      batches.map((b) => b.length),
      [5, 5, 2],
    );
    assert.deepEqual(
      batches.flat().map((m) => (m.json() as { _id: { $numberInt: string } })._id.$numberInt),
      Array.from({ length: 12 }, (_, i) => String(i)),
    );
  });

  it('aggregate: the query is the pipeline', async () => {
    const c = tempCollection('agg');
    await fill(c, 6);
    const msgs = (
      await drain(
        await input({
          collection: c,
          operation: 'aggregate',
          json_marshal_mode: 'relaxed',
          query: 'root = [ {"$match": {"odd": false}}, {"$sort": {"_id": -1}}, {"$project": {"n": 1}} ]',
        }),
      )
    ).flat();
    assert.deepEqual(
      msgs.map((m) => m.json()),
      [
        { _id: 4, n: 40 },
        { _id: 2, n: 20 },
        { _id: 0, n: 0 },
      ],
    );
  });

  it('lints: a batch_size of 0 is refused as Benthos refuses it', () => {
    const conf = registry().get('input', 'mongodb')!.spec.config;
    assert.deepEqual(lintValue(conf, { ...base, collection: 'x', query: 'root = {}', batch_size: 1 }), []);
    assert.ok(lintValue(conf, { ...base, collection: 'x', query: 'root = {}', batch_size: 0 }).some((e) => /batch_size must be >0/.test(e)));
  });
});
