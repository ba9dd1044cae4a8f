/**
 * The `nats_kv` input, output, processor and cache against the real nats-server (JetStream on):
 * what each reads and writes, Benthos' metadata, the processor's operations and their failures,
 * and the errors a user sees for a bad config or a missing bucket.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Message, type Cache, type Input, type Output, type Processor, type Transaction } from '@svc/engine';
import { build, keysOf, lint, tempBucket } from './kv-test-support.js';

async function readN(input: Input, n: number): Promise<Message[]> {
  const out: Message[] = [];
  while (out.length < n) {
    const t = (await input.read()) as Transaction;
    assert.ok(typeof t === 'object' && 'batch' in t);
    out.push(...t.batch);
    t.ack();
  }
  return out;
}

describe('nats_kv', () => {
  it('input: the latest value of each matching key, then updates and deletes, with Benthos metadata', async () => {
    const { name, kv } = await tempBucket('in');
    await kv.put('a.1', Buffer.from('one'));
    await kv.put('a.1', Buffer.from('one-b'));
    await kv.put('a.2', Buffer.from('two'));
    await kv.put('b.1', Buffer.from('other'));
    const input = await build<Input>('input', { bucket: name, key: 'a.>' });
    await input.connect!();
    const first = await readN(input, 2);
    assert.deepEqual(
      first.map((m) => `${m.getMeta('nats_kv_key')}=${m.content.toString()}`),
      ['a.1=one-b', 'a.2=two'],
    );
    const m = first[0]!;
    assert.equal(m.getMeta('nats_kv_bucket'), name);
    assert.equal(m.getMeta('nats_kv_revision'), 2);
    assert.equal(m.getMeta('nats_kv_operation'), 'KeyValuePutOp');
    assert.match(String(m.getMeta('nats_kv_created')), /^\d{4}-\d\d-\d\dT/);
    await kv.put('a.3', Buffer.from('three'));
    await kv.delete('a.2');
    const later = await readN(input, 2);
    assert.deepEqual(
      later.map((x) => `${x.getMeta('nats_kv_key')}:${x.getMeta('nats_kv_operation')}`),
      ['a.3:KeyValuePutOp', 'a.2:KeyValueDeleteOp'],
    );
    await input.close!();
  });

  it('input: include_history reads every kept revision; ignore_deletes leaves delete markers out', async () => {
    const { name, kv } = await tempBucket('hist', 5);
    await kv.put('k', Buffer.from('1'));
    await kv.put('k', Buffer.from('2'));
    await kv.put('gone', Buffer.from('x'));
    await kv.delete('gone');
    const input = await build<Input>('input', { bucket: name, include_history: true, ignore_deletes: true });
    await input.connect!();
    const got = await readN(input, 3);
    assert.deepEqual(
      got.map((m) => `${m.getMeta('nats_kv_key')}=${m.content.toString()}`),
      ['k=1', 'k=2', 'gone=x'],
    );
    await input.close!();
  });

  it('output: puts each message under its interpolated key, resolved once stored', async () => {
    const { name, kv } = await tempBucket('out');
    const output = await build<Output>('output', { bucket: name, key: 'user.${! json("id") }' });
    await output.connect!();
    await output.write([new Message('{"id":1,"n":"a"}'), new Message('{"id":2,"n":"b"}')]);
    assert.deepEqual((await keysOf(kv)).sort(), ['user.1', 'user.2']);
    assert.equal((await kv.get('user.2'))?.string(), '{"id":2,"n":"b"}');
    await output.close!();
  });

  it('processor: put, get, create, update with revision, history, keys, delete, purge; failures flag the message', async () => {
    const { name } = await tempBucket('proc', 10);
    const p = async (config: Record<string, unknown>, msgs: Message[]) => {
      const proc = await build<Processor>('processor', { bucket: name, ...config });
      const [out] = await proc.process(msgs);
      await proc.close!();
      return out!;
    };
    const [put] = await p({ operation: 'put', key: '${! json("k") }' }, [new Message('{"k":"a","v":1}')]);
    assert.equal(put!.getMeta('nats_kv_revision'), 1);
    assert.equal(put!.getMeta('nats_kv_operation'), 'KeyValuePutOp');
    assert.equal(put!.content.toString(), '{"k":"a","v":1}', 'put keeps the message');
    const [got] = await p({ operation: 'get', key: 'a' }, [new Message('ignored')]);
    assert.equal(got!.content.toString(), '{"k":"a","v":1}');
    assert.equal(got!.getMeta('nats_kv_key'), 'a');
    const [dup] = await p({ operation: 'create', key: 'a' }, [new Message('x')]);
    assert.ok(dup!.error, 'create of an existing key fails');
    const [upd] = await p({ operation: 'update', key: 'a', revision: '${! meta("rev") }' }, [new Message('v2', { rev: '1' })]);
    assert.equal(upd!.error, undefined);
    assert.equal(upd!.getMeta('nats_kv_revision'), 2);
    const [stale] = await p({ operation: 'update', key: 'a', revision: '1' }, [new Message('v3')]);
    assert.ok(stale!.error, 'update with a stale revision fails');
    const [rev1] = await p({ operation: 'get_revision', key: 'a', revision: '1' }, [new Message('')]);
    assert.equal(rev1!.content.toString(), '{"k":"a","v":1}');
    await p({ operation: 'put', key: 'b.x' }, [new Message('bx')]);
    const [keys] = await p({ operation: 'keys', key: 'b.>' }, [new Message('')]);
    assert.deepEqual(keys!.json(), ['b.x']);
    const [hist] = await p({ operation: 'history', key: 'a' }, [new Message('')]);
    const h = hist!.json() as { revision: number; value: string; operation: string }[];
    assert.deepEqual(
      h.map((e) => [e.revision, Buffer.from(e.value, 'base64').toString(), e.operation]),
      [
        [1, '{"k":"a","v":1}', 'KeyValuePutOp'],
        [2, 'v2', 'KeyValuePutOp'],
      ],
    );
    const [del] = await p({ operation: 'delete', key: 'a' }, [new Message('')]);
    assert.equal(del!.getMeta('nats_kv_operation'), 'KeyValueDeleteOp');
    const [missing] = await p({ operation: 'get', key: 'a' }, [new Message('keep')]);
    assert.match(missing!.error ?? '', /nats_kv processor: nats: key not found/);
    assert.equal(missing!.content.toString(), 'keep', 'a failed get passes the message on');
    const [purged] = await p({ operation: 'purge', key: 'b.x' }, [new Message('')]);
    assert.equal(purged!.getMeta('nats_kv_operation'), 'KeyValuePurgeOp');
  });

  it('cache: set, get, add only when absent, delete', async () => {
    const { name } = await tempBucket('cache');
    const cache = await build<Cache>('cache', { bucket: name });
    assert.equal(await cache.get('x'), undefined);
    await cache.set('x', Buffer.from('1'));
    assert.equal((await cache.get('x'))?.toString(), '1');
    assert.equal(await cache.add('x', Buffer.from('2')), false);
    assert.equal(await cache.add('y', Buffer.from('2')), true);
    await cache.delete('x');
    assert.equal(await cache.get('x'), undefined);
    assert.equal(await cache.add('x', Buffer.from('3')), true, 'a deleted key can be added again');
    await cache.close!();
  });

  it('a bucket that does not exist: connect fails saying so', async () => {
    const input = await build<Input>('input', { bucket: 'svc_no_such_bucket' });
    await assert.rejects(input.connect!(), /nats_kv input: cannot open the KV bucket svc_no_such_bucket \(does it exist\?/);
    const output = await build<Output>('output', { bucket: 'svc_no_such_bucket', key: 'k' });
    await assert.rejects(output.connect!(), /nats_kv output: cannot open the KV bucket svc_no_such_bucket/);
  });

  it('config errors are refused at lint', () => {
    assert.ok(lint('input', { urls: ['nats://h:4222'] }).some((p) => /bucket: required/.test(p)));
    assert.ok(lint('output', { urls: ['nats://h:4222'], bucket: 'b' }).some((p) => /key: required/.test(p)));
    assert.ok(
      lint('processor', { urls: ['nats://h:4222'], bucket: 'b', operation: 'update', key: 'k' }).some((p) =>
        /'revision' must be set when operation is 'update'/.test(p),
      ),
    );
    assert.ok(
      lint('processor', { urls: ['nats://h:4222'], bucket: 'b', operation: 'get', key: 'k', revision: '1' }).some((p) => /'revision' cannot be set/.test(p)),
    );
    assert.ok(
      lint('processor', { urls: ['nats://h:4222'], bucket: 'b', operation: 'scan', key: 'k' }).some((p) => /expected one of get, get_revision/.test(p)),
    );
    assert.ok(lint('processor', { urls: ['nats://h:4222'], bucket: 'b', operation: 'get', key: '' }).some((p) => /'key' must be set/.test(p)));
    assert.ok(lint('cache', { urls: ['nats://h:4222'], bucket: 'no spaces' }).some((p) => /bucket must name the KV bucket/.test(p)));
    assert.ok(lint('input', { urls: ['http://h/'], bucket: 'b' }).some((p) => /is not a nats:\/\/ or tls:\/\/ URL/.test(p)));
  });
});
