/**
 * The gateway fails closed (issue 22), against real engine processes and a real upstream that
 * counts what reaches it: a chain that lacks a stage a definition needs is refused by `engine
 * lint` and `engine -c`; a stage skipped at run time (inside a `switch` case that does not match)
 * gets the client a 500 and the log one ERROR line, and the upstream sees nothing, at threads 1
 * and 2; a definition loaded later that needs a missing stage is refused at reload (the others
 * served) and by the management API (400); a definition turning on a feature svc does not
 * implement is refused at load and by the management API; Tyk's `enable_redis_rolling_limiter`
 * is read.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { lintGateway, runGateway, writeGateway } from './engine-run.js';
import { apiSpec, call, freePort, gatewayConfig, waitFor } from './test-support.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'svc-gw-failclosed-'));
  dirs.push(d);
  return d;
}

/** A real upstream that answers `up` and counts every request that reaches it. */
let upstream: http.Server;
let target = '';
let hits = 0;
before(async () => {
  upstream = http.createServer((req, res) => {
    hits++;
    res.end(`up:${req.url}`);
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
after(() => {
  upstream.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const AUTH = { 'x-svc-authorization': 'test-secret' };
const PROXY = 'output:\n  gateway_proxy: {}';

/** A key for API `api` through the management API. */
async function createKey(port: number, api: string): Promise<string> {
  const session = { access_rights: { [api]: { api_id: api, api_name: api, versions: ['Default'] } }, org_id: '' };
  const created = await call(port, 'POST', '/svc/keys/create', { headers: AUTH, body: JSON.stringify(session) });
  assert.equal(created.status, 200, created.body);
  return (JSON.parse(created.body) as { key: string }).key;
}

describe('fail closed at start-up: the chain against the definitions', () => {
  it('engine lint and engine -c refuse a chain without gateway_auth for a key API, naming the API, the field and the fix', async () => {
    const dir = tempDir();
    const port = await freePort();
    writeGateway(dir, gatewayConfig(port), [
      apiSpec('open', '/open', { targetUrl: target }),
      apiSpec('locked', '/locked', { targetUrl: target, keyless: false }),
    ]);
    const rest = `pipeline:\n  processors:\n    - gateway_url_rewrite: {}\n${PROXY}`;
    const lint = lintGateway(dir, rest);
    assert.equal(lint.code, 1, lint.out);
    assert.match(
      lint.out,
      /engine\.yaml:\d+:\d+ API "locked" \(.*locked\.json\): use_keyless: false needs gateway_auth, which the pipeline does not have: add `- gateway_auth: \{\}`/,
    );
    assert.match(lint.out, /or use `- gateway: \{\}`/);
    const before = hits;
    await assert.rejects(runGateway(dir, port, rest), /the config has \d problem\(s\) and was not run:[\s\S]*API "locked"[\s\S]*needs gateway_auth/);
    assert.equal(hits, before);
  });

  it('with processes: 2, engine -c refuses a chain without gateway_auth for a key API as one process does, before any process serves; a negative processes is refused naming the field', async () => {
    const dir = tempDir();
    const port = await freePort();
    writeGateway(dir, gatewayConfig(port), [apiSpec('locked', '/locked', { targetUrl: target, keyless: false })]);
    const before = hits;
    await assert.rejects(
      runGateway(dir, port, `pipeline:\n  processors:\n    - gateway_url_rewrite: {}\n${PROXY}`, { input: 'processes: 2' }),
      /the config has \d problem\(s\) and was not run:[\s\S]*API "locked"[\s\S]*needs gateway_auth/,
    );
    assert.equal(hits, before);
    await assert.rejects(
      runGateway(dir, port, `pipeline:\n  processors:\n    - gateway: {}\n${PROXY}`, { input: 'processes: -1' }),
      /processes must be 0 \(one per core\) or more/,
    );
  });

  it("the issue's case: configs/gateway/ (secure.json, JWT) behind only gateway_url_rewrite is refused by lint naming enable_jwt", () => {
    const dir = tempDir();
    const file = join(dir, 'issue.yaml');
    const conf = fileURLToPath(new URL('../../../configs/gateway/svc.conf', import.meta.url));
    writeFileSync(file, `input:\n  api_gateway: { conf: ${JSON.stringify(conf)} }\npipeline:\n  processors: [ { gateway_url_rewrite: {} } ]\n${PROXY}\n`);
    const r = spawnSync(process.execPath, [fileURLToPath(new URL('../../../engine/dist/cli/main.js', import.meta.url)), 'lint', file], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /issue\.yaml:4:\d+ API "secure" \(.*secure\.json\): enable_jwt needs gateway_auth, which the pipeline does not have/);
    assert.doesNotMatch(r.stderr, /API "engine"/, 'the keyless API needs no stage');
  });

  it('gateway_rate_limit: {} is scope key: an API-level limit without scope api is an error; misordered stages are errors; gateway: {} passes', async () => {
    const dir = tempDir();
    const port = await freePort();
    writeGateway(dir, gatewayConfig(port), [
      apiSpec('limited', '/limited', { targetUrl: target, disableRateLimit: false, globalRateLimit: { rate: 5, per: 60 } }),
      apiSpec('locked', '/locked', { targetUrl: target, keyless: false }),
    ]);
    const defaultScope = lintGateway(dir, `pipeline:\n  processors:\n    - gateway_rate_limit: {}\n    - gateway_auth: {}\n${PROXY}`);
    assert.equal(defaultScope.code, 1, defaultScope.out);
    assert.match(
      defaultScope.out,
      /API "limited" .*: global_rate_limit needs gateway_rate_limit with scope: api, which the pipeline does not have \(root\.pipeline\.processors\.0 is gateway_rate_limit with scope: key, the default\)/,
    );
    assert.match(
      defaultScope.out,
      /API "locked" .*: use_keyless: false \(keys carry rate limits and quotas\) needs gateway_rate_limit with scope: key after gateway_auth, but root\.pipeline\.processors\.0 runs it before gateway_auth/,
    );
    const whole = lintGateway(dir, `pipeline:\n  processors:\n    - gateway:\n        after_auth: [ { log: { message: hi } } ]\n${PROXY}`);
    assert.equal(whole.code, 0, whole.out);
  });

  it('header and method transforms need gateway_transform (a versioned API: any of its versions)', async () => {
    const dir = tempDir();
    const port = await freePort();
    writeGateway(dir, gatewayConfig(port), []);
    const version = (more: Record<string, unknown>) => ({ name: 'v', use_extended_paths: true, extended_paths: {}, ...more });
    writeFileSync(
      join(dir, 'apps', 'shaped.json'),
      JSON.stringify({
        api_id: 'shaped',
        use_keyless: true,
        proxy: { listen_path: '/shaped/', target_url: target },
        definition: { location: 'header', key: 'x-v' },
        version_data: {
          not_versioned: false,
          versions: {
            v1: version({ name: 'v1' }),
            v2: version({ name: 'v2', extended_paths: { method_transforms: [{ path: '/x', method: 'GET', to_method: 'POST' }] } }),
          },
        },
      }),
    );
    const without = lintGateway(
      dir,
      `pipeline:\n  processors:\n    - gateway_rate_limit: { scope: api }\n    - gateway_auth: {}\n    - gateway_url_rewrite: {}\n${PROXY}`,
    );
    assert.equal(without.code, 1, without.out);
    assert.match(
      without.out,
      /API "shaped" .*: global_headers, transform_headers, transform_response_headers, method_transforms, validate_json, validateRequest, mockResponse or upstream_auth needs gateway_transform, which the pipeline does not have/,
    );
    const whole = lintGateway(dir, `pipeline:\n  processors:\n    - gateway: {}\n${PROXY}`);
    assert.equal(whole.code, 0, whole.out);
  });
});

describe('fail closed in the data path', () => {
  for (const threads of [1, 2]) {
    it(`threads ${threads}: a gateway_auth skipped at run time: 500, one ERROR line naming the API and the stage, the upstream sees nothing`, async () => {
      const dir = tempDir();
      const port = await freePort();
      writeGateway(dir, gatewayConfig(port), [
        apiSpec('open', '/open', { targetUrl: target }),
        apiSpec('locked', '/locked', { targetUrl: target, keyless: false }),
      ]);
      // The static check counts the nested gateway_auth; its case never matches, so no request meets it.
      const engine = await runGateway(
        dir,
        port,
        `pipeline:
  threads: ${threads}
  dispatch: ${threads > 1 ? 'pool' : 'auto'}
  processors:
    - switch:
        - check: 'false'
          processors: [ { gateway_auth: {} } ]
    - gateway_rate_limit: { scope: key }
${PROXY}`,
      );
      try {
        const key = await createKey(port, 'locked');
        const before = hits;
        for (const headers of [{}, { authorization: key }] as Record<string, string>[]) {
          const r = await call(port, 'GET', '/locked/x', { headers });
          assert.equal(r.status, 500, r.body);
          assert.equal(r.body, '{\n    "error": "There was a problem proxying the request"\n}');
        }
        assert.equal(hits, before, 'the upstream saw nothing of the refused requests');
        await waitFor(() => (engine.log().match(/API locked: request refused \(500\)/g) ?? []).length === 2, 'one ERROR line per refused request');
        const line = engine
          .log()
          .split('\n')
          .find((l) => l.includes('API locked: request refused'))!;
        assert.match(line, /level=error|"level":"error"|ERROR/i);
        assert.match(line, /did not go through gateway_auth, which use_keyless: false needs/);
        // A keyless API needs no stage: served.
        const open = await call(port, 'GET', '/open/y');
        assert.equal(open.status, 200);
        assert.equal(open.body, 'up:/y');
      } finally {
        await engine.stop();
      }
    });
  }

  it('threads 2: the stages a worker ran cross back to the proxy on the main thread (gateway: {} serves a key)', async () => {
    const dir = tempDir();
    const port = await freePort();
    writeGateway(dir, gatewayConfig(port), [apiSpec('locked', '/locked', { targetUrl: target, keyless: false })]);
    const engine = await runGateway(dir, port, `pipeline:\n  threads: 2\n  dispatch: pool\n  processors:\n    - gateway: {}\n${PROXY}`);
    try {
      const key = await createKey(port, 'locked');
      assert.equal((await call(port, 'GET', '/locked/a')).status, 401);
      const ok = await call(port, 'GET', '/locked/a', { headers: { authorization: key } });
      assert.equal(ok.status, 200, ok.body);
      assert.equal(ok.body, 'up:/a');
      assert.doesNotMatch(engine.log(), /request refused/);
    } finally {
      await engine.stop();
    }
  });

  it('a definition added later that needs a stage the chain lacks: refused at reload (the others served) and by the management API (400)', async () => {
    const dir = tempDir();
    const port = await freePort();
    writeGateway(dir, gatewayConfig(port), [apiSpec('open', '/open', { targetUrl: target })]);
    const engine = await runGateway(dir, port, `pipeline:\n  processors:\n    - gateway_url_rewrite: {}\n${PROXY}`);
    try {
      writeFileSync(
        join(dir, 'apps', 'late.json'),
        JSON.stringify({ api_id: 'late', name: 'late', use_keyless: false, proxy: { listen_path: '/late/', target_url: target } }),
      );
      const reload = await call(port, 'GET', '/svc/reload', { headers: AUTH });
      assert.equal(reload.status, 200);
      assert.match(
        reload.body,
        /^\{"status":"ok","message":"API \\"late\\" \(.*late\.json\): use_keyless: false needs gateway_auth, which the pipeline does not have/,
      );
      await waitFor(
        () => /API \\?"late\\?" \(.*late\.json\): use_keyless: false needs gateway_auth.*\(not loaded; the other APIs are\)/.test(engine.log()),
        `the refusal in the log: ${engine.log()}`,
      );
      const before = hits;
      assert.equal((await call(port, 'GET', '/late/x')).status, 404);
      assert.equal(hits, before);
      assert.equal((await call(port, 'GET', '/open/x')).status, 200);
      const posted = await call(port, 'POST', '/svc/apis', {
        headers: AUTH,
        body: JSON.stringify({ api_id: 'posted', name: 'posted', use_keyless: false, proxy: { listen_path: '/posted/', target_url: target } }),
      });
      assert.equal(posted.status, 400, posted.body);
      assert.match(posted.body, /API \\"posted\\": use_keyless: false needs gateway_auth, which the pipeline does not have/);
    } finally {
      await engine.stop();
    }
  });
});

describe('fields svc does not implement', () => {
  it('a definition turning one on is refused at load (file, field, not supported), the others served; the management API answers 400', async () => {
    const dir = tempDir();
    const port = await freePort();
    writeGateway(dir, gatewayConfig(port), [apiSpec('open', '/open', { targetUrl: target })]);
    writeFileSync(
      join(dir, 'apps', 'basic.json'),
      JSON.stringify({
        api_id: 'basic',
        use_keyless: false,
        use_basic_auth: true,
        listen_port: 9999,
        proxy: { listen_path: '/basic/', target_url: target },
      }),
    );
    const engine = await runGateway(dir, port, `pipeline:\n  processors:\n    - gateway: {}\n${PROXY}`);
    try {
      const before = hits;
      assert.equal((await call(port, 'GET', '/basic/x')).status, 404, 'never served on the shared port as if it had no port of its own');
      assert.equal(hits, before);
      assert.equal((await call(port, 'GET', '/open/x')).status, 200);
      assert.match(engine.log(), /basic\.json: listen_port: not supported: a listen port of its own for the API/);
      const posted = await call(port, 'POST', '/svc/apis', {
        headers: AUTH,
        body: JSON.stringify({ api_id: 'goauth', use_keyless: false, use_go_plugin_auth: true, proxy: { listen_path: '/goauth/', target_url: target } }),
      });
      assert.equal(posted.status, 400, posted.body);
      assert.match(posted.body, /use_go_plugin_auth: not supported: Go plugin authentication/);
    } finally {
      await engine.stop();
    }
  });

  it("svc.conf: Tyk's enable_redis_rolling_limiter turns the rolling limiter on (not an unknown field)", async () => {
    const dir = tempDir();
    const port = await freePort();
    const storage = { type: 'redis', host: '127.0.0.1', port: 6379, username: '', password: '', database: 7, enable_cluster: false, addrs: [] };
    writeGateway(dir, gatewayConfig(port, { storage }), [apiSpec('open', '/open', { targetUrl: target })]);
    const conf = join(dir, 'svc.conf');
    const written = JSON.parse(readFileSync(conf, 'utf8')) as Record<string, unknown>;
    writeFileSync(conf, JSON.stringify({ ...written, enable_shared_store_rolling_limiter: undefined, enable_redis_rolling_limiter: true }));
    const engine = await runGateway(dir, port, `pipeline:\n  processors:\n    - gateway: {}\n${PROXY}`);
    try {
      assert.match(engine.log(), /Rate limits: rolling limiter, counted in Redis/);
      assert.doesNotMatch(engine.log(), /enable_redis_rolling_limiter/);
    } finally {
      await engine.stop();
    }
  });
});
