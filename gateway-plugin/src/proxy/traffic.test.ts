/**
 * Traffic management as Tyk v5.14.0 does it (gateway/reverse_proxy.go, api_definition.go), on a
 * real gateway process in front of real upstreams: load balancing over `target_list` (round
 * robin), `hard_timeouts` and `global_enforce_timeout` (504 "Upstream service reached hard
 * timeout."), `circuit_breakers` (503 "Service temporarily unavailable.", the trip logged), and
 * the response cache (`cache_options`, `advance_cache_config`, `cache`: X-Svc-Cached-Response);
 * and the OAS forms of the same settings (x-svc-api-gateway), as Tyk's OAS conversion makes them classic.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tykErrorBody } from '../kernel/errors.js';
import { runGateway, writeGateway, type EngineRun } from '../gateway/engine-run.js';
import { call, freePort, gatewayConfig, upstreamForFile, waitFor } from '../gateway/test-support.js';

const TIMED_OUT = tykErrorBody('Upstream service reached hard timeout.');
const BREAKER_OPEN = tykErrorBody('Service temporarily unavailable.');

/** Requests each upstream got, by name. */
const seen: string[] = [];
/** `/flaky` answers this status. */
let flakyStatus = 500;
/** How many times `/count` was answered. */
let counted = 0;
/** Answers held by `/hang` and `/half`, released after the tests. */
const held: http.ServerResponse[] = [];

function upstream(name: string): http.Server {
  return http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(`${name} ${req.method} ${req.url}`);
      const path = (req.url ?? '').split('?')[0];
      if (path === '/hang') return void held.push(res);
      if (path === '/half') {
        // Headers and part of the body, then nothing: the hard timeout cuts the answer.
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('part');
        return void held.push(res);
      }
      if (path === '/flaky') res.statusCode = flakyStatus;
      if (path === '/count') {
        res.setHeader('etag', '"v1"');
        return void res.end(`count:${++counted}`);
      }
      res.end(`${name}:${req.url}`);
    });
  });
}

const a = upstreamForFile(upstream('a'));
const b = upstreamForFile(upstream('b'));

const dirs: string[] = [];
const engines: EngineRun[] = [];
after(async () => {
  for (const res of held) res.destroy();
  for (const e of engines) await e.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Def = Record<string, unknown>;

function classic(id: string, proxy: Def = {}, paths: Def = {}, version: Def = {}): Def {
  return {
    api_id: id,
    name: id,
    use_keyless: true,
    proxy: { listen_path: `/${id}/`, target_url: a.url(), strip_listen_path: true, ...proxy },
    version_data: { not_versioned: true, versions: { Default: { name: 'Default', use_extended_paths: true, extended_paths: paths, ...version } } },
  };
}

async function gateway(defs: Record<string, Def>): Promise<{ port: number; engine: EngineRun }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-gw-traffic-'));
  dirs.push(dir);
  const port = await freePort();
  writeGateway(dir, gatewayConfig(port), []);
  for (const [name, def] of Object.entries(defs)) writeFileSync(join(dir, 'apps', name), JSON.stringify(def));
  const engine = await runGateway(dir, port, 'output:\n  gateway_proxy: {}');
  engines.push(engine);
  return { port, engine };
}

describe('load balancing (proxy.enable_load_balancing, target_list)', () => {
  it('takes the targets in turn from the first; a target without a scheme is http', async () => {
    const bHost = b.url().slice('http://'.length);
    const { port } = await gateway({
      'lb.json': classic('lb', { enable_load_balancing: true, target_list: [a.url(), bHost] }),
      'empty.json': classic('empty', { enable_load_balancing: true, target_list: [] }),
    });
    const start = seen.length;
    for (let i = 0; i < 5; i++) {
      const r = await call(port, 'GET', `/lb/n${i}`);
      assert.equal(r.status, 200, r.body);
    }
    assert.deepEqual(seen.slice(start), ['a GET /n0', 'b GET /n1', 'a GET /n2', 'b GET /n3', 'a GET /n4']);
    // Tyk sends the request to its "all hosts are down" server.
    const none = await call(port, 'GET', '/empty/x');
    assert.equal(none.status, 503);
    assert.equal(none.body, 'all hosts are down\n');
    assert.equal(seen.length, start + 5);
  });
});

describe('hard timeouts (extended_paths.hard_timeouts, global_enforce_timeout)', () => {
  it("answers Tyk's 504 past an endpoint's deadline, cuts an answer whose body is late, leaves other endpoints alone", async () => {
    const { port } = await gateway({
      'hard.json': classic(
        'hard',
        {},
        {
          hard_timeouts: [
            { path: '/hang', method: 'GET', timeout: 1 },
            { path: '/half', method: 'GET', duration: '300ms' },
            { path: '/off', method: 'GET', timeout: 1, disabled: true },
          ],
        },
      ),
      'global.json': classic('global', {}, {}, { global_enforce_timeout: '200ms' }),
    });
    const r = await call(port, 'GET', '/hard/hang');
    assert.equal(r.status, 504);
    assert.equal(r.body, TIMED_OUT);
    await assert.rejects(call(port, 'GET', '/hard/half'), /aborted|socket hang up|ECONNRESET/);
    // POST is another endpoint: no deadline (the proxy's own 30 s): it answers.
    const post = await call(port, 'POST', '/hard/ok');
    assert.equal(post.status, 200);
    const g = await call(port, 'GET', '/global/hang');
    assert.equal(g.status, 504);
    assert.equal(g.body, TIMED_OUT);
  });
});

describe('circuit breakers (extended_paths.circuit_breakers)', () => {
  it('opens at the failure rate, refuses with 503 without the upstream, logs the trip, returns to service', async () => {
    flakyStatus = 500;
    const { port, engine } = await gateway({
      'cb.json': classic(
        'cb',
        {},
        {
          circuit_breakers: [{ path: '/flaky', method: 'GET', threshold_percent: 0.5, samples: 2, return_to_service_after: 1, disable_half_open_state: true }],
        },
      ),
    });
    assert.equal((await call(port, 'GET', '/cb/flaky')).status, 500);
    assert.equal((await call(port, 'GET', '/cb/flaky')).status, 500);
    const start = seen.length;
    const open = await call(port, 'GET', '/cb/flaky');
    assert.equal(open.status, 503);
    assert.equal(open.body, BREAKER_OPEN);
    assert.equal(seen.length, start, 'an open breaker sent the request upstream');
    // Another endpoint is not guarded.
    assert.equal((await call(port, 'GET', '/cb/other')).status, 200);
    await waitFor(() => engine.log().includes('Breaker tripped for path: /flaky'), 'the trip in the log');
    flakyStatus = 200;
    await waitFor(async () => (await call(port, 'GET', '/cb/flaky')).status === 200, 'the breaker to return to service');
    assert.match(engine.log(), /Breaker reset for path: \/flaky/);
  });
});

describe('response cache (cache_options, advance_cache_config, cache)', () => {
  it('serves a kept answer with X-Svc-Cached-Response, keyed by method, URL and client; keeps only the listed statuses', async () => {
    flakyStatus = 500;
    const { port } = await gateway({
      'cache.json': {
        ...classic(
          'cache',
          {},
          {
            advance_cache_config: [
              { method: 'GET', path: '/count' },
              { method: 'GET', path: '/flaky' },
            ],
            cache: ['/old'],
          },
        ),
        cache_options: { enable_cache: true, cache_timeout: 60, cache_response_codes: [200] },
      },
    });
    const first = await call(port, 'GET', '/cache/count');
    assert.equal(first.status, 200);
    assert.equal(first.headers['x-svc-cached-response'], undefined);
    const again = await call(port, 'GET', '/cache/count');
    assert.equal(again.body, first.body);
    assert.equal(again.headers['x-svc-cached-response'], '1');
    assert.equal(again.headers.etag, '"v1"');
    // Another query, another client (Tyk keys a keyless API's answers by the client's address), another method: the upstream.
    assert.notEqual((await call(port, 'GET', '/cache/count?x=1')).body, first.body);
    const other = await call(port, 'GET', '/cache/count', { headers: { 'x-real-ip': '10.9.9.9' } });
    assert.notEqual(other.body, first.body);
    assert.equal(other.headers['x-svc-cached-response'], undefined);
    const post = await call(port, 'POST', '/cache/count');
    assert.equal(post.headers['x-svc-cached-response'], undefined);
    // If-None-Match with the kept ETag: 304.
    const notModified = await call(port, 'GET', '/cache/count', { headers: { 'if-none-match': '"v1"' } });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.headers['x-svc-cached-response'], '1');
    // A 500 is not in cache_response_codes: never kept.
    const start = seen.length;
    assert.equal((await call(port, 'GET', '/cache/flaky')).status, 500);
    assert.equal((await call(port, 'GET', '/cache/flaky')).status, 500);
    assert.equal(seen.length, start + 2);
    // A `cache` path is kept for GET.
    const old = await call(port, 'GET', '/cache/old');
    assert.equal((await call(port, 'GET', '/cache/old')).headers['x-svc-cached-response'], '1');
    assert.equal(old.status, 200);
  });
});

describe('response cache without cache_response_codes', () => {
  it('keeps any status below 500: a server error is never served from the cache (an svc default; Tyk keeps it)', async () => {
    flakyStatus = 500;
    const { port } = await gateway({
      'cache-any.json': {
        ...classic(
          'cacheany',
          {},
          {
            advance_cache_config: [
              { method: 'GET', path: '/count' },
              { method: 'GET', path: '/flaky' },
            ],
          },
        ),
        cache_options: { enable_cache: true, cache_timeout: 60 },
      },
    });
    const start = seen.length;
    assert.equal((await call(port, 'GET', '/cacheany/flaky')).status, 500);
    assert.equal((await call(port, 'GET', '/cacheany/flaky')).status, 500);
    assert.equal(seen.length, start + 2, 'both 500s came from the upstream');
    flakyStatus = 200;
    const first = await call(port, 'GET', '/cacheany/flaky');
    assert.equal(first.status, 200);
    const again = await call(port, 'GET', '/cacheany/flaky');
    assert.equal(again.headers['x-svc-cached-response'], '1', 'a 200 is kept');
  });
});

describe('response cache of POST (mw_redis_cache.go: the body is part of the key)', () => {
  it('serves the second identical POST from the cache; another body is a miss (advance_cache_config and an OAS operation cache)', async () => {
    const { port } = await gateway({
      'post.json': {
        ...classic('post', {}, { advance_cache_config: [{ method: 'POST', path: '/count' }] }),
        cache_options: { enable_cache: true, cache_timeout: 60 },
      },
      'oaspost.json': {
        openapi: '3.0.3',
        info: { title: 'oaspost', version: '1' },
        paths: { '/count': { post: { operationId: 'count', responses: { 200: { description: 'ok' } } } } },
        'x-svc-api-gateway': {
          info: { id: 'oaspost', name: 'oaspost', state: { active: true } },
          upstream: { url: a.url() },
          server: { listenPath: { value: '/oaspost/', strip: true } },
          middleware: { global: { cache: { enabled: true, timeout: 60 } }, operations: { count: { cache: { enabled: true } } } },
        },
      },
    });
    for (const api of ['post', 'oaspost']) {
      const json = { 'content-type': 'application/json' };
      const first = await call(port, 'POST', `/${api}/count`, { headers: json, body: '{"q":1}' });
      assert.equal(first.headers['x-svc-cached-response'], undefined, api);
      const again = await call(port, 'POST', `/${api}/count`, { headers: json, body: '{"q":1}' });
      assert.deepEqual([again.headers['x-svc-cached-response'], again.body], ['1', first.body], `${api}: the same body`);
      const other = await call(port, 'POST', `/${api}/count`, { headers: json, body: '{"q":2}' });
      assert.equal(other.headers['x-svc-cached-response'], undefined, `${api}: another body`);
      assert.notEqual(other.body, first.body);
    }
  });
});

describe('the OAS forms (upstream.loadBalancing, operations enforceTimeout / circuitBreaker / cache, middleware.global.cache)', () => {
  it('balances by weight, times out, breaks and caches as the classic fields do', async () => {
    flakyStatus = 500;
    const op = (operationId: string) => ({ operationId, responses: { 200: { description: 'ok' } } });
    const { port } = await gateway({
      'oas.json': {
        openapi: '3.0.3',
        info: { title: 'oas', version: '1' },
        paths: { '/hang': { get: op('hang') }, '/flaky': { get: op('flaky') }, '/count': { get: op('count') } },
        'x-svc-api-gateway': {
          info: { id: 'oas', name: 'oas', state: { active: true } },
          upstream: {
            url: a.url(),
            loadBalancing: {
              enabled: true,
              targets: [
                { url: a.url(), weight: 2 },
                { url: b.url(), weight: 1 },
              ],
            },
          },
          server: { listenPath: { value: '/oas/', strip: true } },
          middleware: {
            global: { cache: { enabled: true, timeout: 60 } },
            operations: {
              hang: { enforceTimeout: { enabled: true, duration: '300ms' } },
              flaky: { circuitBreaker: { enabled: true, threshold: 0.5, sampleSize: 2, coolDownPeriod: 30, halfOpenStateEnabled: false } },
              count: { cache: { enabled: true, cacheResponseCodes: [200] } },
            },
          },
        },
      },
    });
    const start = seen.length;
    for (let i = 0; i < 3; i++) assert.equal((await call(port, 'GET', `/oas/n${i}`)).status, 200);
    assert.deepEqual(seen.slice(start), ['a GET /n0', 'a GET /n1', 'b GET /n2']);
    const hung = await call(port, 'GET', '/oas/hang');
    assert.equal(hung.status, 504);
    assert.equal(hung.body, TIMED_OUT);
    assert.equal((await call(port, 'GET', '/oas/flaky')).status, 500);
    assert.equal((await call(port, 'GET', '/oas/flaky')).status, 500);
    const open = await call(port, 'GET', '/oas/flaky');
    assert.equal(open.status, 503);
    assert.equal(open.body, BREAKER_OPEN);
    const first = await call(port, 'GET', '/oas/count');
    assert.equal(first.headers['x-svc-cached-response'], undefined);
    const again = await call(port, 'GET', '/oas/count');
    assert.equal(again.headers['x-svc-cached-response'], '1');
    assert.equal(again.body, first.body);
  });
});
