import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as http2 from 'node:http2';
import * as https from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ErrorCode, SvcError } from '../errors.js';
import { silentLogger } from '../observability/logger.js';
import { parseAddress } from './address.js';
import { Cors } from './cors.js';
import { HttpListener, type HttpListenerOptions, type HttpRequest, type HttpResponse } from './listener.js';
import { loadTlsFiles } from './tls.js';
import { selfSignedCert } from '../testing/self-signed.js';

/** Fails the test instead of hanging it when `p` never settles. */
function within<T>(ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${ms}ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Handler = (req: HttpRequest, res: HttpResponse) => void;

/** A listener on an ephemeral loopback port; a handler for both protocols fits either kind. */
function listener(opts: Partial<Omit<HttpListenerOptions, 'handler' | 'http2'>> & { handler: Handler; http2?: boolean }): HttpListener {
  return new HttpListener({ name: 'test server', address: '127.0.0.1:0', logger: silentLogger, ...opts } as HttpListenerOptions);
}

function ok(body: string) {
  return (_req: HttpRequest, res: HttpResponse): void => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(port: number, opts: https.RequestOptions = {}, client: typeof http | typeof https = http): Promise<Answer> {
  return new Promise((resolve, reject) => {
    client
      .request({ host: '127.0.0.1', port, path: '/', ...opts }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      })
      .on('error', reject)
      .end();
  });
}

/** A raw socket that has connected, with what the server wrote and whether it closed. */
async function rawSocket(port: number): Promise<{ sock: Socket; text: () => string; closed: Promise<void> }> {
  const sock = connect(port, '127.0.0.1');
  let text = '';
  sock.on('data', (d) => (text += d.toString('latin1')));
  sock.on('error', () => {});
  const closed = new Promise<void>((resolve) => sock.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    sock.once('connect', resolve);
    sock.once('error', reject);
  });
  return { sock, text: () => text, closed };
}

describe('HttpListener graceful close', () => {
  it('lets an in-flight request finish (its connection then closes), refuses new connections, and does not wait for the grace', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const hasArrived = new Promise<void>((r) => (arrived = r));
    const server = listener({
      closeGraceMs: 30_000,
      handler: (_req, res) => {
        arrived();
        void released.then(() => ok('finished')(_req, res));
      },
    });
    await server.start();
    const { port } = server.address();
    const agent = new http.Agent({ keepAlive: true });
    try {
      const answer = get(port, { agent });
      await within(5000, hasArrived);
      const closed = server.close();
      await assert.rejects(get(port, { agent: false }), /ECONNREFUSED/);
      release();
      const res = await within(5000, answer);
      assert.equal(res.status, 200);
      assert.equal(res.body, 'finished');
      assert.equal(res.headers.connection, 'close');
      // The grace is 30 s: close() resolves because the connection closed after its answer.
      await within(5000, closed);
    } finally {
      release();
      agent.destroy();
      await server.close();
    }
  });

  it('cuts idle keep-alive connections at once', async () => {
    const server = listener({ closeGraceMs: 30_000, handler: ok('pong') });
    await server.start();
    const { port } = server.address();
    const raw = await rawSocket(port);
    try {
      raw.sock.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      for (let i = 0; i < 100 && !raw.text().includes('pong'); i++) await sleep(20);
      assert.match(raw.text(), /keep-alive/i);
      await within(5000, server.close());
      await within(5000, raw.closed);
    } finally {
      raw.sock.destroy();
    }
  });

  it('cuts a stuck request, and a client still sending its headers, after the grace', async () => {
    const server = listener({ closeGraceMs: 100, handler: () => {} });
    await server.start();
    const { port } = server.address();
    const stuck = await rawSocket(port);
    const partial = await rawSocket(port);
    try {
      stuck.sock.write('GET /never HTTP/1.1\r\nHost: x\r\n\r\n');
      partial.sock.write('GET / HTTP/1.1\r\nHost:');
      await sleep(50);
      await within(5000, server.close());
      await within(5000, Promise.all([stuck.closed, partial.closed]));
      assert.equal(stuck.text(), '', 'the stuck request got no answer: it was cut');
    } finally {
      stuck.sock.destroy();
      partial.sock.destroy();
    }
  });

  it('refuses to listen on a port in use with NotConnected, and closes as a no-op then', async () => {
    const first = listener({ handler: ok('') });
    await first.start();
    try {
      const second = listener({ address: `127.0.0.1:${first.address().port}`, handler: ok('') });
      const err = await second.start().then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof SvcError && err.code === ErrorCode.NotConnected, String(err));
      assert.match(err.message, /test server cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/);
      await within(1000, second.close());
    } finally {
      await first.close();
    }
  });
});

describe('HttpListener bounds', () => {
  it('cuts a client that sends its headers slower than the headers timeout, and serves others meanwhile', async () => {
    const server = listener({ headersTimeoutMs: 1000, handler: ok('fast') });
    await server.start();
    const { port } = server.address();
    const slow = await rawSocket(port);
    try {
      slow.sock.write('GET / HTTP/1.1\r\n');
      // A header line every 200 ms: 30 lines would take 6 s; the server must cut it well before.
      let sent = 0;
      let closed = false;
      void slow.closed.then(() => (closed = true));
      for (; sent < 30 && !closed; sent++) {
        slow.sock.write(`X-Slow-${sent}: 1\r\n`);
        await sleep(200);
        if (sent === 1) assert.equal((await get(port, { agent: false })).body, 'fast');
      }
      assert.ok(closed, 'the server closed the slow connection');
      assert.ok(sent < 20, `it was cut after ${sent} header lines`);
      assert.match(slow.text(), /^HTTP\/1\.1 408/);
    } finally {
      slow.sock.destroy();
      await server.close();
    }
  });

  it('answers headers larger than maxHeaderSize with 431', async () => {
    const server = listener({ maxHeaderSize: 1024, handler: ok('small') });
    await server.start();
    const { port } = server.address();
    try {
      assert.equal((await get(port, { agent: false, headers: { 'X-Small': 'a' } })).status, 200);
      const big = await rawSocket(port);
      big.sock.write(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(4096)}\r\n\r\n`);
      await within(5000, big.closed);
      assert.match(big.text(), /^HTTP\/1\.1 431/);
    } finally {
      await server.close();
    }
  });

  it('hands upgrade requests to the upgrade listener only while one is set', async () => {
    const server = listener({ handler: ok('plain') });
    await server.start();
    const { port } = server.address();
    const upgradeRequest = 'GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: test\r\n\r\n';
    try {
      server.setUpgradeListener((_req, socket) => socket.end('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: test\r\n\r\nupgraded'));
      const up = await rawSocket(port);
      up.sock.write(upgradeRequest);
      await within(5000, up.closed);
      assert.match(up.text(), /^HTTP\/1\.1 101[\s\S]*upgraded$/);

      server.setUpgradeListener(undefined);
      const plain = await rawSocket(port);
      plain.sock.write(upgradeRequest);
      for (let i = 0; i < 100 && !plain.text().includes('plain'); i++) await sleep(20);
      assert.match(plain.text(), /^HTTP\/1\.1 200[\s\S]*plain$/);
      plain.sock.destroy();
    } finally {
      await server.close();
    }
  });
});

describe('HttpListener TLS', () => {
  let dir: string;
  let cert: string;
  let key: string;
  let haveOpenssl = true;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-listener-tls-'));
    const made = selfSignedCert(dir);
    haveOpenssl = made !== undefined;
    cert = made?.cert ?? '';
    key = made?.key ?? '';
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('loads cert_file and key_file; refuses half a config and unreadable files, naming the field', async () => {
    assert.equal(await loadTlsFiles({ cert_file: '', key_file: '' }, 'x.'), undefined);
    await assert.rejects(
      loadTlsFiles({ cert_file: 'a.pem', key_file: '' }, 'x.'),
      (e: unknown) => e instanceof SvcError && e.code === ErrorCode.ConfigLint && /x\.cert_file and x\.key_file must be set together/.test(e.message),
    );
    const missing = join(dir, 'missing.pem');
    writeFileSync(join(dir, 'present.pem'), 'x');
    await assert.rejects(
      loadTlsFiles({ cert_file: join(dir, 'present.pem'), key_file: missing }, 'x.'),
      (e: unknown) => e instanceof SvcError && e.code === ErrorCode.ConfigFile && e.message.startsWith('x.key_file: cannot read'),
    );
  });

  it('serves HTTPS from cert and key files, HTTP/1.1 only by default', async (t) => {
    if (!haveOpenssl) return t.skip('openssl is not available to make a test certificate');
    const server = listener({ tls: await loadTlsFiles({ cert_file: cert, key_file: key }), handler: (req, res) => ok(`h${req.httpVersion}`)(req, res) });
    await server.start();
    assert.equal(server.tls, true);
    try {
      const res = await get(server.address().port, { rejectUnauthorized: false, agent: false }, https);
      assert.equal(res.body, 'h1.1');
    } finally {
      await server.close();
    }
  });

  it('with http2 speaks HTTP/2 and HTTP/1.1 over TLS, and close sends an idle session away at once', async (t) => {
    if (!haveOpenssl) return t.skip('openssl is not available to make a test certificate');
    const server = listener({
      http2: true,
      closeGraceMs: 30_000,
      tls: await loadTlsFiles({ cert_file: cert, key_file: key }),
      handler: (req, res) => ok(`h${req.httpVersion}`)(req, res),
    });
    await server.start();
    const { port } = server.address();
    const session = http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false });
    session.on('error', () => {});
    const sessionClosed = new Promise<void>((r) => session.once('close', () => r()));
    try {
      const body = await within(
        5000,
        new Promise<string>((resolve, reject) => {
          const req = session.request({ ':path': '/' });
          let data = '';
          req.setEncoding('utf8');
          req.on('data', (c: string) => (data += c));
          req.on('end', () => resolve(data));
          req.on('error', reject);
          req.end();
        }),
      );
      assert.equal(body, 'h2.0');
      const h1 = await get(port, { rejectUnauthorized: false, agent: false }, https);
      assert.equal(h1.body, 'h1.1');
      // The session is idle and open; the grace is 30 s: close() must not wait for it.
      await within(5000, server.close());
      await within(5000, sessionClosed);
    } finally {
      session.destroy();
      await server.close();
    }
  });
});

describe('Cors', () => {
  /** A listener whose handler runs CORS first, then answers with the method it saw. */
  async function withCors(origins: string[], fn: (port: number) => Promise<void>): Promise<void> {
    const cors = new Cors(origins, 'test.cors');
    const server = listener({
      handler: (req, res) => {
        if (cors.handle(req, res)) return;
        ok(`route saw ${req.method}`)(req, res);
      },
    });
    await server.start();
    try {
      await fn(server.address().port);
    } finally {
      await server.close();
    }
  }

  const request = (port: number, method: string, headers: Record<string, string>) => get(port, { method, headers, agent: false });

  it('answers a preflight from an allowed origin with 204 and the allow headers; the route never sees it', async () => {
    await withCors(['https://Dash.example/'], async (port) => {
      const res = await request(port, 'OPTIONS', {
        Origin: 'https://dash.example',
        'Access-Control-Request-Method': 'PUT',
        'Access-Control-Request-Headers': 'x-token, content-type',
      });
      assert.equal(res.status, 204);
      assert.equal(res.body, '');
      assert.equal(res.headers['access-control-allow-origin'], 'https://dash.example');
      assert.equal(res.headers['access-control-allow-methods'], 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
      assert.equal(res.headers['access-control-allow-headers'], 'x-token, content-type');
      assert.equal(res.headers['access-control-max-age'], '600');
      assert.equal(res.headers.vary, 'Origin');
    });
  });

  it('answers a preflight from another origin with a bare 204, which the browser refuses', async () => {
    await withCors(['https://dash.example'], async (port) => {
      const res = await request(port, 'OPTIONS', { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' });
      assert.equal(res.status, 204);
      assert.equal(res.headers['access-control-allow-origin'], undefined);
      assert.equal(res.headers['access-control-allow-methods'], undefined);
    });
  });

  it('passes an OPTIONS that is not a preflight (no Origin, or no Access-Control-Request-Method) to the route', async () => {
    await withCors(['https://dash.example'], async (port) => {
      const noOrigin = await request(port, 'OPTIONS', { 'Access-Control-Request-Method': 'POST' });
      assert.equal(noOrigin.status, 200);
      assert.equal(noOrigin.body, 'route saw OPTIONS');
      const noMethod = await request(port, 'OPTIONS', { Origin: 'https://dash.example' });
      assert.equal(noMethod.body, 'route saw OPTIONS');
      assert.equal(noMethod.headers['access-control-allow-origin'], 'https://dash.example');
      assert.equal(noMethod.headers['access-control-allow-methods'], undefined);
    });
  });

  it('marks simple requests from allowed origins only; `*` allows any without Vary', async () => {
    await withCors(['https://dash.example'], async (port) => {
      const allowed = await request(port, 'GET', { Origin: 'https://dash.example' });
      assert.equal(allowed.body, 'route saw GET');
      assert.equal(allowed.headers['access-control-allow-origin'], 'https://dash.example');
      assert.equal(allowed.headers.vary, 'Origin');
      const other = await request(port, 'POST', { Origin: 'https://evil.example' });
      assert.equal(other.body, 'route saw POST');
      assert.equal(other.headers['access-control-allow-origin'], undefined);
      const none = await request(port, 'GET', {});
      assert.equal(none.headers['access-control-allow-origin'], undefined);
    });
    await withCors(['*'], async (port) => {
      const res = await request(port, 'GET', { Origin: 'https://any.example' });
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.equal(res.headers.vary, undefined);
    });
  });

  it('refuses an empty allowed_origins, naming the field', () => {
    assert.throws(() => new Cors([], 'http.cors'), /http\.cors\.enabled is true but http\.cors\.allowed_origins is empty/);
  });
});

describe('parseAddress', () => {
  it('splits host and port, naming the field when it cannot', () => {
    assert.deepEqual(parseAddress('0.0.0.0:4195'), { host: '0.0.0.0', port: 4195 });
    assert.deepEqual(parseAddress(':4195'), { host: '', port: 4195 });
    assert.deepEqual(parseAddress('[::1]:0'), { host: '::1', port: 0 });
    assert.throws(() => parseAddress('localhost', 'http.address'), /http\.address "localhost" is not host:port/);
    assert.throws(() => parseAddress('localhost:http'), /not host:port/);
    assert.throws(() => parseAddress('localhost:70000'), /not host:port/);
  });
});
