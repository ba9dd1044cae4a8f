import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { Deadline } from './deadline.js';
import { BodyError, readBody } from './request-body.js';

/** A request stand-in: a stream with headers. */
function req(headers: Record<string, string> = {}): PassThrough & { headers: Record<string, unknown> } {
  return Object.assign(new PassThrough(), { headers });
}

/** Writes chunks one by one (each a 'data' event), then scribbles over them: a reader that kept them would see it. */
async function send(r: PassThrough, chunks: Buffer[]): Promise<void> {
  for (const c of chunks) {
    r.write(c);
    await new Promise((res) => setImmediate(res));
  }
  for (const c of chunks) c.fill('!');
  r.end();
}

function chunksOf(total: number, size: number): { chunks: Buffer[]; expected: Buffer } {
  const expected = Buffer.alloc(total);
  for (let i = 0; i < total; i++) expected[i] = 97 + (i % 26);
  const chunks: Buffer[] = [];
  for (let i = 0; i < total; i += size) chunks.push(Buffer.from(expected.subarray(i, i + size)));
  return { chunks, expected };
}

test('with Content-Length: each chunk is copied on arrival into one buffer of that size (chunks are not kept)', async () => {
  const { chunks, expected } = chunksOf(300_000, 16_384);
  const r = req({ 'content-length': String(expected.length) });
  const deadline = new Deadline(5000);
  const body = readBody(r, 1_000_000, deadline);
  await send(r, chunks);
  const got = await body;
  deadline.clear();
  assert.ok(got.equals(expected), 'the bytes as sent, though every chunk was overwritten after it arrived');
  assert.equal(got.byteOffset, 0);
  assert.equal(got.buffer.byteLength, expected.length, 'one buffer of exactly the declared size, the body itself (no copy after)');
});

test('chunked (no Content-Length): the buffer doubles; a single chunk is the body itself', async () => {
  const { chunks, expected } = chunksOf(1_000_003, 10_000);
  const r = req();
  const deadline = new Deadline(5000);
  const body = readBody(r, 2_000_000, deadline);
  await send(r, chunks);
  const got = await body;
  assert.ok(got.equals(expected));
  assert.ok(got.buffer.byteLength <= 2 * expected.length, `capacity ${got.buffer.byteLength} within 2× the body`);

  const one = req();
  const single = Buffer.from('just one chunk');
  const p = readBody(one, 100, deadline);
  one.end(single);
  assert.equal(await p, single);
  deadline.clear();
});

test('over the limit: 413, by Content-Length up front or while a chunked body streams', async () => {
  const deadline = new Deadline(5000);
  await assert.rejects(readBody(req({ 'content-length': '101' }), 100, deadline), (e: unknown) => e instanceof BodyError && e.status === 413);
  const r = req();
  const p = readBody(r, 100, deadline);
  r.write(Buffer.alloc(60));
  r.write(Buffer.alloc(60));
  await assert.rejects(p, (e: unknown) => e instanceof BodyError && e.status === 413);
  deadline.clear();
});

test('a deadline given in ms bounds the body alone: 408 when it trickles past it, and an aborted body is 400', async () => {
  // Deadlines do not keep the process alive (a connection does, in a server): this does, here.
  const alive = setInterval(() => {}, 1000);
  const slow = req({ 'content-length': '10' });
  const p = readBody(slow, 100, 50);
  slow.write(Buffer.from('abc'));
  await assert.rejects(p, (e: unknown) => e instanceof BodyError && e.status === 408);

  const cut = req({ 'content-length': '10' });
  const q = readBody(cut, 100, 5000);
  cut.write(Buffer.from('abc'));
  cut.emit('aborted');
  await assert.rejects(q, (e: unknown) => e instanceof BodyError && e.status === 400);

  const whole = req();
  const r = readBody(whole, 100, 5000);
  whole.end(Buffer.from('{"a":1}'));
  assert.equal((await r).toString(), '{"a":1}');
  clearInterval(alive);
});
