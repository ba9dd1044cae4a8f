/**
 * `aws_s3` output and input against moto's S3 (real requests over loopback): objects at
 * interpolated paths with their headers and metadata, a batch joined into one object by the
 * batching policy's `archive`, and the input's walk: a scanner splits objects into messages with
 * Benthos' metadata, and `delete_objects` deletes an object only once all of it was acked.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { END_OF_INPUT, type Input, type Transaction } from '@svc/engine';
import { EngineProcess, buildComponent, testContext } from '@svc/engine/testing';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { getObject, keysOf, s3, session, sessionYaml, tempBucket } from './test-support.js';

/** Runs a stream that ends by itself (a `generate` with a count); its exit code. */
async function runToEnd(yaml: string): Promise<void> {
  const p = new EngineProcess(`http: { enabled: false }\nlogger: { level: WARN }\n${yaml}`);
  try {
    const code = await p.exited;
    assert.equal(code, 0, p.output().slice(-2000));
  } finally {
    if (!p.done) await p.kill();
  }
}

function input(config: Record<string, unknown>): Promise<Input> {
  return buildComponent<Input>('input', 'aws_s3', { ...session, force_path_style_urls: true, ...config }, testContext({ type: 'aws_s3', path: 'root.input' }));
}

async function readAll(i: Input): Promise<Transaction[]> {
  const out: Transaction[] = [];
  for (;;) {
    const t = await i.read();
    if (t === END_OF_INPUT) return out;
    out.push(t);
  }
}

describe('aws_s3 output', () => {
  it('uploads each message at its interpolated path, with its headers and metadata', async () => {
    const bucket = await tempBucket('out-paths');
    await runToEnd(`input:
  generate:
    count: 3
    interval: ""
    mapping: |
      root.id = counter()
      meta region = "eu"
      meta kafka_key = "k"
output:
  aws_s3:
    bucket: ${bucket}
    path: items/\${! json("id") }.json
    content_type: application/json
    cache_control: max-age=60
    force_path_style_urls: true
    metadata:
      exclude_prefixes: [ kafka_ ]
${sessionYaml('    ')}
`);
    assert.deepEqual((await keysOf(bucket)).sort(), ['items/1.json', 'items/2.json', 'items/3.json']);
    const o = await getObject(bucket, 'items/2.json');
    assert.deepEqual(JSON.parse(o.body), { id: 2 });
    assert.equal(o.contentType, 'application/json');
    assert.deepEqual(o.metadata, { region: 'eu' });
  });

  it('a path whose interpolated part leaves its folder (../x, a/../../y) is refused; the others are uploaded', async () => {
    const bucket = await tempBucket('out-climb');
    await runToEnd(`input:
  generate:
    count: 4
    interval: ""
    mapping: |
      meta name = ["ok1", "../x", "a/../../y", "sub/ok2"].index(counter() - 1)
output:
  fallback:
    - aws_s3:
        bucket: ${bucket}
        path: items/\${! meta("name") }
        force_path_style_urls: true
${sessionYaml('        ')}
    - drop: {}
`);
    assert.deepEqual((await keysOf(bucket)).sort(), ['items/ok1', 'items/sub/ok2']);
  });

  it('batching with an archive processor puts a whole batch into one object', async () => {
    const bucket = await tempBucket('out-batch');
    await runToEnd(`input:
  generate:
    count: 10
    interval: ""
    mapping: root.id = counter()
output:
  aws_s3:
    bucket: ${bucket}
    path: batches/\${! counter() }.json
    force_path_style_urls: true
    batching:
      count: 5
      processors:
        - archive:
            format: json_array
${sessionYaml('    ')}
`);
    const keys = (await keysOf(bucket)).sort();
    assert.deepEqual(keys, ['batches/1.json', 'batches/2.json']);
    const ids = [];
    for (const k of keys) ids.push(...(JSON.parse((await getObject(bucket, k)).body) as { id: number }[]).map((o) => o.id));
    assert.deepEqual(ids, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describe('aws_s3 input', () => {
  it('walks the prefix, splits objects with the scanner and sets the s3_* metadata', async () => {
    const bucket = await tempBucket('in-walk');
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'logs/a.txt', Body: 'one\ntwo\n', ContentType: 'text/plain', Metadata: { source: 'app' } }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'logs/b.txt', Body: 'three' }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'other/c.txt', Body: 'not under the prefix' }));
    const i = await input({ bucket, prefix: 'logs/', scanner: { lines: {} } });
    await i.connect!();
    const txs = await readAll(i);
    const msgs = txs.flatMap((t) => t.batch);
    assert.deepEqual(
      msgs.map((m) => m.text()),
      ['one', 'two', 'three'],
    );
    const first = msgs[0]!;
    assert.equal(first.getMetaString('s3_key'), 'logs/a.txt');
    assert.equal(first.getMetaString('s3_bucket'), bucket);
    assert.equal(first.getMetaString('s3_content_type'), 'text/plain');
    assert.equal(first.getMetaString('source'), 'app');
    assert.match(first.getMetaString('s3_last_modified'), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.ok(Number(first.getMeta('s3_last_modified_unix')) > 1_600_000_000);
    for (const t of txs) await t.ack();
    await i.close!();
    assert.equal((await keysOf(bucket)).length, 3, 'nothing deleted without delete_objects');
  });

  it('delete_objects: an object is deleted once every message from it was acked, never after a nack', async () => {
    const bucket = await tempBucket('in-delete');
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a.txt', Body: 'a1\na2' }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'b.txt', Body: 'b1' }));
    const i = await input({ bucket, delete_objects: true, scanner: { lines: {} } });
    await i.connect!();
    const txs = await readAll(i);
    const byKey = (k: string) => txs.filter((t) => t.batch[0]!.getMetaString('s3_key') === k);
    // a.txt: all acked. b.txt: nacked (its input would replay it; here nothing does).
    for (const t of byKey('a.txt')) await t.ack();
    for (const t of byKey('b.txt')) await t.ack(new Error('the output refused it'));
    await i.close!();
    assert.deepEqual(await keysOf(bucket), ['b.txt']);
  });
});
