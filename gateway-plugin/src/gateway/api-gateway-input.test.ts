/**
 * The `api_gateway` input on its own, over real loopback HTTP: routing, the request → transaction
 * hand-off, the answers on ack and nack, bounded requests and hostile paths, and closing with
 * requests in flight. The stream is played by the test: it reads transactions and acks them as a
 * processor or the proxy would.
 */
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { END_OF_INPUT, answerMessage, traceContextOf, type Transaction } from '@svc/engine';
import { ApiGatewayInput } from './api-gateway-input.js';
import { tykError, tykErrorBody } from '../kernel/errors.js';
import { GATEWAY_REQUEST, LIVE_EXCHANGE } from '../kernel/request.js';
import { gatewayState } from '../kernel/state.js';
import { FakeSource, apiSpec, call, componentContext, freePort, gatewayConfig, inputConfig, waitFor } from './test-support.js';

/** Plays the stream: each transaction read is handed to `handle` (which acks it). */
function serve(input: ApiGatewayInput, handle: (tx: Transaction) => void): Promise<void> {
  return (async () => {
    for (;;) {
      const tx = await input.read();
      if (tx === END_OF_INPUT) return;
      handle(tx);
    }
  })();
}

describe('api_gateway input', () => {
  let port: number;
  let input: ApiGatewayInput;
  let served: Promise<void>;
  const seen: Transaction[] = [];

  before(async () => {
    port = await freePort();
    const source = new FakeSource(gatewayConfig(port), [
      apiSpec('root', '/'),
      apiSpec('api', '/api'),
      apiSpec('keep', '/keep', { stripListenPath: false }),
      apiSpec('off', '/off', { active: false }),
      apiSpec('split', '/split', { splitToken: [{ path: '/token', method: 'POST', tokenUrl: 'http://127.0.0.1:9/' }] }),
    ]);
    source.apis = source.apis.filter((a) => a.id !== 'root');
    input = new ApiGatewayInput(inputConfig(), componentContext(), source);
    await input.connect();
    served = serve(input, (tx) => {
      seen.push(tx);
      const msg = tx.batch[0]!;
      const gr = msg.ctx.get(GATEWAY_REQUEST)!;
      // What to do is the last segment of the path (whatever API and stripping).
      switch ('/' + decodeURIComponent(gr.upstreamPath).split('/').pop()) {
        case '/answer':
          answerMessage(msg, tykError(401, 'Key not authorized'));
          return tx.ack();
        case '/proxied': {
          const { res } = msg.ctx.get(LIVE_EXCHANGE)!;
          res.writeHead(201, { 'x-from': 'proxy' });
          res.end('upstream body');
          return tx.ack();
        }
        case '/nack':
          return tx.ack(new Error('upstream down'));
        case '/echo':
          answerMessage(msg, {
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: Buffer.from(JSON.stringify({ ...gr, content: msg.content.toString(), trace: traceContextOf(msg) ?? null })),
          });
          return tx.ack();
        case '/token':
          answerMessage(msg, { status: 200, body: msg.content });
          return tx.ack();
        default:
          return tx.ack();
      }
    });
  });

  after(async () => {
    await input.close();
    await input.closed();
    await served;
  });

  it("a path no API listens on gets Tyk's 404", async () => {
    // ('/apix' is not one: a listen path without strict routes takes every path it begins, as Tyk's.)
    for (const p of ['/nothing']) {
      const r = await call(port, 'GET', p);
      assert.equal(r.status, 404, p);
      assert.equal(r.body, 'Not Found');
      assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    }
  });

  it('the request becomes GATEWAY_REQUEST: API, method, paths, query, lower-cased headers', async () => {
    const r = await call(port, 'PUT', '/api/echo?a=1&b=%20', { headers: { 'X-Custom': 'V' } });
    assert.equal(r.status, 200);
    const gr = JSON.parse(r.body);
    assert.equal(gr.gateway, input.name);
    assert.equal(gr.apiId, 'api');
    assert.equal(gr.method, 'PUT');
    assert.equal(gr.path, '/api/echo');
    assert.equal(gr.upstreamPath, '/echo');
    assert.equal(gr.query, 'a=1&b=%20');
    assert.equal(gr.headers['x-custom'], 'V');
    assert.equal(gr.remoteAddress, '127.0.0.1');
    assert.equal(gr.tls, false);
    // No rule reads this API's body: the content stays empty.
    assert.equal(gr.content, '');
    const kept = JSON.parse((await call(port, 'GET', '/keep/echo')).body);
    assert.equal(kept.upstreamPath, '/keep/echo');
  });

  it("the caller's trace context becomes the message's parent", async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const r = JSON.parse((await call(port, 'GET', '/api/echo', { headers: { traceparent } })).body);
    assert.equal(r.trace.traceId, '0af7651916cd43dd8448eb211c80319c');
    assert.equal(r.trace.spanId, 'b7ad6b7169203331');
    assert.equal(JSON.parse((await call(port, 'GET', '/api/echo')).body).trace, null);
  });

  it("a processor's answer is written; the output's own answer is left alone; neither: an empty 200", async () => {
    const a = await call(port, 'GET', '/api/answer');
    assert.equal(a.status, 401);
    assert.equal(a.body, tykErrorBody('Key not authorized'));
    assert.equal(a.headers['content-type'], 'application/json');
    const p = await call(port, 'GET', '/api/proxied');
    assert.equal(p.status, 201);
    assert.equal(p.headers['x-from'], 'proxy');
    assert.equal(p.body, 'upstream body');
    const e = await call(port, 'GET', '/api/other');
    assert.equal(e.status, 200);
    assert.equal(e.body, '');
  });

  it("a nack is Tyk's 500 (its proxy-failure answer)", async () => {
    const r = await call(port, 'GET', '/api/nack');
    assert.equal(r.status, 500);
    assert.equal(r.body, '{\n    "error": "There was a problem proxying the request"\n}');
  });

  it('a split-token endpoint gets its body in the message, bounded (413 over max_body_size)', async () => {
    const ok = await call(port, 'POST', '/split/token', { body: 'grant_type=client_credentials' });
    assert.equal(ok.status, 200);
    assert.equal(ok.body, 'grant_type=client_credentials');
    const big = await call(port, 'POST', '/split/token', { body: 'x'.repeat(5000) });
    assert.equal(big.status, 413);
    assert.equal(big.body, tykErrorBody('Request is too large'));
    // Another path of that API is not read.
    const other = JSON.parse((await call(port, 'POST', '/split/echo', { body: 'abc' })).body);
    assert.equal(other.content, '');
  });

  it('hostile paths get a clear answer: 301 to the clean path, 400 for a bad escape, 431 for a 64 KB URL', async () => {
    const dots = await call(port, 'GET', '/api/../keep/x?q=1');
    assert.equal(dots.status, 301);
    assert.equal(dots.headers.location, '/keep/x?q=1');
    const enc = await call(port, 'GET', '/api/%2e%2e/admin');
    assert.equal(enc.status, 301);
    assert.equal(enc.headers.location, '/admin');
    const slash = JSON.parse((await call(port, 'GET', '/api%2Fecho')).body);
    assert.equal(slash.apiId, 'api');
    const bad = await call(port, 'GET', '/api/%zz');
    assert.equal(bad.status, 400);
    const long = await call(port, 'GET', '/api/' + 'a'.repeat(64 * 1024)).catch((err: Error) => ({ status: -1, body: err.message }));
    assert.ok(long.status === 431 || long.status === -1, `64 KB URL: ${long.status}`);
    // And the gateway still serves.
    assert.equal((await call(port, 'GET', '/api/answer')).status, 401);
  });

  it('a slowloris client is cut while the gateway keeps serving others', async () => {
    const sock = net.connect(port, '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    sock.write('GET /api/x HTTP/1.1\r\nHost: a\r\nX-Slow: ');
    let got = '';
    sock.on('data', (d) => (got += d.toString()));
    const closed = new Promise((r) => sock.once('close', r));
    // Others are served while it trickles.
    const timer = setInterval(() => sock.write('a'), 200);
    assert.equal((await call(port, 'GET', '/api/answer')).status, 401);
    await closed;
    clearInterval(timer);
    assert.match(got, /^HTTP\/1\.1 408/);
    assert.equal((await call(port, 'GET', '/api/answer')).status, 401);
  });

  it('a header flood gets 431 and the gateway keeps serving', async () => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < 400; i++) headers[`x-h-${i}`] = 'v'.repeat(100);
    const r = await call(port, 'GET', '/api/answer', { headers }).catch((err: Error) => ({ status: -1, body: err.message }));
    assert.ok(r.status === 431 || r.status === -1, `flood: ${r.status}`);
    assert.equal((await call(port, 'GET', '/api/answer')).status, 401);
  });

  it('every transaction is one message', () => {
    assert.ok(seen.length > 0);
    for (const tx of seen) assert.equal(tx.batch.length, 1);
  });
});

describe('api_gateway input: closing', () => {
  it('stops accepting, answers what is in flight as it is acked, and 503s what the stream never read', async () => {
    const port = await freePort();
    const input = new ApiGatewayInput(inputConfig(), componentContext('closing'), new FakeSource(gatewayConfig(port), [apiSpec('api', '/api')]));
    await input.connect();
    // One request read and held by the "stream", one queued and never read.
    const inFlight = call(port, 'GET', '/api/held');
    const tx = await input.read();
    assert.notEqual(tx, END_OF_INPUT);
    const queued = call(port, 'GET', '/api/queued');
    await waitFor(() => (input as unknown as { queue: unknown[] }).queue.length === 1, 'the second request queued');
    await input.close();
    assert.equal(await input.read(), END_OF_INPUT);
    const q = await queued;
    assert.equal(q.status, 503);
    assert.equal(q.body, tykErrorBody('Gateway is shutting down'));
    // New connections are refused once closing.
    await assert.rejects(call(port, 'GET', '/api/new'));
    // The held one is answered when its transaction is acked.
    answerMessage((tx as Transaction).batch[0]!, { status: 202 });
    (tx as Transaction).ack();
    assert.equal((await inFlight).status, 202);
    await input.closed();
    assert.equal(gatewayState(input.name), undefined);
  });
});
