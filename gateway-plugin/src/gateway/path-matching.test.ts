/**
 * svc.conf's `http_server_options.enable_path_prefix_matching`, `enable_path_suffix_matching` and
 * `enable_strict_routes`, on a real engine process serving classic definition files in front of a
 * real upstream that records what reaches it. The cases are Tyk v5.14.0's own:
 * `tests/regression/issue_12865_test.go` (an ignored `/anything` on a keyed API at `/test/`, under
 * wildcard, prefix, suffix and both), `internal/httputil/mux_test.go` TestPreparePathRegexp_FixedOutputs,
 * and `gateway/gateway_test.go` TestListener / TestListenerWithStrictRoutes (`/sample`, `/samplefoo`).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { preparePathRegexp } from '../apis/endpoints.js';
import { runGateway, writeGateway } from './engine-run.js';
import { call, freePort, gatewayConfig } from './test-support.js';

const dirs: string[] = [];
let upstream: http.Server;
let target = '';
/** Every path the upstream got. */
const seen: string[] = [];

before(async () => {
  upstream = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(req.url ?? '');
      res.end('up');
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
after(() => {
  upstream.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Def = Record<string, unknown>;

function classic(id: string, listenPath: string, more: Def = {}, paths: Def = {}): Def {
  return {
    api_id: id,
    name: id,
    use_keyless: true,
    proxy: { listen_path: listenPath, target_url: target, strip_listen_path: true },
    version_data: { not_versioned: true, versions: { Default: { name: 'Default', use_extended_paths: true, extended_paths: paths } } },
    ...more,
  };
}

/** The definitions (built once the upstream listens). */
const defs = (): Record<string, Def> => ({
  // tests/regression/testdata/issue-12865.json, without its rewrite to httpbin.org.
  'issue.json': classic('issue', '/test/', { use_keyless: false }, { ignored: [{ path: '/anything', method_actions: { GET: { action: 'no_action' } } }] }),
  // The issue's own case: an allow list entry `/public`.
  'allow.json': classic('allow', '/allow/', {}, { white_list: [{ path: '/public', method: 'GET' }] }),
  'sample.json': classic('sample', '/sample'),
  'root.json': classic('root', '/'),
});

type Switches = { enable_path_prefix_matching?: boolean; enable_path_suffix_matching?: boolean; enable_strict_routes?: boolean };

/** Runs `check` against a gateway with `switches` in http_server_options. */
async function withGateway(
  switches: Switches,
  check: (get: (path: string) => Promise<{ status: number; upstream: string | undefined }>) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-gw-path-matching-'));
  dirs.push(dir);
  const port = await freePort();
  writeGateway(dir, { ...gatewayConfig(port), http_server_options: { xff_depth: 0, ...switches } }, []);
  for (const [name, def] of Object.entries(defs())) writeFileSync(join(dir, 'apps', name), JSON.stringify(def));
  const engine = await runGateway(dir, port, 'pipeline:\n  processors:\n    - gateway: {}\noutput:\n  gateway_proxy: {}');
  try {
    await check(async (path) => {
      const before = seen.length;
      const r = await call(port, 'GET', path);
      return { status: r.status, upstream: seen.length > before ? seen.at(-1) : undefined };
    });
  } finally {
    await engine.stop();
  }
}

/** Issue 12865's table: the status of each path (200: ignored, so served without a key; 401: the key asked for). */
async function expectTable(get: (path: string) => Promise<{ status: number }>, table: Record<string, number>): Promise<void> {
  for (const [path, status] of Object.entries(table)) assert.equal((await get(path)).status, status, path);
}

describe('path matching of endpoints (Tyk: PreparePathRegexp, generateRegex, explicitRouteSubpaths)', () => {
  it("PreparePathRegexp's fixed outputs (mux_test.go)", () => {
    const cases: Array<[string, boolean, boolean, string]> = [
      ['/users', true, false, '^/users'],
      ['/users', true, true, '^/users$'],
      ['/users/{id}', true, false, '^/users/([^/]+)'],
      ['/users/{id}', true, true, '^/users/([^/]+)$'],
      ['users', false, false, 'users'],
      ['users', false, true, 'users$'],
      ['/items/*', true, false, '^/items/.*'],
      ['/users$', true, true, '^/users$'],
      ['^/test/users', true, false, '^/test/users'],
    ];
    for (const [pattern, prefix, suffix, want] of cases) assert.equal(preparePathRegexp(pattern, { prefix, suffix }), want, `${pattern} ${prefix} ${suffix}`);
  });

  it('default (wildcard, routes by plain prefix): a pattern is found anywhere in the path; /sample answers /samplefoo', async () => {
    await withGateway({}, async (get) => {
      await expectTable(get, {
        '/test/anything': 200,
        '/test/anything/health': 200,
        '/test/status/200': 401,
        '/test/status/200/anything': 200,
      });
      assert.equal((await get('/allow/x/public')).status, 200);
      // TestListener: `/samplefoo` is routed to `/sample` (the upstream gets what follows it), not to `/`.
      assert.deepEqual(await get('/samplefoo'), { status: 200, upstream: '/foo' });
    });
  });

  it('enable_path_prefix_matching: a pattern matches at the start of the path after the listen path', async () => {
    await withGateway({ enable_path_prefix_matching: true }, async (get) => {
      await expectTable(get, {
        '/test/anything': 200,
        '/test/anything/health': 200,
        '/test/status/200': 401,
        '/test/status/200/anything': 401,
      });
      assert.deepEqual(await get('/allow/public/x'), { status: 200, upstream: '/public/x' });
      assert.deepEqual(await get('/allow/x/public'), { status: 403, upstream: undefined });
    });
  });

  it('enable_path_suffix_matching: a pattern matches at the end of the path', async () => {
    await withGateway({ enable_path_suffix_matching: true }, async (get) => {
      await expectTable(get, {
        '/test/anything': 200,
        '/test/anything/health': 401,
        '/test/status/200': 401,
        '/test/status/200/anything': 200,
      });
      assert.deepEqual(await get('/allow/x/public'), { status: 200, upstream: '/x/public' });
      assert.deepEqual(await get('/allow/public/x'), { status: 403, upstream: undefined });
    });
  });

  it('both, with enable_strict_routes: exact endpoint paths; /sample answers /sample and /sample/..., 404 for /samplefoo', async () => {
    await withGateway({ enable_path_prefix_matching: true, enable_path_suffix_matching: true, enable_strict_routes: true }, async (get) => {
      await expectTable(get, {
        '/test/anything': 200,
        '/test/anything/health': 401,
        '/test/status/200': 401,
        '/test/status/200/anything': 401,
      });
      assert.deepEqual(await get('/allow/public'), { status: 200, upstream: '/public' });
      assert.deepEqual(await get('/allow/public/x'), { status: 403, upstream: undefined });
      assert.deepEqual(await get('/allow/x/public'), { status: 403, upstream: undefined });
      // TestListenerWithStrictRoutes.
      assert.deepEqual(await get('/sample'), { status: 200, upstream: '/' });
      assert.deepEqual(await get('/sample/'), { status: 200, upstream: '/' });
      assert.deepEqual(await get('/sample/foo'), { status: 200, upstream: '/foo' });
      assert.deepEqual(await get('/samplefoo'), { status: 404, upstream: undefined });
    });
  });
});
