import assert from 'node:assert/strict';
import * as http2 from 'node:http2';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import WebSocket from 'ws';
import { Message, registry, type Batch, type Input, type Output, type Processor } from '@svc/engine';
import { waitFor } from '@svc/engine/testing';
import './index.js';
import type { HttpServerInput } from './http-server-input.js';
import { buildMultipart, parseMultipart } from './multipart.js';
import { FakeService, build, drive, lint, makeCerts, rawExchange, testContext, type TestCerts } from './test-support.js';

/** An output that records what it got and can be told to fail or stall. */
class Recorder implements Output {
  readonly batches: Batch[] = [];
  fail: Error | undefined;
  stallMs = 0;
  async write(batch: Batch): Promise<void> {
    if (this.stallMs) await new Promise((r) => setTimeout(r, this.stallMs));
    if (this.fail) throw this.fail;
    this.batches.push(batch);
  }
}

const sync = () => build<Output>('output', 'sync_response', {});
const syncProc = () => build<Processor>('processor', 'sync_response', {});
const upper: Processor = {
  process: (b) => {
    for (const m of b) m.content = Buffer.from(m.text().toUpperCase());
    return [b];
  },
};

describe('http_server input on the service-wide server', () => {
  const service = new FakeService();
  let base = '';
  before(async () => (base = await service.listen()));
  after(() => service.close());

  async function serve(conf: Record<string, unknown>, processors: Processor[], output?: Output) {
    const input = await build<HttpServerInput>('input', 'http_server', conf, testContext({ service }));
    const run = drive(input, processors, output);
    await new Promise((r) => setTimeout(r, 20));
    return {
      input,
      stop: async () => {
        await run.stop();
        for (const p of [conf['path'] ?? '/post', conf['ws_path'] ?? '/post/ws']) service.unmount(String(p).replace(/\{.*$/, ''));
      },
    };
  }

  it('lints its defaults; turns a POST into a message with the request metadata; answers an empty 200 once acked', async () => {
    const reg = registry().get('input', 'http_server')!;
    assert.deepEqual(lint(reg.spec.config, {}), []);
    assert.match(lint(reg.spec.config, { allowed_verbs: [] }).join(), /at least one verb/);
    const rec = new Recorder();
    const s = await serve({}, [], rec);
    const res = await request(`${base}/post?a=1&a=2&b=x`, {
      method: 'POST',
      body: 'hello',
      headers: { 'user-agent': 'test-agent', 'x-custom-thing': 'v1', cookie: 'session=abc; theme="dark"' },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(await res.body.text(), '');
    assert.equal(rec.batches.length, 1);
    const m = rec.batches[0]![0]!;
    assert.equal(m.text(), 'hello');
    assert.equal(m.getMeta('http_server_user_agent'), 'test-agent');
    assert.equal(m.getMeta('http_server_request_path'), '/post');
    assert.equal(m.getMeta('http_server_verb'), 'POST');
    assert.equal(m.getMeta('http_server_remote_ip'), '127.0.0.1');
    assert.equal(m.getMeta('X-Custom-Thing'), 'v1');
    assert.equal(m.getMeta('User-Agent'), 'test-agent');
    assert.equal(m.getMeta('a'), '1');
    assert.equal(m.getMeta('b'), 'x');
    assert.equal(m.getMeta('session'), 'abc');
    assert.equal(m.getMeta('theme'), 'dark');
    assert.equal(m.getMeta('http_server_tls_version'), undefined);
    await s.stop();
  });

  it('answers a verb that is not allowed with 405 and Allow, and never reads it', async () => {
    const rec = new Recorder();
    const s = await serve({ allowed_verbs: ['POST', 'PUT'] }, [], rec);
    const res = await request(`${base}/post`, { method: 'DELETE' });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers['allow'], 'POST, PUT');
    await res.body.text();
    const put = await request(`${base}/post`, { method: 'PUT', body: 'x' });
    assert.equal(put.statusCode, 200);
    await put.body.text();
    assert.equal(rec.batches.length, 1);
    await s.stop();
  });

  it('adds {param} segments as metadata; a path ending in / matches every path under it', async () => {
    const rec = new Recorder();
    const s = await serve({ path: '/orders/{id}/items/{item:[0-9]+}', ws_path: '' }, [], rec);
    const ok = await request(`${base}/orders/o%2D1/items/42`, { method: 'POST', body: 'a' });
    assert.equal(ok.statusCode, 200);
    await ok.body.text();
    const bad = await request(`${base}/orders/o-1/items/x`, { method: 'POST', body: 'a' });
    assert.equal(bad.statusCode, 404);
    await bad.body.text();
    assert.equal(rec.batches[0]![0]!.getMeta('id'), 'o-1');
    assert.equal(rec.batches[0]![0]!.getMeta('item'), '42');
    await s.stop();

    const rec2 = new Recorder();
    const s2 = await serve({ path: '/any/', ws_path: '' }, [], rec2);
    for (const p of ['/any/', '/any/deep/er']) {
      const r = await request(`${base}${p}`, { method: 'POST', body: p });
      assert.equal(r.statusCode, 200);
      await r.body.text();
    }
    assert.deepEqual(
      rec2.batches.map((b) => b[0]!.getMeta('http_server_request_path')),
      ['/any/', '/any/deep/er'],
    );
    await s2.stop();
  });

  it('answers with the sync_response output: status and headers interpolated, metadata_headers', async () => {
    const s = await serve(
      {
        sync_response: {
          status: '${! meta("status") | "201" }',
          headers: { 'Content-Type': 'application/json', 'X-Len': '${! content().length() }' },
          metadata_headers: { include_prefixes: ['out_'] },
        },
      },
      [
        {
          process: (b) => {
            for (const m of b) {
              m.setJson({ echo: m.text() });
              m.setMeta('out_trace', 't-1');
              m.setMeta('secret', 'no');
              if (m.text().includes('teapot')) m.setMeta('status', '418');
            }
            return [b];
          },
        },
      ],
      await sync(),
    );
    const res = await request(`${base}/post`, { method: 'POST', body: 'hi' });
    assert.equal(res.statusCode, 201);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.headers['x-len'], '13');
    assert.equal(res.headers['out_trace'], 't-1');
    assert.equal(res.headers['secret'], undefined);
    assert.equal(await res.body.text(), '{"echo":"hi"}');
    const tea = await request(`${base}/post`, { method: 'POST', body: 'teapot' });
    assert.equal(tea.statusCode, 418);
    await tea.body.text();
    await s.stop();
  });

  it('with a bad status interpolation answers 502', async () => {
    const s = await serve({ sync_response: { status: '${! "nope" }' } }, [], await sync());
    const res = await request(`${base}/post`, { method: 'POST', body: 'x' });
    assert.equal(res.statusCode, 502);
    await res.body.text();
    await s.stop();
  });

  it('the sync_response processor stores the response and lets the message go on to the output', async () => {
    const rec = new Recorder();
    const s = await serve({}, [await syncProc(), upper], rec);
    const res = await request(`${base}/post`, { method: 'POST', body: 'quiet' });
    assert.equal(res.statusCode, 200);
    assert.equal(await res.body.text(), 'quiet');
    assert.equal(rec.batches[0]![0]!.text(), 'QUIET');
    await s.stop();
  });

  it('answers every byte value unchanged, a small answer (sent with the head in one write) and a large one', async () => {
    const s = await serve({}, [await syncProc()], new Recorder());
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    for (const body of [bytes, Buffer.concat(Array.from({ length: 80 }, () => bytes))]) {
      const res = await request(`${base}/post`, { method: 'POST', body });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-length'], String(body.length));
      assert.ok(Buffer.from(await res.body.arrayBuffer()).equals(body));
    }
    await s.stop();
  });

  it('makes a multipart body a batch of its parts, and answers several responses as multipart/form-data', async () => {
    const rec = new Recorder();
    const s = await serve({}, [upper, await syncProc()], rec);
    const mp = buildMultipart(
      [
        { headers: { 'content-type': 'text/plain' }, body: Buffer.from('one') },
        { headers: {}, body: Buffer.from('two\r\nlines') },
      ],
      'mixed',
    );
    const res = await request(`${base}/post`, { method: 'POST', body: mp.body, headers: { 'content-type': mp.contentType } });
    assert.equal(res.statusCode, 200);
    const type = String(res.headers['content-type']);
    assert.match(type, /^multipart\/form-data; boundary=/);
    const parts = parseMultipart(Buffer.from(await res.body.arrayBuffer()), type);
    assert.deepEqual(
      parts.map((p) => p.body.toString()),
      ['ONE', 'TWO\r\nLINES'],
    );
    assert.deepEqual(
      rec.batches[0]!.map((m) => m.text()),
      ['ONE', 'TWO\r\nLINES'],
    );
    await s.stop();
  });

  it('answers a malformed multipart body with 400 and reads nothing', async () => {
    const rec = new Recorder();
    const s = await serve({}, [], rec);
    for (const [type, body] of [
      ['multipart/mixed', '--x\r\n\r\nbody\r\n--x--'],
      ['multipart/mixed; boundary=x', '--x\r\n\r\nno closing delimiter'],
      ['multipart/mixed; boundary=x', 'no delimiter at all'],
      ['multipart/mixed; boundary=x', '--x\r\nbad header line\r\n\r\nbody\r\n--x--'],
    ] as const) {
      const res = await request(`${base}/post`, { method: 'POST', body, headers: { 'content-type': type } });
      assert.equal(res.statusCode, 400, `${type} ${JSON.stringify(body)}`);
      await res.body.text();
    }
    assert.equal(rec.batches.length, 0);
    await s.stop();
  });

  it('answers an oversized body with 413, by Content-Length or while streaming, and reads nothing', async () => {
    const rec = new Recorder();
    const s = await serve({ max_body_size: 1024 }, [], rec);
    const port = Number(new URL(base).port);
    const declared = await rawExchange(port, [`POST /post HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n`, 'x'.repeat(100)], { waitMs: 3000 });
    assert.match(declared.text, /^HTTP\/1\.1 413 /);
    const chunked = await rawExchange(
      port,
      [`POST /post HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n`, `800\r\n${'y'.repeat(0x800)}\r\n`, '0\r\n\r\n'],
      { waitMs: 3000 },
    );
    assert.match(chunked.text, /^HTTP\/1\.1 413 /);
    const fits = await request(`${base}/post`, { method: 'POST', body: 'z'.repeat(1024) });
    assert.equal(fits.statusCode, 200);
    await fits.body.text();
    assert.equal(rec.batches.length, 1);
    await s.stop();
  });

  it('answers 502 when the message is nacked', async () => {
    const rec = new Recorder();
    rec.fail = new Error('downstream refused');
    const s = await serve({}, [], rec);
    const res = await request(`${base}/post`, { method: 'POST', body: 'x' });
    assert.equal(res.statusCode, 502);
    assert.doesNotMatch(await res.body.text(), /downstream/);
    await s.stop();
  });

  it('answers 408 and closes the connection when delivery takes longer than timeout; the message is still delivered', async () => {
    const rec = new Recorder();
    rec.stallMs = 600;
    const s = await serve({ timeout: '200ms' }, [], rec);
    const port = Number(new URL(base).port);
    const r = await rawExchange(port, ['POST /post HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nslow'], { waitMs: 3000 });
    assert.match(r.text, /^HTTP\/1\.1 408 /);
    assert.match(r.text, /Connection: close/i);
    assert.ok(r.closedByServer);
    assert.ok(r.ms < 2000, `answered after ${r.ms}ms`);
    await new Promise((res) => setTimeout(res, 600));
    assert.equal(rec.batches.length, 1);
    await s.stop();
  });

  it('answers 408 when the body trickles in slower than timeout (slowloris)', async () => {
    const rec = new Recorder();
    const s = await serve({ timeout: '300ms' }, [], rec);
    const port = Number(new URL(base).port);
    const chunks = ['POST /post HTTP/1.1\r\nHost: x\r\nContent-Length: 20\r\n\r\n', ...'abcdefghijklmnopqrst'.split('')];
    const r = await rawExchange(port, chunks, { gapMs: 100, waitMs: 5000 });
    assert.match(r.text, /^HTTP\/1\.1 408 /);
    assert.ok(r.ms < 2500, `answered after ${r.ms}ms`);
    assert.equal(rec.batches.length, 0);
    await s.stop();
  });

  it('answers 429 with Retry-After when its rate limit is exhausted', async () => {
    let left = 1;
    const rl = { access: () => (left-- > 0 ? 0 : 2500) };
    const input = await build<Input>('input', 'http_server', { rate_limit: 'rl', path: '/limited', ws_path: '' }, testContext({ service, rateLimits: { rl } }));
    const run = drive(input, [], new Recorder());
    await new Promise((r) => setTimeout(r, 20));
    const a = await request(`${base}/limited`, { method: 'POST', body: 'a' });
    const b = await request(`${base}/limited`, { method: 'POST', body: 'b' });
    assert.equal(a.statusCode, 200);
    assert.equal(b.statusCode, 429);
    assert.equal(b.headers['retry-after'], '3');
    await a.body.text();
    await b.body.text();
    await run.stop();
    service.unmount('/limited');
  });

  it('answers 503 once closing: queued requests are never read, new ones refused', async () => {
    const input = await build<HttpServerInput>('input', 'http_server', { path: '/closing', ws_path: '' }, testContext({ service }));
    await input.connect();
    // Nobody reads: the request waits in the queue until the input closes.
    const pending = request(`${base}/closing`, { method: 'POST', body: 'a' });
    await new Promise((r) => setTimeout(r, 50));
    await input.close();
    const res = await pending;
    assert.equal(res.statusCode, 503);
    await res.body.text();
    const late = await request(`${base}/closing`, { method: 'POST', body: 'b' });
    assert.equal(late.statusCode, 503);
    await late.body.text();
    assert.equal(await input.read(), Symbol.for('svc.end_of_input'));
    // The closed input released its path: a replacement (a stream replaced in streams mode) takes it over.
    const next = await build<HttpServerInput>('input', 'http_server', { path: '/closing', ws_path: '' }, testContext({ service }));
    await next.connect();
    const served = request(`${base}/closing`, { method: 'POST', body: 'c' });
    const tx = await next.read();
    assert.notEqual(tx, Symbol.for('svc.end_of_input'));
    (tx as { ack: () => void }).ack();
    assert.equal((await served).statusCode, 200);
    await next.close();
    service.unmount('/closing');
  });

  it('takes websockets on ws_path: a welcome message, each payload a batch of one, its sync response as a text frame', async () => {
    const rec = new Recorder();
    let fails = 1;
    const flaky: Output = {
      async write(b) {
        if (fails-- > 0) throw new Error('first write fails');
        await rec.write(b);
      },
    };
    const s = await serve({ path: '/wsin', ws_path: '/wsin/ws', ws_welcome_message: 'welcome' }, [upper, await syncProc()], flaky);
    const ws = new WebSocket(`${base.replace('http', 'ws')}/wsin/ws?room=7`, { headers: { 'user-agent': 'ws-test' } });
    const frames: Array<{ text: string; binary: boolean }> = [];
    const got = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (frames.length >= n ? resolve() : setTimeout(check, 10));
        check();
      });
    ws.on('message', (d, binary) => frames.push({ text: d.toString(), binary }));
    await new Promise((r) => ws.once('open', r));
    await got(1);
    ws.send('one');
    ws.send('two');
    await got(3);
    assert.deepEqual(frames, [
      { text: 'welcome', binary: true },
      { text: 'ONE', binary: false },
      { text: 'TWO', binary: false },
    ]);
    // The first payload was nacked once and sent again: delivered, in order, nothing lost.
    assert.deepEqual(
      rec.batches.map((b) => b.map((m) => m.text())),
      [['ONE'], ['TWO']],
    );
    assert.equal(rec.batches[0]![0]!.getMeta('room'), '7');
    assert.equal(rec.batches[0]![0]!.getMeta('http_server_user_agent'), 'ws-test');
    ws.close();
    await s.stop();
  });
});

describe('http_server input with its own address', () => {
  let certs: TestCerts;
  before(() => (certs = makeCerts()));
  after(() => certs.cleanup());

  it('serves on its own port, with CORS, and refuses headers that trickle in (slowloris) within timeout', async () => {
    const input = await build<HttpServerInput>('input', 'http_server', {
      address: '127.0.0.1:0',
      timeout: '1s',
      cors: { enabled: true, allowed_origins: ['https://app.example'] },
    });
    const run = drive(input, [], await sync());
    const { port } = await waitFor('the input to listen on its own address', async () => input.address(), 10_000, 10);
    const pre = await request(`http://127.0.0.1:${port}/post`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(pre.statusCode, 204);
    assert.equal(pre.headers['access-control-allow-origin'], 'https://app.example');
    await pre.body.text();
    const res = await request(`http://127.0.0.1:${port}/post`, { method: 'POST', body: 'echo', headers: { origin: 'https://evil.example' } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
    assert.equal(await res.body.text(), 'echo');
    const slow = await rawExchange(
      port,
      ['POST /post HTTP/1.1\r\n', 'Host: x\r\n', 'X-A: 1\r\n', 'X-B: 2\r\n', 'X-C: 3\r\n', 'X-D: 4\r\n', 'X-E: 5\r\n', 'X-F: 6\r\n'],
      {
        gapMs: 400,
        waitMs: 8000,
      },
    );
    assert.ok(slow.closedByServer, 'the server closed the slow connection');
    assert.ok(slow.ms < 3500, `closed after ${slow.ms}ms`);
    await run.stop();
    await input.closed();
  });

  it('answers an HTTP/1.0 POST without Content-Length 411 and creates no message (raw socket)', async () => {
    const rec = new Recorder();
    const input = await build<HttpServerInput>('input', 'http_server', { address: '127.0.0.1:0' });
    const run = drive(input, [], rec);
    await new Promise((r) => setTimeout(r, 20));
    const { port } = input.address()!;
    const refused = await rawExchange(port, ['POST /post HTTP/1.0\r\n\r\nbody'], { waitMs: 5000 });
    assert.match(refused.text, /^HTTP\/1\.1 411 Length Required\r\n/);
    assert.match(refused.text, /\r\nConnection: close\r\n/);
    assert.doesNotMatch(refused.text, /400 Bad Request/);
    assert.ok(refused.closedByServer);
    // With a Content-Length an HTTP/1.0 POST is read; it is the only message.
    const ok = await rawExchange(port, ['POST /post HTTP/1.0\r\nContent-Length: 4\r\n\r\nbody'], { waitMs: 5000 });
    assert.match(ok.text, /^HTTP\/1\.1 200 OK\r\n/);
    await run.stop();
    await input.closed();
    assert.deepEqual(
      rec.batches.map((b) => b.map((m) => m.text())),
      [['body']],
    );
  });

  it('refuses TLS or CORS without an address, and half a TLS config', async () => {
    await assert.rejects(build('input', 'http_server', { cert_file: 'a', key_file: 'b' }, testContext({ service: new FakeService() })), /custom address/);
    await assert.rejects(
      build('input', 'http_server', { cors: { enabled: true, allowed_origins: ['*'] } }, testContext({ service: new FakeService() })),
      /custom address/,
    );
    await assert.rejects(build('input', 'http_server', { address: '127.0.0.1:0', cert_file: 'a' }), /set together/);
    const noService = await build<Input>('input', 'http_server', {});
    await assert.rejects(noService.connect!(), /service-wide HTTP server is disabled/);
  });

  it('speaks TLS with HTTP/2 (and HTTP/1.1), adding the TLS metadata', async () => {
    const rec = new Recorder();
    const input = await build<HttpServerInput>('input', 'http_server', { address: '127.0.0.1:0', cert_file: certs.serverCert, key_file: certs.serverKey });
    const run = drive(input, [await syncProc()], rec);
    const { port } = await waitFor('the input to listen on its own address', async () => input.address(), 10_000, 10);
    const ca = readFileSync(certs.caCert);
    const session = http2.connect(`https://localhost:${port}`, { ca });
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = session.request({ ':method': 'POST', ':path': '/post?via=h2' });
      let body = '';
      let status = 0;
      req.on('response', (h) => (status = Number(h[':status'])));
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => resolve({ status, body }));
      req.on('error', reject);
      req.end('over h2 é');
    });
    session.close();
    assert.deepEqual(answer, { status: 200, body: 'over h2 é' });
    const m = rec.batches[0]![0]!;
    assert.equal(m.getMeta('via'), 'h2');
    assert.match(String(m.getMeta('http_server_tls_version')), /^TLSv1\.[23]$/);
    assert.match(String(m.getMeta('http_server_tls_cipher_suite')), /^TLS_/);
    const { Agent } = await import('undici');
    const h1 = await request(`https://localhost:${port}/post`, { method: 'POST', body: 'over h1', dispatcher: new Agent({ connect: { ca } }) });
    assert.equal(h1.statusCode, 200);
    assert.equal(await h1.body.text(), 'over h1');
    await run.stop();
    await input.closed();
  });
});

export { Message };
