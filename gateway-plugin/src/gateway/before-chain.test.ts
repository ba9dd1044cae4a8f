/**
 * Tyk's checks before the chain (issue 25, first part), against a real engine process serving
 * classic and OAS definition files behind `gateway: {}`, and a real upstream that counts what
 * reaches it (a refused request never does): IP allow and deny lists (X-Real-IP, X-Forwarded-For
 * and xff_depth as Tyk's RealIP reads them), endpoint lists (white, black, ignored, internal,
 * methods, method_actions, ignore_case), request size limits (global and per endpoint, chunked
 * bodies). The answers are Tyk v5.14.0's words, from its source (`gateway/mw_ip_*.go`,
 * `api_definition.go` URLAllowedAndIgnored, `mw_request_size_limit.go`) and observed: every case
 * here was sent to Tyk v5.14.0 built from source (/tmp/peers/bin/tyk, 2026-11-27) beside svc on
 * the same definitions by `scripts/tyk-diff-before-chain.mjs`, 62 requests with xff_depth 0, 1
 * and 3: all 186 answered alike (66 of 66 after the white list + internal + rewrite case) (status, body, whether the upstream saw the request), including
 * Tyk's quirks kept here: `allowed_ips` enforced with `enable_ip_whitelisting: false` (a classic
 * file is not migrated), `::ffff:127.0.0.0/104` holding 127.0.0.1, U+017F matching an
 * ignore_case `s`, the global size limit applied with its switch off when a size_limits entry
 * exists, and a chunked POST's 411.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runGateway, writeGateway, type EngineRun } from './engine-run.js';
import { call, freePort, gatewayConfig, type Reply } from './test-support.js';

const dirs: string[] = [];
let upstream: http.Server;
let target = '';
/** Every request the upstream got: method and URL. */
const seen: string[] = [];

before(async () => {
  upstream = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}`);
      res.end(`up:${req.url}`);
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

/** A classic definition on `/<id>/` (stripped) in front of the counting upstream. */
function classic(id: string, more: Def = {}, paths: Def = {}, version: Def = {}): Def {
  return {
    api_id: id,
    name: id,
    use_keyless: true,
    proxy: { listen_path: `/${id}/`, target_url: target, strip_listen_path: true },
    version_data: { not_versioned: true, versions: { Default: { name: 'Default', use_extended_paths: true, extended_paths: paths, ...version } } },
    ...more,
  };
}

const FORBIDDEN_IP = '{\n    "error": "access from this IP has been disallowed"\n}';
const FORBIDDEN_ENDPOINT = '{\n    "error": "Requested endpoint is forbidden"\n}';

/** Starts a gateway over `defs` (file name → definition) with svc.conf `more`. */
async function gateway(defs: Record<string, Def>, more: Def = {}): Promise<{ port: number; engine: EngineRun }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-gw-before-chain-'));
  dirs.push(dir);
  const port = await freePort();
  writeGateway(dir, { ...gatewayConfig(port), ...more } as ReturnType<typeof gatewayConfig>, []);
  for (const [name, def] of Object.entries(defs)) writeFileSync(join(dir, 'apps', name), JSON.stringify(def));
  const engine = await runGateway(dir, port, 'pipeline:\n  processors:\n    - gateway: {}\noutput:\n  gateway_proxy: {}');
  return { port, engine };
}

/** `method path` on the gateway; asserts whether the upstream saw it. */
async function expect(
  port: number,
  method: string,
  path: string,
  status: number,
  opts: { headers?: Record<string, string>; body?: string; upstream?: string; text?: string } = {},
): Promise<Reply> {
  const before = seen.length;
  const r = await call(port, method, path, opts);
  assert.equal(r.status, status, `${method} ${path}: ${r.body}`);
  if (opts.text !== undefined) assert.equal(r.body, opts.text);
  if (status >= 400) assert.equal(seen.length, before, `${method} ${path} reached the upstream`);
  else if (opts.upstream !== undefined) assert.deepEqual(seen.slice(before), [opts.upstream]);
  return r;
}

/** A POST whose body goes out chunked (no Content-Length). */
function chunkedPost(port: number, path: string, body: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path, agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.write(body);
    req.end();
  });
}

describe('IP allow and deny lists (Tyk: mw_ip_whitelist.go, mw_ip_blacklist.go, request.RealIP)', () => {
  it('an allow list refuses other clients with 403 before anything else; X-Real-IP, then X-Forwarded-For name the client', async () => {
    const { port, engine } = await gateway({
      'allow.json': classic('allow', { enable_ip_whitelisting: true, allowed_ips: ['10.9.9.9', '192.168.0.0/16'] }),
      'local.json': classic('local', { enable_ip_whitelisting: true, allowed_ips: ['127.0.0.0/8'] }),
      // Tyk 5.14 does not migrate a classic file: with ip_access_control_disabled unset, allowed_ips alone is enforced.
      'quirk.json': classic('quirk', { enable_ip_whitelisting: false, allowed_ips: ['10.9.9.9'] }),
      'off.json': classic('off', { enable_ip_whitelisting: false, allowed_ips: ['10.9.9.9'], ip_access_control_disabled: true }),
      'keyed.json': classic('keyed', { use_keyless: false, enable_ip_whitelisting: true, allowed_ips: ['10.9.9.9'] }),
    });
    try {
      await expect(port, 'GET', '/allow/x', 403, { text: FORBIDDEN_IP });
      await expect(port, 'GET', '/allow/x', 200, { headers: { 'x-real-ip': '10.9.9.9' }, upstream: 'GET /x' });
      await expect(port, 'GET', '/allow/x', 200, { headers: { 'x-forwarded-for': '192.168.4.5, 127.0.0.1' }, upstream: 'GET /x' });
      // X-Real-IP wins over X-Forwarded-For; one that does not parse is passed over.
      await expect(port, 'GET', '/allow/x', 403, { headers: { 'x-real-ip': '10.0.0.1', 'x-forwarded-for': '10.9.9.9' } });
      await expect(port, 'GET', '/allow/x', 200, { headers: { 'x-real-ip': 'nonsense', 'x-forwarded-for': '10.9.9.9' } });
      await expect(port, 'GET', '/local/x', 200, { upstream: 'GET /x' });
      await expect(port, 'GET', '/quirk/x', 403, { text: FORBIDDEN_IP });
      await expect(port, 'GET', '/off/x', 200, { upstream: 'GET /x' });
      // Before authentication: the key is never asked for.
      await expect(port, 'GET', '/keyed/x', 403, { text: FORBIDDEN_IP });
    } finally {
      await engine.stop();
    }
  });

  it('a deny list refuses its addresses and CIDRs (IPv4-mapped forms alike); xff_depth picks the entry from the right', async () => {
    const defs = {
      'deny.json': classic('deny', { enable_ip_blacklisting: true, blacklisted_ips: ['127.0.0.1', '10.1.0.0/16'] }),
      'mapped.json': classic('mapped', { enable_ip_blacklisting: true, blacklisted_ips: ['::ffff:127.0.0.0/104'] }),
      'both.json': classic('both', { enable_ip_whitelisting: true, allowed_ips: ['10.0.0.0/8'], enable_ip_blacklisting: true, blacklisted_ips: ['10.6.6.6'] }),
    };
    const { port, engine } = await gateway(defs);
    try {
      await expect(port, 'GET', '/deny/x', 403, { text: FORBIDDEN_IP });
      await expect(port, 'GET', '/deny/x', 403, { headers: { 'x-forwarded-for': '10.1.2.3' } });
      await expect(port, 'GET', '/deny/x', 200, { headers: { 'x-forwarded-for': '10.2.2.2, 10.1.2.3' }, upstream: 'GET /x' });
      await expect(port, 'GET', '/mapped/x', 403, { text: FORBIDDEN_IP });
      await expect(port, 'GET', '/both/x', 200, { headers: { 'x-real-ip': '10.5.5.5' }, upstream: 'GET /x' });
      await expect(port, 'GET', '/both/x', 403, { headers: { 'x-real-ip': '10.6.6.6' } });
    } finally {
      await engine.stop();
    }
    const deep = await gateway(defs, { http_server_options: { xff_depth: 1 } });
    try {
      // Depth 1: the last entry (the nearest proxy's view).
      await expect(deep.port, 'GET', '/deny/x', 403, { headers: { 'x-forwarded-for': '10.2.2.2, 10.1.2.3' } });
      await expect(deep.port, 'GET', '/deny/x', 200, { headers: { 'x-forwarded-for': '10.1.2.3, 10.2.2.2' }, upstream: 'GET /x' });
    } finally {
      await deep.engine.stop();
    }
  });

  it('OAS server.ipAccessControl: enabled, block wins over allow', async () => {
    const oas = (id: string, ip: Def): Def => ({
      openapi: '3.0.3',
      info: { title: id, version: '1' },
      paths: {},
      'x-svc-api-gateway': {
        info: { id, name: id, state: { active: true } },
        upstream: { url: target },
        server: { listenPath: { value: `/${id}/`, strip: true }, ipAccessControl: ip },
      },
    });
    const { port, engine } = await gateway({
      'blocked.json': oas('blocked', { enabled: true, allow: ['127.0.0.1'], block: ['127.0.0.1'] }),
      'allowed.json': oas('allowed', { enabled: true, allow: ['127.0.0.1'] }),
      'disabled.json': oas('disabled', { enabled: false, block: ['127.0.0.1'] }),
    });
    try {
      await expect(port, 'GET', '/blocked/x', 403, { text: FORBIDDEN_IP });
      await expect(port, 'GET', '/allowed/x', 200, { upstream: 'GET /x' });
      await expect(port, 'GET', '/disabled/x', 200, { upstream: 'GET /x' });
    } finally {
      await engine.stop();
    }
  });
});

describe('endpoint lists (Tyk: api_definition.go URLAllowedAndIgnored)', () => {
  it('black, white and ignored lists with methods, method_actions and ignore_case; internal endpoints only through svc:// loops', async () => {
    const { port, engine } = await gateway({
      'black.json': classic(
        'black',
        {},
        {
          black_list: [
            { path: '/admin', method: 'GET' },
            { path: '/Secret', method: '', ignore_case: true },
          ],
        },
      ),
      'white.json': classic(
        'white',
        {},
        {
          white_list: [
            { path: '/open', method: 'GET' },
            { path: '/acts', method_actions: { GET: { action: 'no_action', code: 200, data: '', headers: {} } } },
            { path: '/off', method: 'GET', disabled: true },
          ],
        },
      ),
      'keyed.json': classic(
        'keyed',
        { use_keyless: false },
        {
          ignored: [{ path: '/health', method: 'GET' }],
          black_list: [
            { path: '/health', method: 'GET' },
            { path: '/gone', method: '' },
          ],
        },
      ),
      'inner.json': classic('inner', {}, { internal: [{ path: '/secret', method: 'GET' }] }),
      'front.json': classic(
        'front',
        {},
        {
          url_rewrites: [
            { path: '/to-inner', method: 'GET', match_pattern: '/to-inner', rewrite_to: 'svc://inner/secret', triggers: [] },
            { path: '/to-walled', method: 'GET', match_pattern: '/to-walled', rewrite_to: 'svc://walled/priv', triggers: [] },
            { path: '/to-quiet', method: 'GET', match_pattern: '/to-quiet', rewrite_to: 'svc://walled/quiet', triggers: [] },
          ],
        },
      ),
      // A white list: an entry of a list Tyk compiles before the internal one (here a POST rewrite) forbids even a loop.
      'walled.json': classic(
        'walled',
        {},
        {
          white_list: [{ path: '/pub', method: 'GET' }],
          internal: [
            { path: '/priv', method: 'GET' },
            { path: '/quiet', method: 'GET' },
          ],
          url_rewrites: [{ path: '/priv', method: 'POST', match_pattern: '/nothing', rewrite_to: '/x', triggers: [] }],
        },
      ),
    });
    try {
      await expect(port, 'GET', '/black/admin', 403, { text: FORBIDDEN_ENDPOINT });
      await expect(port, 'POST', '/black/admin', 200, { upstream: 'POST /admin' });
      await expect(port, 'GET', '/black/secret/x', 403, { text: FORBIDDEN_ENDPOINT });
      // RE2's case folding (Go's regexp, as Tyk's (?i)): U+017F (long s) is an s, escaped or not.
      await expect(port, 'GET', '/black/%C5%BFECRET', 403, { text: FORBIDDEN_ENDPOINT });
      await expect(port, 'GET', '/black/other', 200, { upstream: 'GET /other' });

      await expect(port, 'GET', '/white/open', 200, { upstream: 'GET /open' });
      await expect(port, 'POST', '/white/open', 403, { text: FORBIDDEN_ENDPOINT });
      await expect(port, 'GET', '/white/other', 403, { text: FORBIDDEN_ENDPOINT });
      await expect(port, 'GET', '/white/acts', 200, { upstream: 'GET /acts' });
      await expect(port, 'PUT', '/white/acts', 403);
      await expect(port, 'GET', '/white/off', 403);

      // Ignored: no key asked for (and it wins over the black list, which Tyk checks after it).
      await expect(port, 'GET', '/keyed/health', 200, { upstream: 'GET /health' });
      await expect(port, 'GET', '/keyed/other', 401, { text: '{\n    "error": "Authorization field missing"\n}' });
      // Before authentication: a forbidden endpoint is 403 with or without a key.
      await expect(port, 'DELETE', '/keyed/gone', 403, { text: FORBIDDEN_ENDPOINT });

      await expect(port, 'GET', '/inner/secret', 403, { text: FORBIDDEN_ENDPOINT });
      await expect(port, 'POST', '/inner/secret', 200, { upstream: 'POST /secret' });
      await expect(port, 'GET', '/front/to-inner', 200, { upstream: 'GET /secret' });
      await expect(port, 'GET', '/walled/quiet', 403, { text: FORBIDDEN_ENDPOINT });
      await expect(port, 'GET', '/front/to-quiet', 200, { upstream: 'GET /quiet' });
      await expect(port, 'GET', '/front/to-walled', 403, { text: FORBIDDEN_ENDPOINT });
    } finally {
      await engine.stop();
    }
  });

  it('OAS operations: allow, block, ignoreAuthentication, internal', async () => {
    const def = (id: string, ops: Def, auth = false): Def => ({
      openapi: '3.0.3',
      info: { title: id, version: '1' },
      // Tyk matches endpoint paths unanchored, on the path with and without the listen path: `/a` would match `/allowed/b/1`.
      paths: { '/one': { get: { operationId: 'a' }, post: { operationId: 'aPost' } }, '/two/{id}': { get: { operationId: 'b' } } },
      components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'Authorization' } } },
      'x-svc-api-gateway': {
        info: { id, name: id, state: { active: true } },
        upstream: { url: target },
        server: {
          listenPath: { value: `/${id}/`, strip: true },
          ...(auth ? { authentication: { enabled: true, securitySchemes: { key: { enabled: true } } } } : {}),
        },
        middleware: { operations: ops },
      },
    });
    const { port, engine } = await gateway({
      'allowed.json': def('allowed', { a: { allow: { enabled: true } } }),
      'blocked.json': def('blocked', { b: { block: { enabled: true } }, aPost: { internal: { enabled: true } } }),
      'open.json': def('open', { b: { ignoreAuthentication: { enabled: true } } }, true),
    });
    try {
      await expect(port, 'GET', '/allowed/one', 200, { upstream: 'GET /one' });
      await expect(port, 'POST', '/allowed/one', 403, { text: FORBIDDEN_ENDPOINT });
      await expect(port, 'GET', '/allowed/two/1', 403, { text: FORBIDDEN_ENDPOINT });
      await expect(port, 'GET', '/blocked/two/7', 403, { text: FORBIDDEN_ENDPOINT });
      await expect(port, 'POST', '/blocked/one', 403, { text: FORBIDDEN_ENDPOINT });
      await expect(port, 'GET', '/blocked/one', 200, { upstream: 'GET /one' });
      await expect(port, 'GET', '/open/two/1', 200, { upstream: 'GET /two/1' });
      await expect(port, 'GET', '/open/one', 401);
    } finally {
      await engine.stop();
    }
  });
});

describe('request size limits (Tyk: mw_request_size_limit.go)', () => {
  it('global_size_limit and size_limits: 400 "Request is too large" by Content-Length, 411 for a chunked body, GET never limited', async () => {
    const { port, engine } = await gateway({
      'sized.json': classic('sized', {}, { size_limits: [{ path: '/small', method: 'POST', size_limit: 3 }] }, { global_size_limit: 10 }),
      'keyed.json': classic('keyed', { use_keyless: false }, {}, { global_size_limit: 1 }),
    });
    try {
      const TOO_LARGE = '{\n    "error": "Request is too large"\n}';
      await expect(port, 'POST', '/sized/x', 400, { body: '12345678901', text: TOO_LARGE });
      await expect(port, 'POST', '/sized/x', 200, { body: '1234567890', upstream: 'POST /x' });
      // Node's client sends no Content-Length for a GET body unless told.
      await expect(port, 'GET', '/sized/x', 200, { body: '12345678901', headers: { 'content-length': '11' }, upstream: 'GET /x' });
      await expect(port, 'POST', '/sized/small', 400, { body: '1234', text: TOO_LARGE });
      await expect(port, 'PUT', '/sized/small', 200, { body: '1234', upstream: 'PUT /small' });
      // Before authentication.
      await expect(port, 'POST', '/keyed/x', 400, { body: '12', text: TOO_LARGE });
      const before = seen.length;
      const chunked = await chunkedPost(port, '/sized/x', 'a');
      assert.equal(chunked.status, 411, chunked.body);
      assert.equal(chunked.body, '{\n    "error": "Content length is required for this request"\n}');
      assert.equal(seen.length, before);
    } finally {
      await engine.stop();
    }
  });

  it('OAS requestSizeLimit (operation and global)', async () => {
    const { port, engine } = await gateway({
      'sized.json': {
        openapi: '3.0.3',
        info: { title: 'sized', version: '1' },
        paths: { '/a': { post: { operationId: 'a' } } },
        'x-svc-api-gateway': {
          info: { id: 'sized', name: 'sized', state: { active: true } },
          upstream: { url: target },
          server: { listenPath: { value: '/sized/', strip: true } },
          middleware: { global: { requestSizeLimit: { enabled: true, value: 5 } }, operations: { a: { requestSizeLimit: { enabled: true, value: 2 } } } },
        },
      },
    });
    try {
      await expect(port, 'POST', '/sized/a', 400, { body: '123' });
      await expect(port, 'POST', '/sized/b', 200, { body: '123', upstream: 'POST /b' });
      await expect(port, 'POST', '/sized/b', 400, { body: '123456' });
    } finally {
      await engine.stop();
    }
  });
});
