/**
 * `aws_dynamodb` output and cache against moto's DynamoDB (real requests over loopback): the items
 * the output puts (string and map columns converted as Benthos converts them, the TTL column), a
 * batch over DynamoDB's 25 items a request, an item DynamoDB refuses failing alone; the cache's
 * get, set, add (refused when the key exists), delete and TTL column.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchError, Message, type Cache, type Output } from '@svc/engine';
import { buildComponent, testContext } from '@svc/engine/testing';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { dynamo, itemsOf, tempTable } from './kinesis-test-support.js';
import { session } from './test-support.js';

function output(config: Record<string, unknown>): Promise<Output> {
  return buildComponent<Output>('output', 'aws_dynamodb', { ...session, ...config }, testContext({ type: 'aws_dynamodb', path: 'root.output' }));
}

function cache(config: Record<string, unknown>): Promise<Cache> {
  return buildComponent<Cache>('cache', 'aws_dynamodb', { ...session, ...config }, testContext({ type: 'aws_dynamodb', path: 'root.cache' }));
}

describe('aws_dynamodb output', () => {
  it('puts an item per message: string columns, map columns converted as Benthos does, the TTL column', async () => {
    const table = await tempTable('out');
    const out = await output({
      table,
      string_columns: { id: '${! json("id") }', topic: '${! meta("topic") }' },
      json_map_columns: { doc: 'body', '': 'top' },
      ttl: '1h',
      ttl_key: 'expires',
    });
    await out.connect!();
    const before = Math.floor(Date.now() / 1000);
    await out.write([new Message('{"id":"a1","body":{"n":5,"ok":true,"tags":["x"],"none":null},"top":{"extra":"e"}}', { topic: 't' })]);
    await out.close!();
    const item = (await dynamo.send(new GetItemCommand({ TableName: table, Key: { id: { S: 'a1' } } }))).Item!;
    const expires = Number(item.expires!.N);
    delete item.expires;
    assert.ok(expires >= before + 3600 && expires <= before + 3700, `expires ${expires}`);
    assert.deepEqual(item, {
      id: { S: 'a1' },
      topic: { S: 't' },
      // A number read from JSON is a string with its text, as Benthos' json.Number.
      doc: { M: { n: { S: '5' }, ok: { BOOL: true }, tags: { L: [{ S: 'x' }] }, none: { NULL: true } } },
      extra: { S: 'e' },
    });
  });

  it('writes a batch larger than 25 items (several requests); writing it again leaves one item per key', async () => {
    const table = await tempTable('out-many');
    const out = await output({ table, string_columns: { id: '${! json("id") }' } });
    await out.connect!();
    const batch = Array.from({ length: 60 }, (_, i) => new Message(`{"id":"k${i}"}`));
    await out.write(batch);
    await out.write(batch.map((m) => m.copy()));
    await out.close!();
    const items = await itemsOf(table);
    assert.equal(items.length, 60);
  });

  it('fails only the message whose item DynamoDB refuses (no key column); the others are stored', async () => {
    const table = await tempTable('out-bad');
    const out = await output({ table, json_map_columns: { '': '.' } });
    await out.connect!();
    const batch = [new Message('{"id":"a"}'), new Message('{"name":"no id"}'), new Message('{"id":"c"}')];
    await assert.rejects(out.write(batch), (err: unknown) => err instanceof BatchError && err.indexes().join() === '1');
    await out.close!();
    assert.deepEqual((await itemsOf(table)).map((i) => i.id!.S).sort(), ['a', 'c']);
  });

  it('refuses a config without columns', async () => {
    await assert.rejects(output({ table: 't' }), /at least one column/);
  });
});

describe('aws_dynamodb cache', () => {
  it('gets, sets, adds only a missing key, deletes; stores the expiry in ttl_key', async () => {
    const table = await tempTable('cache', 'key');
    const c = await cache({ table, hash_key: 'key', data_key: 'data', ttl_key: 'ttl', default_ttl: '10m' });
    assert.equal(await c.get('a'), undefined);
    await c.set('a', Buffer.from('one'));
    assert.equal((await c.get('a'))?.toString(), 'one');
    assert.equal(await c.add('a', Buffer.from('two')), false);
    assert.equal((await c.get('a'))?.toString(), 'one');
    assert.equal(await c.add('b', Buffer.from('bee'), 60_000), true);
    const b = (await dynamo.send(new GetItemCommand({ TableName: table, Key: { key: { S: 'b' } } }))).Item!;
    assert.equal(Buffer.from(b.data!.B!).toString(), 'bee');
    const left = Number(b.ttl!.N) - Date.now() / 1000;
    assert.ok(left > 0 && left <= 60, `the item's own ttl (60 s), not default_ttl: ${left}`);
    await c.delete('a');
    assert.equal(await c.get('a'), undefined);
    await c.close!();
  });

  it('refuses a table that does not exist when built', async () => {
    await assert.rejects(cache({ table: 'svc-no-such-table', hash_key: 'k', data_key: 'd' }), /cannot describe table/);
  });
});
