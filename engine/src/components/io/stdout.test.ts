import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { PassThrough, Writable } from 'node:stream';
import { Message, registry } from '@svc/engine';
import { StdoutOutput, stdoutSpec } from './stdout.js';
import './index.js';
import { lint, withDefaults } from './test-context.js';

const batch = (...texts: string[]) => texts.map((t) => new Message(t));

function collector(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const parts: Buffer[] = [];
  stream.on('data', (c: Buffer) => parts.push(c));
  return { stream, text: () => Buffer.concat(parts).toString() };
}

test('config: codec defaults to lines; unsupported codecs are lint errors', () => {
  assert.deepEqual(withDefaults(stdoutSpec, {}), { codec: 'lines' });
  assert.match(lint(stdoutSpec, { codec: 'csv' }).join(), /unsupported codec "csv": this output supports/);
  assert.ok(registry().get('output', 'stdout'));
});

test('codecs: lines, delim:X, append and all-bytes', async () => {
  const cases: Array<[string, string]> = [
    ['lines', 'a\n\nc\n'],
    ['delim:--', 'a----c--'],
    ['append', 'ac'],
    ['all-bytes', 'ac'],
  ];
  for (const [codec, want] of cases) {
    const c = collector();
    const out = new StdoutOutput({ codec }, undefined, { stream: c.stream });
    await out.write(batch('a', '', 'c'));
    assert.equal(c.text(), want, codec);
  }
});

test('one write call per batch', async () => {
  let writes = 0;
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      writes++;
      chunks.push(chunk);
      cb();
    },
  });
  const out = new StdoutOutput({ codec: 'lines' }, undefined, { stream });
  const big = Buffer.from('x\n'.repeat(1000));
  const slices = [];
  for (let i = 0; i < 1000; i++) slices.push(new Message(big.subarray(i * 2, i * 2 + 1)));
  await out.write(slices);
  await out.write(batch('1', '2', '3'));
  assert.equal(writes, 2);
  assert.ok(chunks[0]!.equals(big));
  assert.equal(chunks[1]!.toString(), '1\n2\n3\n');
});

test('back-pressure: a write completes only once the stream took the bytes', async () => {
  let release: (() => void) | undefined;
  const stream = new Writable({
    highWaterMark: 1,
    write(_chunk, _enc, cb) {
      release = cb;
    },
  });
  const out = new StdoutOutput({ codec: 'lines' }, undefined, { stream });
  let done = false;
  const w = out.write(batch('slow')).then(() => (done = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(done, false);
  release!();
  await w;
  assert.equal(done, true);
  await out.close();
});

test('EPIPE: the write is rejected with a clear error, later writes too, nothing crashes', async () => {
  let writes = 0;
  const stream = new Writable({
    write(_chunk, _enc, cb) {
      writes++;
      cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    },
  });
  const out = new StdoutOutput({ codec: 'lines' }, undefined, { stream, name: 'stdout' });
  await assert.rejects(out.write(batch('a')), /^SvcError: stdout is closed \(EPIPE: the reader went away\): the batch was not written$/);
  await assert.rejects(out.write(batch('b')), /stdout is closed \(EPIPE/);
  assert.equal(writes, 1, 'no write attempted after the stream broke');
  await out.close();
});

test('a real EPIPE on process.stdout: the process exits 141 like a Unix filter (`| head`)', async () => {
  const script = `
    import ${JSON.stringify(new URL('./index.js', import.meta.url).href)};
    import { registry, Message } from '@svc/engine';
    const logger = { warn: (m) => console.error('WARN: ' + m) };
    const out = await registry().get('output', 'stdout').spec.factory({ codec: 'lines' }, { logger });
    const batch = [];
    for (let i = 0; i < 1000; i++) batch.push(new Message('y'.repeat(100)));
    for (let i = 0; ; i++) {
      try { await out.write(batch); }
      catch (err) {
        console.error('REJECTED: ' + err.message);
        try { await out.write(batch); } catch (err2) { console.error('AGAIN: ' + err2.message); }
        break;
      }
      if (i > 100000) { console.error('never failed'); break; }
    }
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: new URL('.', import.meta.url).pathname,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout.once('data', () => child.stdout.destroy()); // the reader goes away, like `| head -1`
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 141, stderr);
  assert.match(stderr, /WARN: stdout was closed by its reader \(EPIPE\): exiting/);
  assert.doesNotMatch(stderr, /never failed/);
});

test('a destroyed stream rejects writes', async () => {
  const stream = new PassThrough();
  const out = new StdoutOutput({ codec: 'lines' }, undefined, { stream });
  stream.destroy();
  await assert.rejects(out.write(batch('x')), /the output stream is closed/);
});
