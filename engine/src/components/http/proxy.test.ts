/**
 * `proxy_url` through a real HTTP proxy on loopback (written here with node:http, as a forward proxy
 * works: absolute-form requests forwarded, CONNECT tunnelled, `Proxy-Authorization: Basic` checked):
 * the http_client output, input and the http processor send an http:// target's requests to the
 * proxy whole and tunnel an https:// target's (as Go's net/http does for Benthos); the websocket
 * client tunnels (as gorilla/websocket does); a proxy's password is sent, and never shown.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Message, type Input, type Output, type Processor, type Transaction } from '@svc/engine';
import { RecordingLogger, freePort, testContext } from '@svc/engine/testing';
import './index.js';
import { build, makeCerts, upstream, type TestCerts } from './test-support.js';

interface TestProxy {
  url: string;
  /** What the proxy was asked, in order: `CONNECT host:port` or `METHOD absolute-url`. */
  seen: string[];
  close(): Promise<void>;
}

async function forwardProxy(auth?: string): Promise<TestProxy> {
  const seen: string[] = [];
  const sockets = new Set<net.Socket>();
  const allowed = (req: http.IncomingMessage) => !auth || req.headers['proxy-authorization'] === `Basic ${Buffer.from(auth).toString('base64')}`;
  const server = http.createServer((req, res) => {
    if (!allowed(req)) return res.writeHead(407, { 'proxy-authenticate': 'Basic' }).end();
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url!);
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const fwd = http.request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers }, (up) => {
      res.writeHead(up.statusCode!, up.headers);
      up.pipe(res);
    });
    fwd.on('error', () => res.writeHead(502).end());
    req.pipe(fwd);
  });
  server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    if (!allowed(req)) return socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n');
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = req.url!.split(':');
    const target = net.connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      target.write(head);
      target.pipe(socket);
      socket.pipe(target);
    });
    target.on('error', () => socket.destroy());
    socket.on('error', () => target.destroy());
  });
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe('proxy_url through a real forward proxy', () => {
  let certs: TestCerts;
  before(() => (certs = makeCerts()));
  after(() => certs.cleanup());

  it('http_client output: an http:// target goes to the proxy whole, an https:// one through a CONNECT tunnel (TLS to the target)', async () => {
    const proxy = await forwardProxy();
    const up = await upstream((_req, _b, res) => res.end('ok'));
    const tlsUp = https.createServer({ cert: readFileSync(certs.serverCert), key: readFileSync(certs.serverKey) }, (req, res) => {
      req.resume();
      req.on('end', () => res.end(`tls ${req.url}`));
    });
    await new Promise<void>((r) => tlsUp.listen(0, '127.0.0.1', r));
    const tlsPort = (tlsUp.address() as AddressInfo).port;
    const plain = await build<Output>('output', 'http_client', { url: `${up.url}/p?q=1`, proxy_url: proxy.url, retries: 0 });
    const secure = await build<Output>('output', 'http_client', {
      url: `https://localhost:${tlsPort}/s`,
      proxy_url: proxy.url,
      retries: 0,
      tls: { enabled: true, root_cas_file: certs.caCert },
    });
    try {
      await plain.write([new Message('a')]);
      await plain.write([new Message('b')]);
      await secure.write([new Message('c')]);
      assert.deepEqual(
        up.requests.map((r) => `${r.url} ${r.body.toString()}`),
        ['/p?q=1 a', '/p?q=1 b'],
      );
      assert.deepEqual(proxy.seen, [`POST ${up.url}/p?q=1`, `POST ${up.url}/p?q=1`, `CONNECT localhost:${tlsPort}`]);
    } finally {
      await Promise.all([plain.close?.(), secure.close?.()]);
      tlsUp.closeAllConnections();
      await new Promise<void>((r) => tlsUp.close(() => r()));
      await Promise.all([up.close(), proxy.close()]);
    }
  });

  it('http_client input and the http processor go through the proxy too', async () => {
    const proxy = await forwardProxy();
    const up = await upstream((req, body, res) => res.end(req.method === 'GET' ? 'polled' : `echo ${body.toString()}`));
    const input = await build<Input>('input', 'http_client', { url: `${up.url}/poll`, verb: 'GET', proxy_url: proxy.url });
    const proc = await build<Processor>('processor', 'http', { url: `${up.url}/enrich`, proxy_url: proxy.url });
    try {
      await input.connect?.();
      const t = (await input.read()) as Transaction;
      assert.equal(t.batch[0]!.content.toString(), 'polled');
      await t.ack();
      const out = (await proc.process([new Message('x')])).flat();
      assert.equal(out[0]!.content.toString(), 'echo x');
      assert.deepEqual(proxy.seen.slice(0, 1), [`GET ${up.url}/poll`]);
      assert.ok(proxy.seen.includes(`POST ${up.url}/enrich`), proxy.seen.join());
    } finally {
      await Promise.all([input.close?.(), proc.close?.()]);
      await Promise.all([up.close(), proxy.close()]);
    }
  });

  it("a proxy's user and password go as Proxy-Authorization; without them the proxy refuses and the error does not show the password", async () => {
    const proxy = await forwardProxy('svc:pr0xy-s3cret');
    const up = await upstream((_req, _b, res) => res.end('ok'));
    const withAuth = new URL(proxy.url);
    withAuth.username = 'svc';
    withAuth.password = 'pr0xy-s3cret';
    const good = await build<Output>('output', 'http_client', { url: `${up.url}/a`, proxy_url: withAuth.href, retries: 0 });
    const logger = new RecordingLogger();
    const wrong = new URL(withAuth.href);
    wrong.password = 'wr0ng-s3cret';
    const bad = await build<Output>(
      'output',
      'http_client',
      { url: `${up.url}/a`, proxy_url: wrong.href, retries: 0 },
      testContext({ type: 'http_client', logger }),
    );
    try {
      await good.write([new Message('x')]);
      assert.equal(up.requests.length, 1);
      const err = await bad.write([new Message('y')]).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      assert.ok(err, 'refused by the proxy');
      assert.equal(up.requests.length, 1);
      const text = `${err.message} ${JSON.stringify(logger.lines)}`;
      assert.ok(!text.includes('wr0ng-s3cret'), text);
    } finally {
      await Promise.all([good.close?.(), bad.close?.()]);
      await Promise.all([up.close(), proxy.close()]);
    }
  });

  it('websocket output: a CONNECT tunnel to an http_server ws_path; a refusing proxy is an error naming the proxy without its password', async () => {
    const proxy = await forwardProxy('svc:pr0xy-s3cret');
    const port = await freePort();
    const server = await build<Input>('input', 'http_server', { address: `127.0.0.1:${port}`, path: '/post', ws_path: '/ws' });
    await server.connect?.();
    const withAuth = new URL(proxy.url);
    withAuth.username = 'svc';
    withAuth.password = 'pr0xy-s3cret';
    const out = await build<Output>('output', 'websocket', { url: `ws://127.0.0.1:${port}/ws`, proxy_url: withAuth.href });
    const wrong = new URL(withAuth.href);
    wrong.password = 'wr0ng-s3cret';
    const refused = await build<Output>('output', 'websocket', { url: `ws://127.0.0.1:${port}/ws`, proxy_url: wrong.href });
    try {
      await out.connect?.();
      await out.write([new Message('w1'), new Message('w2')]);
      const got: string[] = [];
      while (got.length < 2) {
        const t = (await server.read()) as Transaction;
        got.push(...t.batch.map((m) => m.content.toString()));
        await t.ack();
      }
      assert.deepEqual(got, ['w1', 'w2']);
      assert.deepEqual(proxy.seen, [`CONNECT 127.0.0.1:${port}`]);
      const err = await refused.connect!().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      assert.match(String(err?.message), /407/);
      assert.ok(!String(err?.message).includes('wr0ng-s3cret'), err?.message);
    } finally {
      await Promise.all([out.close?.(), refused.close?.(), server.close?.()]);
      await proxy.close();
    }
  });
});
