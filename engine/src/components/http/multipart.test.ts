import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MultipartError, buildMultipart, canonicalHeader, parseContentType, parseMultipart } from './multipart.js';
import { RetryRules, backoffWait } from './retry-rules.js';

describe('multipart bodies', () => {
  it('round-trips parts, with a preamble, an epilogue, quoted boundaries and folded headers', () => {
    const mp = buildMultipart([
      { headers: { 'content-type': 'text/plain' }, body: Buffer.from('a') },
      { headers: {}, body: Buffer.from('') },
      { headers: { 'x-thing': 'y' }, body: Buffer.from('--not-a-boundary\r\n') },
    ]);
    const parts = parseMultipart(mp.body, mp.contentType);
    assert.deepEqual(
      parts.map((p) => p.body.toString()),
      ['a', '', '--not-a-boundary\r\n'],
    );
    assert.equal(parts[0]!.headers['content-type'], 'text/plain');
    const raw = Buffer.from('preamble\r\n--b c\r\nContent-Type: text/plain;\r\n charset=utf-8\r\n\r\nhello\r\n--b c--\r\nepilogue');
    const p2 = parseMultipart(raw, 'multipart/mixed; boundary="b c"');
    assert.deepEqual(
      p2.map((p) => [p.headers['content-type'], p.body.toString()]),
      [['text/plain; charset=utf-8', 'hello']],
    );
  });

  it('refuses malformed bodies with a MultipartError', () => {
    const bad: Array<[string, string]> = [
      ['--x\r\n\r\nbody\r\n--x--', 'multipart/mixed'],
      ['--x\r\n\r\nunclosed', 'multipart/mixed; boundary=x'],
      ['nothing', 'multipart/mixed; boundary=x'],
      ['--xjunk\r\n\r\nbody\r\n--x--', 'multipart/mixed; boundary=x'],
      ['--x\r\nno blank line\r\n--x--', 'multipart/mixed; boundary=x'],
    ];
    for (const [body, type] of bad) assert.throws(() => parseMultipart(Buffer.from(body), type), MultipartError, body);
  });

  it('parses Content-Type parameters and writes canonical header names', () => {
    assert.deepEqual(parseContentType('Multipart/Form-Data; boundary="a\\"b"; charset=utf-8'), {
      type: 'multipart/form-data',
      params: { boundary: 'a"b', charset: 'utf-8' },
    });
    assert.equal(canonicalHeader('x-forwarded-FOR'), 'X-Forwarded-For');
  });
});

describe('retry rules', () => {
  it('drop_on, then backoff_on, then successful_on, then 2xx', () => {
    const r = new RetryRules({ backoff_on: [429, 200], drop_on: [400, 429], successful_on: [409, 303] });
    assert.equal(r.verdict(429), 'drop');
    assert.equal(r.verdict(200), 'backoff');
    assert.equal(r.verdict(204), 'success');
    assert.equal(r.verdict(409), 'success');
    assert.equal(r.verdict(303), 'success');
    assert.equal(r.verdict(302), 'retry');
    assert.equal(r.verdict(500), 'retry');
    assert.equal(r.verdict(400), 'drop');
  });

  it('backs off from retry_period, doubling, up to max_retry_backoff', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((n) => backoffWait(100, 1000, n)),
      [100, 200, 400, 800, 1000],
    );
  });
});
