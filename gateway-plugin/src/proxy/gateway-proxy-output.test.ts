/**
 * gateway_proxy against real sockets: a node:http "front" stands in for the api_gateway input
 * (it builds the message with GATEWAY_REQUEST and LIVE_EXCHANGE from the live request and calls
 * the output's write), upstreams are real node:http servers (and raw TCP servers for the
 * misbehaving ones), and the client sends real requests over node:http.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Message, parseTraceparent, setTraceParent, type Output } from '@svc/engine';
import { buildComponent, testContext } from '@svc/engine/testing';
import type { ApiSpec } from '../apis/api-spec.js';
import type { GatewayConfig } from '../conf/gateway-config.js';
import { tykErrorBody } from '../kernel/errors.js';
import { GATEWAY_REQUEST, LIVE_EXCHANGE } from '../kernel/request.js';
import { GatewayState, registerGatewayState, unregisterGatewayState } from '../kernel/state.js';
import { MemorySessionStore } from '../sessions/memory-store.js';
import './index.js';
import { apiSpec } from '../testing/fixtures.js';

const GATEWAY = 'proxy-test';
const BAD_GATEWAY = tykErrorBody('There was a problem proxying the request');
const TIMED_OUT = tykErrorBody('Upstream service reached hard timeout.');

/** Waits (bounded) until `cond` holds. */
async function until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function listen(server: net.Server): Promise<number> {
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
}

function api(id: string, listenPath: string, targetUrl: string, extra: Partial<ApiSpec> = {}): ApiSpec {
  return apiSpec({ id, listenPath, targetUrl, ...extra });
}

/** What the main upstream saw of each request. */
interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  bytes: number;
}

// The main upstream: handlers by the first path segment after /base.
type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const handlers = new Map<string, Handler>();
const seen: Seen[] = [];
const upstream = http.createServer((req, res) => {
  const key = (req.url ?? '').split('?')[0]!.split('/')[2] ?? '';
  const h = handlers.get(key);
  if (h) return h(req, res);
  let bytes = 0;
  req.on('data', (c: Buffer) => (bytes += c.length));
  req.on('end', () => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, bytes });
    res.setHeader('content-type', 'text/plain');
    res.end(`ok ${bytes}`);
  });
});
// A fresh origin for the keep-alive test: it counts its connections.
let kaConnections = 0;
const kaSockets = new Set<net.Socket>();
const kaUpstream = http.createServer((req, res) => {
  kaSockets.add(req.socket);
  res.end('ka');
});
kaUpstream.on('connection', () => kaConnections++);
// Accepts, reads, never answers.
const hanging = http.createServer(() => undefined);
// Answers garbage that is not HTTP.
const garbage = net.createServer((s) => {
  s.on('error', () => undefined);
  s.once('data', () => s.end('this is not http at all\r\n\r\n'));
});
// Sends headers and 10 of 100 body bytes, then cuts the connection.
const midBody = net.createServer((s) => {
  s.on('error', () => undefined);
  s.once('data', () => {
    s.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\ncontent-type: text/plain\r\n\r\n0123456789');
    setTimeout(() => s.destroy(), 20);
  });
});

let closedPort = 0;
let out: Output;
let shortOut: Output;
let front: http.Server;
let frontUrl = '';
let state: GatewayState;
const writes: Array<'ok' | Error> = [];
/** The front: what the api_gateway input does for the proxy (route by longest listen path, strip, one message). */
interface FrontHooks {
  /** Called before the write: may answer, or change the message. */
  before?: (msg: Message, req: IncomingMessage, res: ServerResponse) => void;
  /** Sends no LIVE_EXCHANGE. */
  noExchange?: boolean;
}
let hooks: FrontHooks = {};

function frontHandler(req: IncomingMessage, res: ServerResponse): void {
  const [path, query = ''] = (req.url ?? '/').split(/\?(.*)/s) as [string, string?];
  const spec = state
    .allApis()
    .filter((a) => path === a.listenPath || path.startsWith(a.listenPath.endsWith('/') ? a.listenPath : a.listenPath + '/'))
    .sort((a, b) => b.listenPath.length - a.listenPath.length)[0];
  if (!spec) {
    res.statusCode = 404;
    res.end();
    return;
  }
  const msg = new Message();
  msg.ctx.set(GATEWAY_REQUEST, {
    gateway: GATEWAY,
    apiId: spec.id,
    method: req.method!,
    path,
    upstreamPath: spec.stripListenPath ? path.slice(spec.listenPath.length) : path,
    query,
    headers: req.headers,
    remoteAddress: req.socket.remoteAddress!,
    tls: false,
  });
  if (!hooks.noExchange) msg.ctx.set(LIVE_EXCHANGE, { req, res, started: process.hrtime.bigint() });
  hooks.before?.(msg, req, res);
  (spec.id === 'hang' ? shortOut : out).write([msg]).then(
    () => writes.push('ok'),
    (err: Error) => {
      writes.push(err);
      if (!res.headersSent) res.writeHead(500).end();
    },
  );
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function send(path: string, opts: http.RequestOptions & { body?: string | Buffer } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(frontUrl + path, { agent: false, ...opts }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

before(async () => {
  const up = await listen(upstream);
  const ka = await listen(kaUpstream);
  const hang = await listen(hanging);
  const junk = await listen(garbage);
  const cut = await listen(midBody);
  const closed = net.createServer();
  closedPort = await listen(closed);
  await new Promise((r) => closed.close(r));
  state = new GatewayState({
    name: GATEWAY,
    config: {} as GatewayConfig,
    apis: [
      api('main', '/svc', `http://127.0.0.1:${up}/base/?t=1`),
      api('nostrip', '/raw', `http://127.0.0.1:${up}/`, { stripListenPath: false }),
      api('host', '/keep-host', `http://127.0.0.1:${up}/base`, { preserveHostHeader: true }),
      api('ka', '/ka', `http://127.0.0.1:${ka}`),
      api('down', '/down', `http://127.0.0.1:${closedPort}`),
      api('hang', '/hang', `http://127.0.0.1:${hang}`),
      api('garbage', '/garbage', `http://127.0.0.1:${junk}`),
      api('cut', '/cut', `http://127.0.0.1:${cut}`),
    ],
    policies: [],
    sessions: new MemorySessionStore(),
  });
  registerGatewayState(state);
  const ctx = testContext({ type: 'gateway_proxy' });
  out = await buildComponent<Output>('output', 'gateway_proxy', {}, ctx);
  shortOut = await buildComponent<Output>('output', 'gateway_proxy', { timeout: '300ms' }, testContext({ type: 'gateway_proxy' }));
  front = http.createServer(frontHandler);
  frontUrl = `http://127.0.0.1:${await listen(front)}`;
});

after(async () => {
  await out.close?.();
  await shortOut.close?.();
  unregisterGatewayState(state);
  for (const s of [front, upstream, kaUpstream, hanging]) (s as http.Server).closeAllConnections();
  await Promise.all([front, upstream, kaUpstream, hanging, garbage, midBody].map((s) => new Promise((r) => s.close(r))));
});

test('the path is joined to the target with one slash, the target query first, the listen path stripped', async () => {
  seen.length = 0;
  let r = await send('/svc/a/b?x=1&y=%20');
  assert.equal(r.status, 200);
  assert.equal(r.body, 'ok 0');
  r = await send('/svc');
  r = await send('/svc/');
  r = await send('/raw/a?q');
  assert.deepEqual(
    seen.map((s) => s.url),
    ['/base/a/b?t=1&x=1&y=%20', '/base?t=1', '/base?t=1', '/raw/a?q'],
  );
  assert.equal(seen[0]!.headers.host, new URL(state.api('main')!.targetUrl).host, "Host is the target's");
});

test('hop-by-hop headers are removed both ways; X-Forwarded-For appended, no X-Forwarded-Proto added (Tyk v5.14.0 sets none)', async () => {
  seen.length = 0;
  handlers.set('hop', (req, res) => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, bytes: 0 });
    res.setHeader('connection', 'keep-alive, X-Up-Hop');
    res.setHeader('x-up-hop', '1');
    res.setHeader('keep-alive', 'timeout=77');
    res.setHeader('proxy-authenticate', 'Basic');
    res.setHeader('trailer', 'x-t');
    res.setHeader('upgrade', 'h2c');
    res.setHeader('x-up-keep', 'yes');
    res.setHeader('set-cookie', ['a=1', 'b=2']);
    // Written before end: chunked, the only framing Node allows a Trailer header with.
    res.write('hop');
    res.end();
  });
  const r = await send('/svc/hop', {
    method: 'POST',
    body: 'x',
    headers: {
      // Chunked: the only framing Node lets a request carry a Trailer header with.
      'Transfer-Encoding': 'chunked',
      Connection: 'keep-alive, X-Hop',
      'X-Hop': '1',
      'Keep-Alive': 'timeout=9',
      'Proxy-Authorization': 'Basic eDp5',
      'Proxy-Connection': 'keep-alive',
      TE: 'gzip',
      Trailer: 'x-t',
      'X-Keep': 'kept',
      'X-Forwarded-For': '10.0.0.1',
    },
  });
  assert.equal(r.status, 200);
  assert.equal(r.body, 'hop');
  const h = seen[0]!.headers;
  for (const name of ['x-hop', 'keep-alive', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'upgrade']) assert.equal(h[name], undefined, name);
  assert.notEqual(h.connection, 'keep-alive, X-Hop');
  assert.equal(h['x-keep'], 'kept');
  assert.equal(h['x-forwarded-for'], '10.0.0.1, 127.0.0.1');
  assert.equal(h['x-forwarded-proto'], undefined);
  // The answer: the upstream's end-to-end headers, none of its hop-by-hop ones.
  for (const name of ['x-up-hop', 'proxy-authenticate', 'trailer', 'upgrade']) assert.equal(r.headers[name], undefined, name);
  assert.notEqual(r.headers['keep-alive'], 'timeout=77');
  assert.equal(r.headers['x-up-keep'], 'yes');
  assert.deepEqual(r.headers['set-cookie'], ['a=1', 'b=2']);
  handlers.delete('hop');
});

test("TE: trailers is forwarded (Tyk's one exception); a client X-Forwarded-Proto is kept; preserve_host_header keeps the client's Host", async () => {
  seen.length = 0;
  await send('/svc/te', { headers: { TE: 'trailers', 'X-Forwarded-Proto': 'https' } });
  assert.equal(seen[0]!.headers.te, 'trailers');
  assert.equal(seen[0]!.headers['x-forwarded-proto'], 'https');
  assert.equal(seen[0]!.headers['x-forwarded-for'], '127.0.0.1');
  await send('/keep-host/x', { headers: { Host: 'client.example:1234' } });
  assert.equal(seen[1]!.url, '/base/x');
  assert.equal(seen[1]!.headers.host, 'client.example:1234');
});

test('the trace context of the message is forwarded upstream', async () => {
  seen.length = 0;
  const parent = parseTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')!;
  hooks = { before: (msg) => setTraceParent(msg, parent) };
  try {
    await send('/svc/traced');
  } finally {
    hooks = {};
  }
  assert.equal(seen[0]!.headers.traceparent, '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
  assert.equal(seen[0]!.headers['uber-trace-id'], '0af7651916cd43dd8448eb211c80319c:b7ad6b7169203331:0:1');
});

test('a 10 MB upload is streamed: the upstream receives bytes before the client has sent them all', async () => {
  const total = 10 * 1024 * 1024;
  const half = Buffer.alloc(total / 2, 'a');
  let received = 0;
  let done = false;
  handlers.set('upload', (req, res) => {
    req.on('data', (c: Buffer) => (received += c.length));
    req.on('end', () => {
      done = true;
      res.end(`got ${received} ${req.headers['content-length']}`);
    });
  });
  for (const framing of ['content-length', 'chunked'] as const) {
    received = 0;
    done = false;
    const reply = new Promise<Reply>((resolve, reject) => {
      const req = http.request(
        `${frontUrl}/svc/upload`,
        { method: 'PUT', agent: false, headers: framing === 'content-length' ? { 'content-length': String(total) } : {} },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        },
      );
      req.on('error', reject);
      req.write(half);
      // The second half goes only once the upstream has seen the first bytes.
      void until(() => received > 0, 'the upstream to receive the first bytes').then(() => {
        assert.equal(done, false);
        assert.ok(received <= total / 2, 'the upstream has at most the first half while the client holds the second');
        req.end(half);
      }, reject);
    });
    const r = await reply;
    assert.equal(r.status, 200);
    assert.equal(r.body, framing === 'content-length' ? `got ${total} ${total}` : `got ${total} undefined`);
  }
  handlers.delete('upload');
});

test('a body the input read for a rule is sent from the message', async () => {
  seen.length = 0;
  hooks = { before: (msg) => (msg.content = Buffer.from('changed by a processor')) };
  try {
    const r = await send('/svc/body', { method: 'POST', body: 'original' });
    assert.equal(r.body, `ok ${'changed by a processor'.length}`);
  } finally {
    hooks = {};
  }
  assert.equal(seen[0]!.headers['content-length'], String('changed by a processor'.length));
});

test('a streamed response: the first chunk reaches the client before the upstream ends', async () => {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  handlers.set('stream', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('first;');
    void released.then(() => res.end('second'));
  });
  const body = await new Promise<string>((resolve, reject) => {
    http
      .get(`${frontUrl}/svc/stream`, { agent: false }, (res) => {
        assert.equal(res.headers['transfer-encoding'], 'chunked');
        let body = '';
        res.on('data', (c: Buffer) => {
          if (body === '') {
            assert.equal(c.toString(), 'first;');
            release();
          }
          body += c;
        });
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
  assert.equal(body, 'first;second');
  handlers.delete('stream');
});

test("an upstream that is down: 500 with Tyk's body (Tyk v5.14.0 answers 500, measured)", async () => {
  const r = await send('/down/x');
  assert.equal(r.status, 500);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.body, BAD_GATEWAY);
});

test("an upstream that accepts and never answers: 504 with Tyk's body after `timeout`", async () => {
  const r = await send('/hang/x');
  assert.equal(r.status, 504);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.body, TIMED_OUT);
});

test("an upstream that answers garbage: 500 with Tyk's body (Tyk v5.14.0 answers 500, measured)", async () => {
  const r = await send('/garbage/x');
  assert.equal(r.status, 500);
  assert.equal(r.body, BAD_GATEWAY);
});

test('an upstream that stops mid-body ends the client connection; the gateway keeps serving', async () => {
  const outcome = await new Promise<string>((resolve) => {
    http
      .get(`${frontUrl}/cut/x`, { agent: false }, (res) => {
        assert.equal(res.statusCode, 200);
        let body = '';
        res.on('data', (c: Buffer) => (body += c));
        res.on('end', () => resolve(`ended with ${body.length} bytes`));
        res.on('error', () => resolve(`cut after ${body}`));
        res.on('aborted', () => resolve(`cut after ${body}`));
      })
      .on('error', (err) => resolve(`error ${err.message}`));
  });
  assert.equal(outcome, 'cut after 0123456789');
  const r = await send('/svc/after-cut');
  assert.equal(r.status, 200);
});

test('a client that leaves mid-response aborts the upstream request; the write resolves; the gateway keeps serving', async () => {
  let upstreamClosedEarly = false;
  let upstreamRes: ServerResponse | undefined;
  handlers.set('slow', (_req, res) => {
    upstreamRes = res;
    res.writeHead(200);
    res.write('part;');
    res.on('close', () => (upstreamClosedEarly = !res.writableFinished));
  });
  const before = writes.length;
  await new Promise<void>((resolve, reject) => {
    const req = http.get(`${frontUrl}/svc/slow`, { agent: false }, (res) => {
      res.once('data', () => {
        req.destroy();
        resolve();
      });
    });
    req.on('error', (err) => (err.message === 'socket hang up' ? undefined : reject(err)));
  });
  await until(() => upstreamClosedEarly, 'the upstream request to be aborted');
  await until(() => writes.length > before, 'the write to resolve');
  assert.equal(writes.at(-1), 'ok');
  assert.ok(upstreamRes);
  const r = await send('/svc/next');
  assert.equal(r.status, 200);
  handlers.delete('slow');
});

test('keep-alive: sequential requests reuse one upstream connection', async () => {
  kaSockets.clear();
  const connectionsBefore = kaConnections;
  for (let i = 0; i < 20; i++) {
    const r = await send('/ka/x');
    assert.equal(r.body, 'ka');
  }
  assert.equal(kaSockets.size, 1);
  assert.equal(kaConnections - connectionsBefore, 1);
});

test('a request already answered is skipped; the upstream is not called', async () => {
  seen.length = 0;
  const before = writes.length;
  hooks = { before: (_msg, _req, res) => res.writeHead(401).end('refused') };
  let r: Reply;
  try {
    r = await send('/svc/answered');
  } finally {
    hooks = {};
  }
  assert.equal(r.status, 401);
  assert.equal(r.body, 'refused');
  await until(() => writes.length > before, 'the write');
  assert.equal(writes.at(-1), 'ok');
  assert.equal(seen.length, 0);
});

test('a message without a live exchange fails the write with a clear error', async () => {
  const before = writes.length;
  hooks = { noExchange: true };
  try {
    const r = await send('/svc/no-exchange');
    assert.equal(r.status, 500);
  } finally {
    hooks = {};
  }
  await until(() => writes.length > before, 'the write');
  const err = writes.at(-1) as Error & { code?: string };
  assert.ok(err instanceof Error);
  assert.equal(err.code, 'E_WRITE');
  assert.match(err.message, /no gateway request to answer.*make api_gateway the input of this stream/);
});
