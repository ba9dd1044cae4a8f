/**
 * The smaller hostile cases of issue 31 (item 6), against a real engine with a real gateway:
 * too many header fields (431, not silently dropped), a second Host (400, as Go and nginx), a
 * rewrite whose `http…` value would put `..` or `#` in the upstream URL (refused, 400), and the
 * management API: sessions checked as Tyk's Go types decode them (400), bodies nested too deep
 * (400) or too large (413) instead of 500, and failed calls logged a few lines a second plus a count.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runGateway, writeGateway, type EngineRun } from './engine-run.js';
import { apiSpec, call, freePort, gatewayConfig, waitFor } from './test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-gw-hostile-'));
const seen: { url: string; headers: http.IncomingHttpHeaders }[] = [];
const upstream = http.createServer((req, res) => {
  seen.push({ url: req.url ?? '', headers: req.headers });
  res.end(`up:${req.url}`);
});
// Node 24's server answers 431 past 2,000 raw header entries (Node 20 dropped the rest); the
// upstream here takes every field the gateway sends, so the 431 checked below is the gateway's.
upstream.maxHeadersCount = 0;
let port = 0;
let engine: EngineRun;
const auth = { 'x-svc-authorization': 'test-secret', 'content-type': 'application/json' };

before(async () => {
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  port = await freePort();
  writeGateway(dir, gatewayConfig(port), [
    apiSpec('plain', '/plain', { targetUrl: target }),
    apiSpec('rw', '/rw', {
      targetUrl: target,
      enableContextVars: true,
      urlRewrites: [{ path: '/', method: 'GET', matchPattern: '(.*)', rewriteTo: '/api/$svc_context.headers_X_Id', triggers: [] }],
    }),
  ]);
  engine = await runGateway(dir, port, 'pipeline: { threads: 1, processors: [ { gateway_url_rewrite: {} } ] }\noutput:\n  gateway_proxy: {}');
});
after(async () => {
  await engine.stop();
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** Sends `head` as written (a raw request) and resolves with the answer's text once the gateway closes. */
function raw(head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // Not half-closed: node's server drops a request whose client ends its side first.
    const s = net.connect(port, '127.0.0.1', () => s.write(head));
    let out = '';
    s.on('data', (d: Buffer) => (out += d.toString('latin1')));
    s.on('close', () => resolve(out));
    s.on('error', reject);
  });
}

function fields(n: number): string {
  let h = '';
  for (let i = 1; i <= n; i++) h += `x-f${i}: v\r\n`;
  return h;
}

describe('hostile requests', () => {
  it('1,000 header fields pass whole; the 1,001st gets 431', async () => {
    const ok = await raw(`GET /plain/many HTTP/1.1\r\nHost: a\r\n${fields(998)}Connection: close\r\n\r\n`);
    assert.match(ok, /^HTTP\/1\.1 200 /, ok.slice(0, 200));
    assert.equal(seen.at(-1)?.headers['x-f998'], 'v');
    const refused = await raw(`GET /plain/more HTTP/1.1\r\nHost: a\r\n${fields(999)}Connection: close\r\n\r\n`);
    assert.match(refused, /^HTTP\/1\.1 431 /, refused.slice(0, 200));
    assert.notEqual(seen.at(-1)?.url, '/more');
  });

  it('a second Host field: 400 as Go answers it', async () => {
    const out = await raw('GET /plain/x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n');
    assert.match(out, /^HTTP\/1\.1 400 /, out);
    assert.ok(out.endsWith('\r\n\r\n400 Bad Request: too many Host headers'), out);
  });

  it('a rewrite value starting with http that carries .. or # is refused, not sent', async () => {
    const before = seen.length;
    for (const id of ['http/../../admin', 'http#frag', 'http/%2e%2e/admin']) {
      const r = await call(port, 'GET', '/rw/x', { headers: { 'x-id': id } });
      assert.equal(r.status, 400, `${id}: ${r.status} ${r.body}`);
    }
    assert.equal(seen.length, before, 'nothing reached the upstream');
    // An ordinary value is escaped and sent.
    assert.equal((await call(port, 'GET', '/rw/x', { headers: { 'x-id': 'a b' } })).body, 'up:/api/a+b');
  });

  it('the management API checks sessions as Tyk decodes them: 400 for a wrong type', async () => {
    const bodies = [
      { is_inactive: 'true', access_rights: { plain: { api_id: 'plain' } } },
      { expires: 'never' },
      { quota_max: 1.5 },
      { access_rights: { plain: null } },
      { access_rights: { plain: { versions: 'Default' } } },
    ];
    for (const b of bodies) {
      const r = await call(port, 'POST', '/svc/keys', { headers: auth, body: JSON.stringify(b) });
      assert.equal(r.status, 400, `${JSON.stringify(b)}: ${r.body}`);
      assert.equal(r.body, '{"status":"error","message":"Request malformed"}\n');
    }
    const ok = await call(port, 'POST', '/svc/keys', {
      headers: auth,
      body: JSON.stringify({ is_inactive: true, expires: 0, access_rights: { plain: { api_id: 'plain' } } }),
    });
    assert.equal(ok.status, 200, ok.body);
    const pol = await call(port, 'POST', '/svc/policies', { headers: auth, body: JSON.stringify({ id: 'p1', is_inactive: 'true' }) });
    assert.equal(pol.status, 400, pol.body);
  });

  it('a body nested too deep is 400, one too large 413, never 500', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    for (const path of ['/svc/keys', '/svc/apis', '/svc/policies']) {
      const r = await call(port, 'POST', path, { headers: auth, body: deep });
      assert.equal(r.status, 400, `${path}: ${r.status} ${r.body}`);
    }
    const big = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port, method: 'POST', path: '/svc/keys', headers: { ...auth, 'content-length': String(11 * 1024 * 1024) } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on('error', reject);
      req.flushHeaders();
    });
    assert.equal(big, 413);
  });

  it('failed management calls log at most a few lines a second, then a count', async () => {
    const mark = engine.log().length;
    await Promise.all(Array.from({ length: 50 }, () => call(port, 'GET', '/svc/keys', { headers: { 'x-svc-authorization': 'wrong' } })));
    await waitFor(() => engine.log().slice(mark).includes('more like the last one'), 'the count of the lines left out');
    const lines = engine
      .log()
      .slice(mark)
      .split('\n')
      .filter((l) => l.includes('Attempted administrative access'));
    assert.ok(lines.length <= 6, `${lines.length} lines:\n${lines.join('\n')}`);
  });
});
