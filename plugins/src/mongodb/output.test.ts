/**
 * The `mongodb` output against FerretDB (MongoDB's wire protocol, over loopback): what each
 * operation does to the collection, numbers stored as Benthos stores them, a collection per
 * message, a write MongoDB refuses failing only its message, configs Benthos refuses, and a
 * password that never shows in an error or a log line.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchError, Message } from '@svc/engine';
import { TcpOutage, buildComponent, RecordingLogger, testContext, waitFor, type TestContext } from '@svc/engine/testing';
import type { Output } from '@svc/engine';
import { DATABASE, MONGODB_URL, docsOf, output, tempCollection } from './test-support.js';

async function write(config: Record<string, unknown>, messages: string[]): Promise<void> {
  const out = await output(config);
  await out.connect!();
  try {
    await out.write(messages.map((m) => new Message(m)));
  } finally {
    await out.close!();
  }
}

describe('mongodb output', () => {
  it('insert-one: a document per message, integers as int64 and other numbers as doubles, to the collection each message names', async () => {
    const a = tempCollection('ins_a');
    const b = tempCollection('ins_b');
    await write(
      {
        collection: '${! json("to") }',
        operation: 'insert-one',
        document_map: 'root._id = this.id\nroot.n = this.n\nroot.f = this.f\nroot.tags = this.tags\nroot.sum = this.n + 1',
      },
      [
        `{"id":1,"to":"${a}","n":5,"f":1.5,"tags":["x"]}`,
        `{"id":2,"to":"${b}","n":7,"f":2.25,"tags":[]}`,
        `{"id":3,"to":"${a}","n":9,"f":0.5,"tags":["y","z"]}`,
      ],
    );
    const docs = await docsOf(a, false);
    assert.deepEqual(
      docs.map((d) => ({ id: d._id.toString(), n: d.n._bsontype, nv: d.n.toString(), f: d.f._bsontype, sum: d.sum.toString(), tags: d.tags })),
      [
        { id: '1', n: 'Long', nv: '5', f: 'Double', sum: '6', tags: ['x'] },
        { id: '3', n: 'Long', nv: '9', f: 'Double', sum: '10', tags: ['y', 'z'] },
      ],
    );
    assert.deepEqual(
      (await docsOf(b)).map((d) => d._id),
      [2],
    );
  });

  it('stores a message field named __proto__ or constructor as a field (data, never the object prototype)', async () => {
    const c = tempCollection('proto');
    await write({ collection: c, operation: 'insert-one', document_map: 'root = this' }, ['{"_id":1,"__proto__":{"x":1},"constructor":"c"}']);
    const doc = (await docsOf(c))[0]!;
    assert.ok(Object.hasOwn(doc, '__proto__'), JSON.stringify(doc));
    assert.equal(JSON.stringify(doc), '{"_id":1,"__proto__":{"x":1},"constructor":"c"}');
  });

  it('replace-one and update-one (with a hint_map) create, then change, what filter_map finds; delete-one and delete-many remove it', async () => {
    const c = tempCollection('upd');
    const replace = { collection: c, operation: 'replace-one', upsert: true, filter_map: 'root._id = this.id', document_map: 'root.name = this.name' };
    await write(replace, ['{"id":1,"name":"one"}', '{"id":2,"name":"two"}', '{"id":3,"name":"three"}', '{"id":4,"name":"four"}']);
    await write(replace, ['{"id":1,"name":"uno"}']);
    await write(
      { collection: c, operation: 'update-one', filter_map: 'root._id = this.id', hint_map: 'root._id = 1', document_map: 'root."$set".seen = true' },
      ['{"id":2}', '{"id":9}'],
    );
    assert.deepEqual(await docsOf(c), [
      { _id: 1, name: 'uno' },
      { _id: 2, name: 'two', seen: true },
      { _id: 3, name: 'three' },
      { _id: 4, name: 'four' },
    ]);
    await write({ collection: c, operation: 'delete-one', filter_map: 'root._id = this.id' }, ['{"id":1}']);
    await write({ collection: c, operation: 'delete-many', filter_map: 'root._id = {"$gte": this.from}' }, ['{"from":3}']);
    assert.deepEqual(await docsOf(c), [{ _id: 2, name: 'two', seen: true }]);
  });

  it('reads filter_map as canonical extended JSON: {"$oid": ...} finds a document by its ObjectId', async () => {
    const c = tempCollection('oid');
    await write({ collection: c, operation: 'insert-one', document_map: 'root.name = this.name' }, ['{"name":"a"}', '{"name":"b"}']);
    const [first] = await docsOf(c);
    await write({ collection: c, operation: 'delete-one', filter_map: 'root._id = {"$oid": this.id}' }, [`{"id":"${first!._id.toHexString()}"}`]);
    assert.deepEqual(
      (await docsOf(c)).map((d) => d.name),
      ['b'],
    );
  });

  it('fails only the message whose write MongoDB refuses (a duplicate _id); the others are stored', async () => {
    const c = tempCollection('dup');
    const out = await output({ collection: c, operation: 'insert-one', document_map: 'root._id = this.id' });
    await out.connect!();
    const batch = ['{"id":1}', '{"id":1}', '{"id":2}', '{"nope":true}'].map((m) => new Message(m));
    await assert.rejects(out.write(batch), (err: unknown) => {
      assert.ok(err instanceof BatchError, String(err));
      assert.deepEqual(err.indexes(), [1]);
      assert.match(err.errorAt(1)?.message ?? '', /duplicate key/);
      return true;
    });
    await out.close!();
    // The message without an id got an _id of the server's (an ObjectId), as Benthos' would.
    assert.equal((await docsOf(c)).length, 3);
  });

  it('a write lost with its connection fails (to be written again), and succeeds once the server is back: nothing lost', async () => {
    const c = tempCollection('outage');
    const server = new URL(MONGODB_URL);
    const outage = new TcpOutage({ host: server.hostname, port: Number(server.port) });
    const port = await outage.start();
    const out = await output({
      url: `mongodb://127.0.0.1:${port}/?serverSelectionTimeoutMS=1000`,
      collection: c,
      operation: 'replace-one',
      upsert: true,
      filter_map: 'root._id = this.id',
      document_map: 'root.v = this.v',
    });
    try {
      await out.connect!();
      await out.write([new Message('{"id":1,"v":"a"}')]);
      outage.cut(5_000);
      const second = () => [new Message('{"id":2,"v":"b"}'), new Message('{"id":3,"v":"c"}')];
      await assert.rejects(out.write(second()), (err: Error) => !(err instanceof BatchError) && /cannot write to collection/.test(err.message));
      await outage.restored();
      await waitFor(
        'the write to go through once the server is back',
        async () =>
          await out.write(second()).then(
            () => true,
            () => undefined,
          ),
        30_000,
        200,
      );
    } finally {
      await out.close!();
      await outage.stop();
    }
    assert.deepEqual(await docsOf(c), [
      { _id: 1, v: 'a' },
      { _id: 2, v: 'b' },
      { _id: 3, v: 'c' },
    ]);
  });

  it('refuses what Benthos refuses: a missing filter_map, a document_map or upsert the operation does not take', async () => {
    await assert.rejects(output({ collection: 'x', operation: 'delete-one' }), /filter_map must be specified/);
    await assert.rejects(
      output({ collection: 'x', operation: 'delete-many', filter_map: 'root = this', document_map: 'root = this' }),
      /document_map not allowed/,
    );
    await assert.rejects(output({ collection: 'x', operation: 'insert-one', document_map: 'root = this', upsert: true }), /upsert not allowed/);
    await assert.rejects(output({ collection: 'x', operation: 'insert-one', document_map: 'root = this', hint_map: 'root.a = 1' }), /hint_map not allowed/);
    await assert.rejects(output({ collection: 'x', operation: 'update-one', filter_map: 'root = this' }), /document_map must be specified/);
  });

  it('never shows the password: not in the connect error, not in a log line', async () => {
    const logger = new RecordingLogger();
    const ctx: TestContext = testContext({ type: 'mongodb', path: 'root.output', logger });
    const secret = 'Sup3r-S3cret-pw';
    for (const config of [
      { url: MONGODB_URL, username: 'nosuch', password: secret },
      { url: `mongodb://nosuch:${secret}@127.0.0.1:1/?serverSelectionTimeoutMS=200` },
    ]) {
      const out = await buildComponent<Output>(
        'output',
        'mongodb',
        { database: DATABASE, collection: 'x', operation: 'insert-one', document_map: 'root = this', ...config },
        ctx,
      );
      await assert.rejects(out.connect!(), (err: Error) => {
        assert.match(err.message, /mongodb output: cannot connect to MongoDB/);
        assert.ok(!err.message.includes(secret), err.message);
        return true;
      });
      await out.close!();
    }
    assert.ok(!JSON.stringify(logger.lines).includes(secret));
  });
});
