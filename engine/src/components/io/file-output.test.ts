import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Message } from '@svc/engine';
import { FileOutput, fileOutputSpec } from './file-output.js';
import './index.js';
import { buildOutput, lint, testContext, withDefaults } from './test-context.js';

const batch = (...texts: string[]) => texts.map((t) => new Message(t));

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-io-fileout-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('config: path required, codec defaults to lines', () => {
  assert.deepEqual(withDefaults(fileOutputSpec, { path: 'x' }), { path: 'x', codec: 'lines' });
  assert.match(lint(fileOutputSpec, withDefaults(fileOutputSpec, {})).join(), /config\.path: required/);
  assert.match(lint(fileOutputSpec, { path: 'x', codec: 'csv' }).join(), /unsupported codec/);
});

test('creates parent directories lazily, appends batches, close closes the file', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'a', 'b', 'out.txt');
  const out = await buildOutput('file', { path });
  assert.throws(() => readFileSync(path), /ENOENT/, 'nothing opened before the first write');
  await out.write(batch('one', 'two'));
  await out.write(batch(''));
  await out.close!();
  const again = new FileOutput({ path, codec: 'lines' });
  await again.write(batch('three'));
  await again.close();
  assert.equal(readFileSync(path, 'utf8'), 'one\ntwo\n\nthree\n');
});

test('delim and append codecs', async (t) => {
  const dir = tempDir(t);
  const d = new FileOutput({ path: join(dir, 'd'), codec: 'delim:,' });
  await d.write(batch('a', 'b'));
  await d.close();
  assert.equal(readFileSync(join(dir, 'd'), 'utf8'), 'a,b,');
  const a = new FileOutput({ path: join(dir, 'a'), codec: 'append' });
  await a.write(batch('a', 'b'));
  await a.write(batch('c'));
  await a.close();
  assert.equal(readFileSync(join(dir, 'a'), 'utf8'), 'abc');
});

test('all-bytes: each message replaces the file (Benthos)', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'x', 'whole.json');
  const out = new FileOutput({ path, codec: 'all-bytes' });
  await out.write(batch('{"v":1}'));
  assert.equal(readFileSync(path, 'utf8'), '{"v":1}');
  await out.write(batch('{"v":2}', '{"v":3}'));
  assert.equal(readFileSync(path, 'utf8'), '{"v":3}');
  await out.close();
});

test('concurrent writes land whole and in order', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'c.txt');
  const out = new FileOutput({ path, codec: 'lines' });
  await Promise.all(Array.from({ length: 20 }, (_, i) => out.write(batch(`${i}a`, `${i}b`))));
  await out.close();
  const want = Array.from({ length: 20 }, (_, i) => `${i}a\n${i}b\n`).join('');
  assert.equal(readFileSync(path, 'utf8'), want);
});

test('a failed write is rejected with the path; an interpolated path writes one file per value', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'is-a-dir');
  mkdirSync(path);
  const out = new FileOutput({ path, codec: 'lines' });
  await assert.rejects(out.write(batch('x')), (err: Error) => err.message.startsWith(`failed to write to file "${path}": `));
  await out.close();
  const interp = new FileOutput({ path: join(dir, '${! meta("k") }.txt'), codec: 'lines' }, testContext('file'));
  const msgs = ['a', 'b', 'c'].map((t, i) => new Message(t, { k: i === 1 ? 'two' : 'one' }));
  await interp.write(msgs);
  await interp.close();
  assert.equal(readFileSync(join(dir, 'one.txt'), 'utf8'), 'a\nc\n');
  assert.equal(readFileSync(join(dir, 'two.txt'), 'utf8'), 'b\n');
});
