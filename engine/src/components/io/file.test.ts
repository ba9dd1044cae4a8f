import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { END_OF_INPUT, InputFailedError, type Input, type Transaction } from '@svc/engine';
import { FileInput, fileSpec, rfc3339, type FileConfig } from './file.js';
import './index.js';
import { buildInput, lint, rng, testContext, withDefaults } from './test-context.js';

const conf = (c: Partial<FileConfig>): FileConfig => withDefaults(fileSpec, c);

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-io-file-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function readTx(input: Input): Promise<Transaction[]> {
  const out: Transaction[] = [];
  for (;;) {
    const r = await input.read();
    if (r === END_OF_INPUT) return out;
    out.push(r);
  }
}

async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`timed out waiting for: ${what}`);
}

test('config: fields and defaults; paths required and non-empty', () => {
  assert.deepEqual(conf({ paths: ['a'] }), {
    paths: ['a'],
    codec: 'lines',
    scanner: undefined,
    max_buffer: 1_000_000,
    skip_long_lines: false,
    delete_on_finish: false,
    auto_replay_nacks: true,
  });
  assert.match(lint(fileSpec, conf({})).join(), /config\.paths: required/);
  assert.match(lint(fileSpec, conf({ paths: [] })).join(), /paths must list at least one file/);
  assert.match(lint(fileSpec, conf({ paths: ['a'], codec: 'lines/multipart' })).join(), /unsupported codec/);
});

test('reads files in order with path and modification time metadata, then ends', async (t) => {
  const dir = tempDir(t);
  const a = join(dir, 'a.txt');
  const b = join(dir, 'b.txt');
  writeFileSync(a, 'a1\na2\n\na4');
  writeFileSync(b, 'b1\n');
  const when = Date.UTC(2021, 0, 2, 3, 4, 5) / 1000;
  utimesSync(a, when, when);
  const input = await buildInput('file', { paths: [a, b] });
  await input.connect!();
  const txs = await readTx(input);
  const msgs = txs.flatMap((t) => t.batch);
  assert.deepEqual(
    msgs.map((m) => m.text()),
    ['a1', 'a2', '', 'a4', 'b1'],
  );
  assert.deepEqual(msgs[0]!.metaObject(), { path: a, mod_time_unix: when, mod_time: '2021-01-02T03:04:05Z' });
  assert.equal(msgs[4]!.getMeta('path'), b);
  // Metadata is shared copy-on-write: changing one message's does not touch the others.
  msgs[0]!.setMeta('path', 'changed');
  assert.equal(msgs[1]!.getMeta('path'), a);
  assert.equal(await input.read(), END_OF_INPUT);
  await input.close!();
});

test('rfc3339 formats whole seconds in UTC like Go time.RFC3339', () => {
  assert.equal(rfc3339(Date.UTC(1999, 11, 31, 23, 59, 59, 999)), '1999-12-31T23:59:59Z');
});

test('a big file: 256 KiB reads, batches of at most 4096, lines equal split', async (t) => {
  const dir = tempDir(t);
  const rand = rng(5);
  let s = '';
  while (s.length < 2_000_000) s += rand() < 0.3 ? '\n' : 'ab|c'.repeat(1 + Math.floor(rand() * 5));
  const path = join(dir, 'big.txt');
  writeFileSync(path, s);
  for (const [codec, delim] of [
    ['lines', '\n'],
    ['delim:|c', '|c'],
  ] as const) {
    const input = new FileInput(conf({ paths: [path], codec }));
    await input.connect();
    const txs = await readTx(input);
    for (const tx of txs) assert.ok(tx.batch.length <= 4096);
    const want = s.split(delim);
    if (want[want.length - 1] === '') want.pop();
    assert.deepEqual(
      txs.flatMap((tx) => tx.batch.map((m) => m.text())),
      want,
      codec,
    );
  }
});

test('all-bytes: each file is one message', async (t) => {
  const dir = tempDir(t);
  const a = join(dir, 'a');
  const e = join(dir, 'empty');
  writeFileSync(a, 'x\ny\n');
  writeFileSync(e, '');
  const input = new FileInput(conf({ paths: [a, e], codec: 'all-bytes' }));
  const msgs = (await readTx(input)).flatMap((tx) => tx.batch);
  assert.deepEqual(
    msgs.map((m) => [m.text(), m.getMeta('path')]),
    [
      ['x\ny\n', a],
      ['', e],
    ],
  );
});

test('a missing file is a clear error from connect() naming the path', async (t) => {
  const dir = tempDir(t);
  const ok = join(dir, 'ok');
  writeFileSync(ok, 'x');
  const missing = join(dir, 'nope.log');
  const input = await buildInput('file', { paths: [ok, missing] });
  await assert.rejects(
    async () => input.connect!(),
    (err: Error) => {
      assert.equal(err.message, `file input: cannot read "${missing}": no such file or directory`);
      return true;
    },
  );
  // A glob that matches nothing reads nothing (as Benthos); one that matches reads its files, sorted.
  const none = new FileInput(conf({ paths: [join(dir, '*.log')] }));
  await none.connect();
  assert.equal(await none.read(), END_OF_INPUT);
  writeFileSync(join(dir, 'b.log'), 'b\n');
  writeFileSync(join(dir, 'a.log'), 'a\n');
  const glob = new FileInput(conf({ paths: [join(dir, '*.log')] }));
  await glob.connect();
  const seen: string[] = [];
  for (let r = await glob.read(); r !== END_OF_INPUT; r = await glob.read())
    seen.push(...r.batch.map((m) => `${m.getMetaString('path')}:${m.content.toString()}`));
  assert.deepEqual(seen, [`${join(dir, 'a.log')}:a`, `${join(dir, 'b.log')}:b`]);
  const d = new FileInput(conf({ paths: [dir] }));
  await assert.rejects(async () => d.connect(), /it is a directory/);
});

test('a file removed after connect: read throws NotConnectedError naming it (the runtime reconnects)', async (t) => {
  const dir = tempDir(t);
  const gone = join(dir, 'gone');
  writeFileSync(gone, 'x\n');
  const input = new FileInput(conf({ paths: [gone] }));
  await input.connect();
  rmSync(gone);
  await assert.rejects(
    async () => input.read(),
    (err: Error) => err.name === 'NotConnectedError' && err.message.includes(gone),
  );
  writeFileSync(gone, 'back\n');
  await input.connect();
  assert.deepEqual(
    (await readTx(input)).flatMap((tx) => tx.batch.map((m) => m.text())),
    ['back'],
  );
});

test('delete_on_finish: a file is deleted only once every transaction from it is acked', async (t) => {
  const dir = tempDir(t);
  const a = join(dir, 'a');
  const b = join(dir, 'b');
  writeFileSync(a, 'x\n'.repeat(10_000)); // more than one batch
  writeFileSync(b, 'y\n');
  const input = new FileInput(conf({ paths: [a, b], delete_on_finish: true }));
  const txs = await readTx(input);
  const fromA = txs.filter((tx) => tx.batch[0]!.getMeta('path') === a);
  assert.ok(fromA.length >= 3);
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(existsSync(a) && existsSync(b), 'nothing deleted before acks');
  for (const tx of fromA.slice(1)) tx.ack();
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(existsSync(a), 'not deleted while one transaction is unacked');
  fromA[0]!.ack();
  fromA[0]!.ack(); // a second ack changes nothing
  await eventually(() => !existsSync(a), 'a deleted');
  assert.ok(existsSync(b));
  txs[txs.length - 1]!.ack();
  await eventually(() => !existsSync(b), 'b deleted');
  await input.close();
});

test('delete_on_finish: a nacked (dropped) transaction keeps the file', async (t) => {
  const dir = tempDir(t);
  const a = join(dir, 'a');
  writeFileSync(a, 'x\n');
  const ctx = testContext('file');
  const input = new FileInput(conf({ paths: [a], delete_on_finish: true, auto_replay_nacks: false }), ctx);
  const [tx] = await readTx(input);
  tx!.ack(new Error('downstream said no'));
  await eventually(() => ctx.logger.lines.some((l) => l.level === 'WARN' && l.msg.includes('Not deleting')), 'the warning that the file stays');
  assert.ok(existsSync(a));
});

test('a line over max_buffer: lines before it given, then an InputFailedError naming the file; the file is kept, the next not read', async (t) => {
  const dir = tempDir(t);
  const a = join(dir, 'a');
  const b = join(dir, 'b');
  writeFileSync(a, 'ok\n' + 'z'.repeat(100) + '\nlost\n');
  writeFileSync(b, 'next\n');
  const ctx = testContext('file');
  const input = new FileInput(conf({ paths: [a, b], max_buffer: 10, delete_on_finish: true }), ctx);
  const first = (await input.read()) as Transaction;
  assert.deepEqual(
    first.batch.map((m) => m.text()),
    ['ok'],
  );
  first.ack();
  await assert.rejects(
    async () => input.read(),
    (err: Error) => err instanceof InputFailedError && err.message.includes(`"${a}": line 2 (starting at byte 3) is longer than max_buffer (10 bytes)`),
  );
  assert.equal(await input.read(), END_OF_INPUT);
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(existsSync(a), 'a file not read to its end is kept');
  assert.ok(existsSync(b), 'the next file is not read (nor deleted)');
});

test('skip_long_lines: long lines skipped, every file read to its end; a file with skipped lines is kept', async (t) => {
  const dir = tempDir(t);
  const a = join(dir, 'a');
  const b = join(dir, 'b');
  writeFileSync(a, 'ok\n' + 'z'.repeat(100) + '\nkept\n');
  writeFileSync(b, 'next\n');
  const ctx = testContext('file');
  const input = new FileInput(conf({ paths: [a, b], max_buffer: 10, skip_long_lines: true, delete_on_finish: true }), ctx);
  const txs = await readTx(input);
  assert.deepEqual(
    txs.flatMap((tx) => tx.batch.map((m) => m.text())),
    ['ok', 'kept', 'next'],
  );
  for (const tx of txs) tx.ack();
  await eventually(() => !existsSync(b), 'b deleted');
  assert.ok(existsSync(a), 'a file with skipped lines is kept');
  assert.ok(ctx.logger.lines.some((l) => l.level === 'WARN' && l.msg.includes(`file "${a}": skipped 1 line(s)`)));
});

test('close makes a pending read resolve END_OF_INPUT, and later reads', async (t) => {
  const dir = tempDir(t);
  const a = join(dir, 'a');
  writeFileSync(a, 'x\n'.repeat(5000));
  const input = new FileInput(conf({ paths: [a] }));
  const pending = input.read(); // opening the file: not done yet
  assert.ok(pending instanceof Promise);
  await input.close();
  assert.equal(await pending, END_OF_INPUT);
  assert.equal(await input.read(), END_OF_INPUT);

  const reading = new FileInput(conf({ paths: [a] }));
  assert.notEqual(await reading.read(), END_OF_INPUT);
  await reading.close();
  assert.equal(await reading.read(), END_OF_INPUT);
});
