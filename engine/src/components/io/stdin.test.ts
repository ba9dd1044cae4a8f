import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { END_OF_INPUT, InputFailedError, registry, type EndOfInput, type Transaction } from '@svc/engine';
import { StdinInput, stdinSpec, type StdinConfig } from './stdin.js';
import { StdoutOutput } from './stdout.js';
import './index.js';
import { lint, rng, testContext, withDefaults } from './test-context.js';

const conf = (c: Partial<StdinConfig> = {}): StdinConfig => withDefaults(stdinSpec, c);

async function drain(input: StdinInput): Promise<string[][]> {
  const batches: string[][] = [];
  for (;;) {
    const r: Transaction | EndOfInput = await input.read();
    if (r === END_OF_INPUT) return batches;
    batches.push(r.batch.map((m) => m.text()));
    r.ack();
  }
}

/** Writes data to the stream in the given chunk sizes, yielding between writes. */
async function feed(stream: PassThrough, data: Buffer, size: () => number): Promise<void> {
  for (let i = 0; i < data.length;) {
    const n = Math.max(1, size());
    if (!stream.write(data.subarray(i, i + n))) await new Promise((r) => stream.once('drain', r));
    else if (i % 7 === 0) await new Promise((r) => setImmediate(r));
    i += n;
  }
  stream.end();
}

test('config: Benthos fields and defaults, lint of codec', () => {
  assert.deepEqual(conf(), { codec: 'lines', scanner: undefined, max_buffer: 1_000_000, skip_long_lines: false, auto_replay_nacks: true });
  assert.match(lint(stdinSpec, conf({ codec: 'csv' })).join(), /unsupported codec "csv"/);
  assert.deepEqual(lint(stdinSpec, conf({ scanner: { csv: { parse_header_row: false } } })), []);
  assert.match(lint(stdinSpec, conf({ scanner: { lines: { nope: 1 } } })).join(), /scanner\.lines: unknown field "nope"/);
  assert.ok(registry().get('input', 'stdin'));
});

test('lines fed one byte at a time', async () => {
  const stream = new PassThrough();
  const input = new StdinInput(conf(), testContext('stdin'), { stream });
  const data = Buffer.from('first\n\nthird\r\n  fourth  \nno newline at the end');
  const done = feed(stream, data, () => 1);
  const got = (await drain(input)).flat();
  await done;
  assert.deepEqual(got, ['first', '', 'third\r', '  fourth  ', 'no newline at the end']);
});

test('random chunk sizes: messages equal split, batches of at most 4096', async () => {
  const rand = rng(42);
  let s = '';
  while (s.length < 400_000) s += rand() < 0.1 ? '\n' : String.fromCharCode(97 + Math.floor(rand() * 26));
  const data = Buffer.from(s);
  const stream = new PassThrough();
  const input = new StdinInput(conf(), testContext('stdin'), { stream });
  const done = feed(stream, data, () => 1 + Math.floor(rand() * 20_000));
  const batches = await drain(input);
  await done;
  for (const b of batches) assert.ok(b.length <= 4096);
  assert.ok(batches.length < 400, `lines batched per chunk, got ${batches.length} batches`);
  const want = s.split('\n');
  if (want[want.length - 1] === '') want.pop();
  assert.deepEqual(batches.flat(), want);
});

test('delim with a multi-char delimiter, and all-bytes', async () => {
  const s1 = new PassThrough();
  const d = new StdinInput(conf({ codec: 'delim:<|>' }), undefined, { stream: s1 });
  const done = feed(s1, Buffer.from('a<|>b<|<|>><|><|>c<|'), () => 2);
  assert.deepEqual((await drain(d)).flat(), ['a', 'b<|', '>', '', 'c<|']);
  await done;

  const s2 = new PassThrough();
  const all = new StdinInput(conf({ codec: 'all-bytes' }), undefined, { stream: s2 });
  const done2 = feed(s2, Buffer.from('x\ny\n'), () => 1);
  assert.deepEqual(await drain(all), [['x\ny\n']]);
  await done2;
});

test('a line over max_buffer: earlier lines delivered, then an InputFailedError naming the input and the limit', async () => {
  const stream = new PassThrough();
  const ctx = testContext('stdin');
  const input = new StdinInput(conf({ max_buffer: 4 }), ctx, { stream });
  stream.end('abcd\nabcdefgh\nlater\n');
  assert.deepEqual(
    ((await input.read()) as Transaction).batch.map((m) => m.text()),
    ['abcd'],
  );
  await assert.rejects(
    async () => input.read(),
    (err: Error) =>
      err instanceof InputFailedError && /^stdin input \(root\.test\.stdin\): line 2 .*longer than max_buffer \(4 bytes\).*Raise max_buffer/.test(err.message),
  );
  assert.equal(await input.read(), END_OF_INPUT);
});

test('skip_long_lines: long lines skipped (first 10 logged), the rest read, the count logged at the end', async () => {
  const stream = new PassThrough();
  const ctx = testContext('stdin');
  const input = new StdinInput(conf({ max_buffer: 4, skip_long_lines: true }), ctx, { stream });
  stream.end('abcd\n' + 'abcdefgh\n'.repeat(12) + 'later\nend\n');
  assert.deepEqual((await drain(input)).flat(), ['abcd', 'end']);
  const warnings = ctx.logger.lines.filter((l) => l.level === 'WARN').map((l) => l.msg);
  assert.equal(warnings.length, 11);
  assert.match(warnings[0]!, /^stdin: skipped line 2 \(starting at byte 5\): it is longer than max_buffer \(4 bytes/);
  assert.match(warnings[10]!, /^stdin: skipped 13 line\(s\) longer than max_buffer \(4 bytes/);
});

test('a stream error is logged once and ends the input', async () => {
  const stream = new PassThrough();
  const ctx = testContext('stdin');
  const input = new StdinInput(conf(), ctx, { stream });
  stream.write('a\n');
  assert.deepEqual(
    ((await input.read()) as Transaction).batch.map((m) => m.text()),
    ['a'],
  );
  const pending = input.read();
  stream.destroy(new Error('EIO: i/o error'));
  assert.equal(await pending, END_OF_INPUT);
  assert.equal(await input.read(), END_OF_INPUT);
  const errors = ctx.logger.lines.filter((l) => l.level === 'ERROR');
  assert.equal(errors.length, 1);
  assert.match(errors[0]!.msg, /Failed to read stdin, stopping the input: EIO: i\/o error/);
});

test('close makes a pending read resolve END_OF_INPUT', async () => {
  const stream = new PassThrough();
  const input = new StdinInput(conf(), undefined, { stream });
  stream.write('one\n');
  const r = await input.read();
  assert.notEqual(r, END_OF_INPUT);
  const pending = input.read();
  await input.close();
  assert.equal(await pending, END_OF_INPUT);
  assert.equal(await input.read(), END_OF_INPUT);
});

test('the registered factory does not touch process.stdin until it reads', async () => {
  const before = process.stdin.listenerCount('data');
  const input = await registry().get('input', 'stdin')!.spec.factory(conf(), testContext('stdin'));
  assert.ok(input instanceof StdinInput);
  assert.equal(process.stdin.listenerCount('data'), before);
  await (input as StdinInput).close();
});

test('stdin → stdout through the components is byte-identical', async () => {
  const rand = rng(3);
  let s = '';
  while (s.length < 1_000_000) s += 'msg-' + Math.floor(rand() * 1e6) + (rand() < 0.02 ? '\r\n\n' : '\n');
  const data = Buffer.from(s);
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const out: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  const input = new StdinInput(conf(), undefined, { stream: stdin });
  const output = new StdoutOutput({ codec: 'lines' }, undefined, { stream: stdout });
  const done = feed(stdin, data, () => 1 + Math.floor(rand() * 100_000));
  for (;;) {
    const r = await input.read();
    if (r === END_OF_INPUT) break;
    await output.write(r.batch);
    r.ack();
  }
  await done;
  assert.ok(Buffer.concat(out).equals(data));
});

test('the real process.stdin and process.stdout: a child process pipes 3 MB through unchanged', () => {
  const rand = rng(11);
  const lines: string[] = [];
  let size = 0;
  while (size < 3_000_000) {
    const l = 'row ' + Math.floor(rand() * 1e12) + ' ' + 'x'.repeat(Math.floor(rand() * 80));
    lines.push(l);
    size += l.length + 1;
  }
  const data = Buffer.from(lines.join('\n') + '\n');
  const script = `
    import { registry, END_OF_INPUT } from '@svc/engine';
    import ${JSON.stringify(new URL('./index.js', import.meta.url).href)};
    const ctx = { logger: { error: (m) => console.error(m), warn() {}, info() {}, debug() {} } };
    const input = await registry().get('input', 'stdin').spec.factory({ codec: 'lines', max_buffer: 1000000, auto_replay_nacks: true }, ctx);
    const output = await registry().get('output', 'stdout').spec.factory({ codec: 'lines' }, ctx);
    await input.connect();
    for (;;) {
      const r = await input.read();
      if (r === END_OF_INPUT) break;
      await output.write(r.batch);
      r.ack();
    }
    await input.close();
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    input: data,
    maxBuffer: 64 * 1024 * 1024,
    cwd: new URL('.', import.meta.url).pathname,
  });
  assert.equal(r.stderr.toString(), '');
  assert.equal(r.status, 0);
  assert.ok(r.stdout.equals(data), 'output identical to input');
});
