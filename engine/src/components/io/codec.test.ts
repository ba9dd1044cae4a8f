import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { Message } from '@svc/engine';
import {
  CodecReader,
  MAX_BATCH,
  StreamChunks,
  batchViews,
  encodeBatch,
  parseReadCodec,
  parseWriteCodec,
  readCodec,
  readCodecField,
  writeCodecField,
  type ChunkSource,
} from './codec.js';
import { lint, rng } from './test-context.js';

/** Cuts data into chunks of the given sizes (cycled). */
function chunked(data: Buffer, sizes: () => number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < data.length;) {
    const n = Math.max(1, sizes());
    out.push(Buffer.from(data.subarray(i, i + n)));
    i += n;
  }
  return out;
}

/** A chunk source over an array; async: every chunk comes through a promise. */
function source(chunks: Buffer[], async = false): ChunkSource & { closed: boolean } {
  let i = 0;
  return {
    closed: false,
    next() {
      const c = i < chunks.length ? chunks[i++]! : null;
      return async ? Promise.resolve(c) : c;
    },
    close() {
      this.closed = true;
    },
  };
}

async function readAll(reader: CodecReader): Promise<Message[][]> {
  const batches: Message[][] = [];
  for (;;) {
    const b = await reader.read();
    if (b === null) return batches;
    assert.ok(b.length > 0, 'a batch is never empty');
    batches.push(b);
  }
}

/** What Benthos' scanner gives: split on the delimiter, no empty piece after a final delimiter. */
function expected(data: Buffer, delim: string): string[] {
  const parts = data.toString('latin1').split(delim);
  if (parts[parts.length - 1] === '') parts.pop();
  return parts;
}

const text = (bs: Array<Buffer | Message>) => bs.map((b) => (b instanceof Message ? b.content : b).toString('latin1'));

test('lines: 1-byte chunks give the same pieces as split', async () => {
  const data = Buffer.from('alpha\nbeta\r\n\n\ngamma\n\nlast-unterminated');
  for (const async of [false, true]) {
    const r = new CodecReader(
      source(
        chunked(data, () => 1),
        async,
      ),
      readCodec('lines'),
      1000,
    );
    const got = (await readAll(r)).flat();
    assert.deepEqual(text(got), expected(data, '\n'));
    assert.deepEqual(text(got), ['alpha', 'beta\r', '', '', 'gamma', '', 'last-unterminated']);
  }
});

test('lines: edge cases (empty stream, lone newline, trailing newline, empty lines)', async () => {
  const cases: Array<[string, string[]]> = [
    ['', []],
    ['\n', ['']],
    ['\n\n', ['', '']],
    ['a', ['a']],
    ['a\n', ['a']],
    ['a\n\n', ['a', '']],
    ['\na', ['', 'a']],
  ];
  for (const [input, want] of cases) {
    const r = new CodecReader(source([Buffer.from(input)]), readCodec('lines'), 1000);
    assert.deepEqual(text((await readAll(r)).flat()), want, JSON.stringify(input));
  }
});

test('lines and delim: random data and random chunk sizes match split, for many seeds', async () => {
  const delims = ['\n', '||', 'aab', 'abab', '\r\n', 'xyzzy'];
  const alphabet = 'aabbxyz|\n\r';
  for (let seed = 1; seed <= 60; seed++) {
    const rand = rng(seed);
    const delim = delims[seed % delims.length]!;
    const len = Math.floor(rand() * 3000);
    let s = '';
    while (s.length < len) s += rand() < 0.1 ? delim : alphabet[Math.floor(rand() * alphabet.length)];
    const data = Buffer.from(s, 'latin1');
    const maxChunk = [1, 2, 3, 7, 64, 1000][seed % 6]!;
    const chunks = chunked(data, () => 1 + Math.floor(rand() * maxChunk));
    const maxBatch = seed % 3 === 0 ? 3 : MAX_BATCH;
    const codec = delim === '\n' ? 'lines' : `delim:${delim}`;
    const r = new CodecReader(source(chunks, seed % 2 === 0), readCodec(codec), 1 << 20, maxBatch);
    const batches = await readAll(r);
    for (const b of batches) assert.ok(b.length <= maxBatch);
    assert.deepEqual(text(batches.flat()), expected(data, delim), `seed ${seed}, delim ${JSON.stringify(delim)}`);
  }
});

test('pieces are slices of their chunk, and one read gives all buffered lines as one batch', async () => {
  const chunk = Buffer.from('a\nbb\nccc\nd');
  const r = new CodecReader(source([chunk]), readCodec('lines'), 1000);
  const first = await r.read();
  assert.ok(first);
  assert.deepEqual(text(first), ['a', 'bb', 'ccc']);
  for (const p of first) assert.equal(p.content.buffer, chunk.buffer, 'no copy');
  assert.deepEqual(text((await r.read())!), ['d']);
  assert.equal(await r.read(), null);
});

test('a batch is capped at MAX_BATCH messages; the rest comes on the next reads', async () => {
  const n = MAX_BATCH * 2 + 5;
  const data = Buffer.from('x\n'.repeat(n));
  const r = new CodecReader(source([data]), readCodec('lines'), 1000);
  const sizes = (await readAll(r)).map((b) => b.length);
  assert.deepEqual(sizes, [MAX_BATCH, MAX_BATCH, 5]);
});

test('reads return synchronously while pieces are buffered', () => {
  const r = new CodecReader(source([Buffer.from('a\nb\n'), Buffer.from('c\n')]), readCodec('lines'), 1000, 1);
  const got: string[] = [];
  for (;;) {
    const b = r.read();
    assert.ok(!(b instanceof Promise));
    if (b === null) break;
    got.push(...text(b));
  }
  assert.deepEqual(got, ['a', 'b', 'c']);
});

test('all-bytes: the whole stream is one message (an empty stream too)', async () => {
  const r = new CodecReader(source([Buffer.from('a\nb'), Buffer.from('\nc\n')], true), readCodec('all-bytes'), 1);
  assert.deepEqual(text((await readAll(r)).flat()), ['a\nb\nc\n']);
  const e = new CodecReader(source([]), readCodec('all-bytes'), 1);
  assert.deepEqual(text((await readAll(e)).flat()), ['']);
});

test('max_buffer: a longer line is an error after the lines before it; exactly max_buffer is fine', async () => {
  for (const sizes of [() => 1000, () => 3]) {
    const data = Buffer.from('12345\nok\n1234567\nnever\n');
    const r = new CodecReader(source(chunked(data, sizes)), readCodec('lines'), 5);
    const got: string[] = [];
    await assert.rejects(async () => {
      for (;;) {
        const b = await r.read();
        if (b === null) break;
        got.push(...text(b));
      }
    }, /line 3 \(starting at byte 9\) is longer than max_buffer \(5 bytes\)/);
    assert.deepEqual(got, ['12345', 'ok']);
    assert.equal(await r.read(), null, 'the reader ends after the error');
  }
  // An unterminated final piece over the limit is an error too.
  const r = new CodecReader(source([Buffer.from('abcdefgh')]), readCodec('lines'), 5);
  await assert.rejects(async () => r.read(), /longer than max_buffer \(5 bytes\)/);
});

test('max_buffer with onSkip (skip_long_lines): long pieces are dropped and counted, the rest equals split', async () => {
  const rand = rng(7);
  for (const delim of ['\n', '<|>']) {
    for (let round = 0; round < 20; round++) {
      const pieces: string[] = [];
      for (let i = 0; i < 300; i++) pieces.push('p'.repeat(Math.floor(rand() * (rand() < 0.2 ? 400 : 20))) + i);
      const data = Buffer.from(pieces.join(delim) + (rand() < 0.5 ? delim : ''));
      const max = 50;
      const skipped: number[] = [];
      const r = new CodecReader(
        source(
          chunked(data, () => 1 + Math.floor(rand() * 120)),
          rand() < 0.5,
        ),
        readCodec(delim === '\n' ? 'lines' : `delim:${delim}`),
        max,
        undefined,
        (e) => skipped.push(e.line),
      );
      const got = text((await readAll(r)).flat());
      const all = expected(data, delim);
      assert.deepEqual(
        got,
        all.filter((p) => p.length <= max),
      );
      const long = all.flatMap((p, i) => (p.length > max ? [i + 1] : []));
      assert.deepEqual(skipped, long, 'each long piece reported once, with its line number');
      assert.equal(r.skipped, long.length);
    }
  }
});

/** Runs `fn` counting the bytes Buffer.concat writes (the reader's only way of joining chunks). */
async function concatBytesOf<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const concat = Buffer.concat;
  let bytes = 0;
  Buffer.concat = (list: readonly Uint8Array[], totalLength?: number) => {
    const out = concat(list, totalLength);
    bytes += out.length;
    return out;
  };
  try {
    return [await fn(), bytes];
  } finally {
    Buffer.concat = concat;
  }
}

test('a long line in many tiny chunks is assembled with one copy (no quadratic growth)', async () => {
  const line = 'x'.repeat(150_000);
  for (const delim of ['\n', '<=>']) {
    const data = Buffer.from(`${line}${delim}short${delim}${line}`);
    const r = new CodecReader(source(chunked(data, () => 1)), readCodec(delim === '\n' ? 'lines' : `delim:${delim}`), 1_000_000);
    const [got, copied] = await concatBytesOf(async () => text((await readAll(r)).flat()));
    assert.deepEqual(got, [line, 'short', line]);
    // Each long line copied once, plus a delimiter's worth per chunk at most where the delimiter
    // is longer than a byte; joining the tail again at every chunk would copy ~150,000² / 2 bytes.
    const bound = 2 * line.length + data.length * 2 * delim.length;
    assert.ok(copied <= bound, `${copied} bytes copied for ${data.length} bytes read (at most ${bound})`);
  }
});

test('codec names: supported ones parse, others are clear lint errors', () => {
  assert.deepEqual(parseReadCodec('lines'), { kind: 'lines', delim: Buffer.from('\n') });
  assert.deepEqual(parseReadCodec('delim:||'), { kind: 'delim', delim: Buffer.from('||') });
  assert.equal((parseReadCodec('all-bytes') as { kind: string }).kind, 'all-bytes');
  assert.match(parseReadCodec('csv') as string, /unsupported codec "csv": this input supports lines, delim:<delimiter>.* or all-bytes/);
  assert.match(parseReadCodec('delim:') as string, /empty delimiter/);
  assert.match(parseReadCodec('append') as string, /unsupported codec "append"/);
  assert.equal((parseWriteCodec('append') as { kind: string }).kind, 'append');
  assert.match(parseWriteCodec('gzip') as string, /this output supports lines, delim:<delimiter>.*append or all-bytes/);

  assert.deepEqual(lint(readCodecField(), 'lines'), []);
  assert.equal(readCodecField().defaultValue, 'lines');
  assert.match(lint(readCodecField(), 'regex:x').join(), /unsupported codec "regex:x"/);
  assert.match(lint(writeCodecField('raw'), 'tar').join(), /unsupported codec "tar"/);
});

const msgs = (bs: Array<Buffer | Message>) => bs.map((b) => (b instanceof Message ? b : new Message(b)));

test('encodeBatch: each message followed by the suffix, in one buffer', () => {
  const batch = msgs([Buffer.from('a'), Buffer.from(''), Buffer.from('ccc')]);
  assert.equal(encodeBatch(batch, Buffer.from('\n')).toString(), 'a\n\nccc\n');
  assert.equal(encodeBatch(batch, Buffer.from('<>')).toString(), 'a<><>ccc<>');
  assert.equal(encodeBatch(batch, Buffer.alloc(0)).toString(), 'accc');
  assert.equal(encodeBatch([], Buffer.from('\n')).length, 0);
});

test("encodeBatch and batchViews: a message that already ends with the suffix gets none (Benthos' writers)", () => {
  // printf 'input: {generate: {count: 2, interval: "", mapping: root = "a\\n"}}\noutput: {stdout: {}}\n' | benthos -c /dev/stdin
  // wrote "a\na\n" (not "a\n\na\n\n").
  const batch = msgs([Buffer.from('a\n'), Buffer.from('b'), Buffer.from('\n'), Buffer.from('c<>')]);
  assert.equal(encodeBatch(batch, Buffer.from('\n')).toString(), 'a\nb\n\nc<>\n');
  assert.equal(encodeBatch(batch, Buffer.from('<>')).toString(), 'a\n<>b<>\n<>c<>');
  const big = Buffer.from(`${'x'.repeat(5000)}\n`);
  assert.deepEqual(Buffer.concat(batchViews(msgs([big]), Buffer.from('\n'))!).toString(), big.toString());
});

test('encodeBatch: adjacent slices separated by the delimiter are coalesced, byte-identical', () => {
  const chunk = Buffer.from('one\ntwo\n\nthree\nfour|five\nsix');
  // Slices like a reader makes, plus traps: a slice not followed by the delimiter, another buffer.
  const a = chunk.subarray(0, 3); // one
  const b = chunk.subarray(4, 7); // two
  const c = chunk.subarray(8, 8); // ''
  const d = chunk.subarray(9, 14); // three
  const e = chunk.subarray(15, 19); // four  (followed by '|', not '\n')
  const g = chunk.subarray(20, 24); // five  (adjacent to e with a 1-byte gap, but the gap is '|')
  const h = Buffer.from('six');
  const out = encodeBatch(msgs([a, b, c, d, e, g, h]), Buffer.from('\n'));
  assert.equal(out.toString(), 'one\ntwo\n\nthree\nfour\nfive\nsix\n');
  // Multi-byte delimiter runs.
  const c2 = Buffer.from('x||yy||||z');
  const out2 = encodeBatch(msgs([c2.subarray(0, 1), c2.subarray(3, 5), c2.subarray(7, 7), c2.subarray(9, 10)]), Buffer.from('||'));
  assert.equal(out2.toString(), 'x||yy||||z||');
  // No delimiter (append): adjacent slices are one run.
  const out3 = encodeBatch(msgs([c2.subarray(0, 4), c2.subarray(4, 10)]), Buffer.alloc(0));
  assert.equal(out3.toString(), 'x||yy||||z');
});

test('encodeBatch re-joins what a reader split: output identical to input', async () => {
  const rand = rng(7);
  let s = '';
  while (s.length < 600_000) s += 'line ' + Math.floor(rand() * 1e9) + (rand() < 0.05 ? '\n\n' : '\n');
  const data = Buffer.from(s);
  const r = new CodecReader(source(chunked(data, () => 65536)), readCodec('lines'), 1 << 20);
  const parts: Buffer[] = [];
  for (const batch of await readAll(r)) parts.push(encodeBatch(msgs(batch), Buffer.from('\n')));
  assert.ok(Buffer.concat(parts).equals(data));
});

test('batchViews: what a reader split, as views of its chunks (no copy), byte-identical; small pieces are left to a copy', async () => {
  const rand = rng(11);
  let s = '';
  while (s.length < 600_000) s += 'line ' + Math.floor(rand() * 1e9) + (rand() < 0.05 ? '\n\n' : '\n');
  const data = Buffer.from(s);
  const chunks = chunked(data, () => 65536);
  const r = new CodecReader(source(chunks), readCodec('lines'), 1 << 20);
  const parts: Buffer[] = [];
  let viewed = 0;
  for (const batch of await readAll(r)) {
    // As stdout writes: the views when there are, else one copy.
    const views = batchViews(msgs(batch), Buffer.from('\n')) ?? [encodeBatch(msgs(batch), Buffer.from('\n'))];
    for (const v of views) if (chunks.some((c) => c.buffer === v.buffer)) viewed += v.length;
    parts.push(...views);
  }
  assert.ok(Buffer.concat(parts).equals(data));
  assert.ok(viewed > data.length * 0.95, `almost every byte is a view of a chunk: ${viewed} of ${data.length}`);
  // Messages of their own (a generator's, a processor's): one small view each would cost more than a copy.
  assert.equal(batchViews(msgs([Buffer.from('a'), Buffer.from('b')]), Buffer.from('\n')), undefined);
  // More runs than allowed: copied.
  const big = Array.from({ length: 5 }, () => Buffer.alloc(8192, 'x'));
  assert.equal(batchViews(msgs(big), Buffer.from('\n'), 4), undefined);
  assert.equal(Buffer.concat(batchViews(msgs(big), Buffer.from('\n'))!).toString(), big.map((b) => b.toString() + '\n').join(''));
});

test('StreamChunks: chunks as written, back-pressure past ~1 MiB, errors surface', async () => {
  const stream = new PassThrough();
  const src = new StreamChunks(stream);
  const big = Buffer.alloc(256 * 1024, 1);
  for (let i = 0; i < 6; i++) stream.write(big);
  await new Promise((r) => setImmediate(r));
  assert.ok(stream.isPaused(), 'paused once more than 1 MiB is queued');
  let total = 0;
  for (let i = 0; i < 6; i++) total += ((await src.next()) as Buffer).length;
  assert.equal(total, 6 * big.length);
  assert.ok(!stream.isPaused(), 'resumed once drained');
  stream.end(Buffer.from('tail'));
  assert.equal(((await src.next()) as Buffer).toString(), 'tail');
  assert.equal(await src.next(), null);

  const failing = new PassThrough();
  const src2 = new StreamChunks(failing);
  const pending = src2.next();
  failing.destroy(new Error('disk on fire'));
  await assert.rejects(async () => pending, /disk on fire/);
});

test('StreamChunks: close resolves a pending next() with null', async () => {
  const stream = new PassThrough();
  const src = new StreamChunks(stream);
  const pending = src.next();
  src.close();
  assert.equal(await pending, null);
  assert.ok(stream.destroyed);
});
