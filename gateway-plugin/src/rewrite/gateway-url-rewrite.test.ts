/**
 * gateway_url_rewrite in a real engine over real API files, proxying to real upstreams on
 * 127.0.0.1 that echo what they got: new paths and queries, a new host, svc:// loops by id and by
 * name with no network call, a loop that never ends, payload triggers and their bounded bodies.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { UrlRewriteRule } from '../apis/api-spec.js';
import { runGateway, writeGateway, type EngineRun } from '../gateway/engine-run.js';
import { tykErrorBody } from '../kernel/errors.js';
import { apiSpec, call, freePort, gatewayConfig } from '../gateway/test-support.js';

interface Seen {
  server: string;
  method: string;
  url: string;
  body: string;
}

function echo(name: string): Promise<{ server: Server; url: string; hits: Seen[] }> {
  const hits: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const seen = { server: name, method: req.method ?? '', url: req.url ?? '', body };
      hits.push(seen);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(seen));
    });
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, hits })));
}

/**
 * Starts a POST declaring `bytes` of body and sends the body only if the gateway has not
 * answered by then (it should: the declared size is over its limit); resolves with the status.
 */
function hugeUpload(port: number, path: string, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-length': String(bytes) } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', (err) => reject(err));
    req.flushHeaders();
  });
}

const rw = (path: string, matchPattern: string, rewriteTo: string, triggers: UrlRewriteRule['triggers'] = [], method = 'GET'): UrlRewriteRule => ({
  path,
  method,
  matchPattern,
  rewriteTo,
  triggers,
});

describe('gateway_url_rewrite end to end', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-gw-rewrite-'));
  let a: Awaited<ReturnType<typeof echo>>;
  let b: Awaited<ReturnType<typeof echo>>;
  let engine: EngineRun;
  let port: number;

  before(async () => {
    [a, b] = await Promise.all([echo('a'), echo('b')]);
    port = await freePort();
    process.env.SVC_SECRET_REWRITE_TARGET = 'from-env';
    writeGateway(dir, gatewayConfig(port), [
      apiSpec('front', '/front', {
        targetUrl: `${a.url}/`,
        stripListenPath: true,
        urlRewrites: [
          rw('/basic', '/basic/(\\w+)', '/new/$1?was=basic'),
          rw('/trig', '(.*)', '/plain', [
            { on: 'all', rules: { header: [{ key: 'X-Version', matchRx: '^v(\\d+)$', reverse: false }] }, rewriteTo: '/v$svc_context.trigger-0-X-Version-0-0' },
          ]),
          rw('/host', '(.*)', `${b.url}/elsewhere`),
          rw('/by-id', '/by-id(.*)', 'svc://hidden/inside$1'),
          rw('/by-name', '/by-name(.*)', 'svc://Hidden API/named'),
          rw('/nowhere', '(.*)', 'svc://no-such-api/x'),
          rw('/ping', '(.*)', 'svc://pong/'),
          rw('/env', '(.*)', '/env/$secret_env.REWRITE_TARGET'),
          rw(
            '/body',
            '(.*)',
            '/body/plain',
            [
              {
                on: 'all',
                rules: { payload: [{ key: 'payload', matchRx: '"kind":\\s*"(\\w+)"', reverse: false }] },
                rewriteTo: '/body/$svc_context.trigger-0-payload-0-0',
              },
            ],
            'POST',
          ),
        ],
      }),
      apiSpec('hidden', '/hidden', { name: 'Hidden API', targetUrl: `${b.url}/`, stripListenPath: true }),
      apiSpec('pong', '/pong', { targetUrl: `${b.url}/`, urlRewrites: [rw('/', '(.*)', 'svc://front/ping')] }),
    ]);
    engine = await runGateway(
      dir,
      port,
      `pipeline:
  processors:
    - gateway_auth: {}
    - gateway_url_rewrite: {}
output:
  gateway_proxy: {}`,
    );
  });

  after(async () => {
    assert.equal(await engine.stop(), 0, engine.log());
    a.server.close();
    b.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const seen = async (path: string, opts: Parameters<typeof call>[3] = {}) => {
    const r = await call(port, opts.body === undefined ? 'GET' : 'POST', path, opts);
    return { status: r.status, body: r.body, seen: r.status === 200 ? (JSON.parse(r.body) as Seen) : undefined };
  };

  it('the basic trigger rewrites path and query with the pattern’s groups', async () => {
    const r = await seen('/front/basic/item?x=1');
    assert.deepEqual([r.seen?.server, r.seen?.url], ['a', '/new/item?was=basic']);
  });

  it('an advanced trigger picks its own rewrite_to; the basic one applies when it does not fire', async () => {
    assert.equal((await seen('/front/trig', { headers: { 'x-version': 'v2' } })).seen?.url, '/v2');
    assert.equal((await seen('/front/trig', { headers: { 'x-version': 'beta' } })).seen?.url, '/plain');
  });

  it('a full URL reaches another host', async () => {
    const r = await seen('/front/host');
    assert.deepEqual([r.seen?.server, r.seen?.url], ['b', '/elsewhere']);
  });

  it('svc:// loops to another API by id and by name, and no request left the gateway for it', async () => {
    const before = a.hits.length;
    const byId = await seen('/front/by-id/deep');
    assert.deepEqual([byId.seen?.server, byId.seen?.url], ['b', '/inside/deep']);
    const byName = await seen('/front/by-name');
    assert.deepEqual([byName.seen?.server, byName.seen?.url], ['b', '/named']);
    assert.equal(a.hits.length, before, 'the looping API’s upstream was not called');
  });

  it('a loop to no API and a loop that never ends get Tyk’s 500s; the gateway keeps serving', async () => {
    const none = await seen('/front/nowhere');
    assert.deepEqual([none.status, none.body], [500, tykErrorBody("Can't detect loop target")]);
    const endless = await seen('/front/ping');
    assert.deepEqual([endless.status, endless.body], [500, tykErrorBody('Loop level too deep. Found more than 5 loops in single request')]);
    assert.equal((await seen('/front/basic/ok')).status, 200);
  });

  it('$secret_env in rewrite_to reads SVC_SECRET_<NAME>', async () => {
    assert.equal((await seen('/front/env')).seen?.url, '/env/from-env');
  });

  it('a payload trigger reads the body (which still reaches the upstream); a huge body gets 413', async () => {
    const r = await seen('/front/body', { body: JSON.stringify({ kind: 'order' }) });
    assert.deepEqual([r.seen?.url, r.seen?.body], ['/body/order', '{"kind":"order"}']);
    const plain = await seen('/front/body', { body: 'nothing to see' });
    assert.equal(plain.seen?.url, '/body/plain');
    assert.equal(await hugeUpload(port, '/front/body', 100 * 1024 * 1024), 413);
    assert.equal((await seen('/front/basic/after')).status, 200, 'still serving');
  });
});
