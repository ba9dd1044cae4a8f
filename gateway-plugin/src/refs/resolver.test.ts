import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, type Logger } from '@svc/engine';
import type { KvStoreConfig } from './kvstore-client.js';
import type { SecretStoreConfig } from './secretstore-client.js';
import { ConsulDouble } from './consul-double.js';
import { ReferenceResolver, type ResolverOptions } from './resolver.js';
import { VaultDouble } from './vault-double.js';

const KV_TOKEN = 'consul-token-0f3a9c';
const KV_PASSWORD = 'basic-pass-77b1';
const VAULT_TOKEN = 'hvs.vault-root-token-5e2d';

interface Captured {
  log: Logger;
  lines: Array<Record<string, unknown>>;
  raw: string[];
}

function captureLog(): Captured {
  const raw: string[] = [];
  const log = createLogger({ level: 'DEBUG', format: 'json' }, { write: (l) => raw.push(l) });
  return {
    log,
    raw,
    get lines() {
      return raw.map((l) => JSON.parse(l) as Record<string, unknown>);
    },
  };
}

function kvConf(address: string, over: Partial<KvStoreConfig> = {}): KvStoreConfig {
  return {
    address,
    scheme: 'http',
    datacenter: 'dc1',
    http_auth: { username: 'gw', password: KV_PASSWORD },
    wait_time: 0,
    token: KV_TOKEN,
    tls_config: { address: '', ca_path: '', ca_file: '', cert_file: '', key_file: '', insecure_skip_verify: false },
    ...over,
  };
}

function vaultConf(address: string, over: Partial<SecretStoreConfig> = {}): SecretStoreConfig {
  return { address, agent_address: '', max_retries: 0, timeout: 0, token: VAULT_TOKEN, kv_version: 2, ...over };
}

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const fast: ResolverOptions = { retryWaitMs: 5, env: {} };

test('kvstore://path/to/key reads Consul KV: GET /v1/kv/{key}?dc=, X-Consul-Token, basic auth, base64 Value', async (t) => {
  const consul = new ConsulDouble({ token: KV_TOKEN, datacenters: ['dc1'] });
  const address = await consul.start();
  t.after(() => consul.stop());
  consul.keys.set('path/to/key', 'https://upstream.internal:8443/');
  consul.keys.set('empty', null);
  consul.keys.set('unicode key', 'naïve ✓');
  const cap = captureLog();
  const r = new ReferenceResolver({ secrets: {}, kv: { kvstore: kvConf(address) } }, cap.log, fast);

  assert.equal(await r.resolveString('kvstore://path/to/key'), 'https://upstream.internal:8443/');
  const req = consul.requests[0]!;
  assert.equal(req.method, 'GET');
  assert.equal(req.path, '/v1/kv/path/to/key');
  assert.equal(req.query.get('dc'), 'dc1');
  assert.equal(req.headers['x-consul-token'], KV_TOKEN);
  assert.equal(req.basic, `gw:${KV_PASSWORD}`);

  assert.equal(await r.resolveString('kvstore://empty'), '', 'a key without data is the empty string');
  assert.equal(await r.resolveString('kvstore://unicode key'), 'naïve ✓');
  assert.equal(consul.requests.at(-1)!.path, '/v1/kv/unicode%20key');
  assert.equal(cap.lines.length, 0, 'found keys log nothing');

  assert.equal(await r.resolveString('kvstore://missing/key'), '');
  assert.equal(cap.lines.length, 1);
  assert.equal(cap.lines[0]!.reference, 'kvstore://missing/key');
  assert.equal(cap.lines[0]!.code, 'not_found');
  assert.equal(cap.lines[0]!.level, 'warn');

  // A reference cannot climb out of /v1/kv/ to another endpoint of the store.
  const before = consul.requests.length;
  assert.equal(await r.resolveString('kvstore://../agent/self'), '');
  assert.equal(await r.resolveString('kvstore://a/../../acl/tokens'), '');
  assert.equal(consul.requests.length, before, 'no request for a .. path');
  assert.equal(cap.lines.at(-1)!.code, 'bad_reference');
  // `?` and `#` stay in the key.
  consul.keys.set('q?x=1#f', 'odd');
  assert.equal(await r.resolveString('kvstore://q?x=1#f'), 'odd');
  assert.equal(consul.requests.at(-1)!.path, '/v1/kv/q%3Fx%3D1%23f');
});

test('kvstore: a wrong token or an unknown datacenter is the empty string and an error line without the token', async (t) => {
  const consul = new ConsulDouble({ token: 'the-right-one', datacenters: ['dc1'] });
  const address = await consul.start();
  t.after(() => consul.stop());
  consul.keys.set('k', 'v');
  const cap = captureLog();
  const r = new ReferenceResolver({ secrets: {}, kv: { kvstore: kvConf(address) } }, cap.log, fast);
  assert.equal(await r.resolveString('kvstore://k'), '');
  assert.equal(cap.lines[0]!.code, 'store_error');
  assert.equal(cap.lines[0]!.level, 'error');
  assert.match(String(cap.lines[0]!.reason), /403/);
  const r2 = new ReferenceResolver({ secrets: {}, kv: { kvstore: kvConf(address, { token: 'the-right-one', datacenter: 'mars' }) } }, cap.log, fast);
  assert.equal(await r2.resolveString('kvstore://k'), '');
  assert.match(String(cap.lines[1]!.reason), /500: No path to datacenter/);
  for (const l of cap.raw) {
    assert.ok(!l.includes(KV_TOKEN) && !l.includes('the-right-one') && !l.includes(KV_PASSWORD), l);
  }
});

test('kvstore over https: tls_config ca_file and address (the SNI name), insecure_skip_verify', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'refs-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=consul.test',
      '-addext', 'subjectAltName=DNS:consul.test',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' }); // prettier-ignore
  } catch {
    t.skip('openssl is not available to make a certificate');
    return;
  }
  const consul = new ConsulDouble({ tls: { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) } });
  const address = await consul.start();
  t.after(() => consul.stop());
  consul.keys.set('tls/key', 'over tls');
  const tls = { address: 'consul.test', ca_path: '', ca_file: join(dir, 'cert.pem'), cert_file: '', key_file: '', insecure_skip_verify: false };
  const cap = captureLog();

  const trusted = new ReferenceResolver({ secrets: {}, kv: { kvstore: kvConf(address, { scheme: 'https', tls_config: tls }) } }, cap.log, fast);
  t.after(() => trusted.close());
  assert.equal(await trusted.resolveString('kvstore://tls/key'), 'over tls');

  const caPath = new ReferenceResolver(
    { secrets: {}, kv: { kvstore: kvConf(`https://${address}`, { scheme: 'http', tls_config: { ...tls, ca_file: '', ca_path: dir } }) } },
    cap.log,
    fast,
  );
  t.after(() => caPath.close());
  assert.equal(await caPath.resolveString('kvstore://tls/key'), 'over tls', 'ca_path, and the scheme in the address winning');

  const untrusted = new ReferenceResolver({ secrets: {}, kv: { kvstore: kvConf(address, { scheme: 'https' }) } }, cap.log, fast);
  t.after(() => untrusted.close());
  assert.equal(await untrusted.resolveString('kvstore://tls/key'), '');
  assert.equal(cap.lines.at(-1)!.code, 'unreachable');

  const wrongName = new ReferenceResolver(
    { secrets: {}, kv: { kvstore: kvConf(address, { scheme: 'https', tls_config: { ...tls, address: 'other.test' } }) } },
    cap.log,
    fast,
  );
  t.after(() => wrongName.close());
  assert.equal(await wrongName.resolveString('kvstore://tls/key'), '', 'the certificate is checked against tls_config.address');

  const insecure = new ReferenceResolver(
    { secrets: {}, kv: { kvstore: kvConf(address, { scheme: 'https', tls_config: { ...tls, ca_file: '', insecure_skip_verify: true } }) } },
    cap.log,
    fast,
  );
  t.after(() => insecure.close());
  assert.equal(await insecure.resolveString('kvstore://tls/key'), 'over tls');
});

for (const version of [1, 2] as const) {
  test(`secretstore KV v${version}: GET /v1/{mount}/{secret}?lease=true with X-Secretstore-Token, /data not appended, the key after the last dot`, async (t) => {
    const vault = new VaultDouble(VAULT_TOKEN, version);
    const address = await vault.start();
    t.after(() => vault.stop());
    vault.secrets.set('secret/app', { password: 's3cret', port: 5432 });
    vault.secrets.set('kv/team.one/db', { user: 'admin' });
    vault.secrets.set('top', { k: 'v' });
    const cap = captureLog();
    const r = new ReferenceResolver({ secrets: {}, kv: { secretstore: vaultConf(address, { kv_version: version }) } }, cap.log, fast);

    assert.equal(await r.resolveString('secretstore://secret/app.password'), 's3cret');
    const req = vault.requests[0]!;
    assert.equal(req.method, 'GET');
    assert.equal(req.path, '/v1/secret/app');
    assert.equal(req.query.get('lease'), 'true');
    assert.equal(req.headers['x-secretstore-token'], VAULT_TOKEN);
    assert.equal(await r.resolveString('secretstore://secret/app.port'), '5432');
    assert.equal(await r.resolveString('secretstore://kv/team.one/db.user'), 'admin', 'a dot inside the path: the key is after the last one');
    assert.equal(vault.requests.at(-1)!.path, '/v1/kv/team.one/db');
    assert.equal(await r.resolveString('secretstore://top.k'), 'v', 'secretstore://secret.key');
    assert.equal(cap.lines.length, 0);

    assert.equal(await r.resolveString('secretstore://secret/app.nokey'), '');
    assert.equal(await r.resolveString('secretstore://secret/none.k'), '');
    assert.equal(await r.resolveString('secretstore://nodot'), '');
    assert.deepEqual(
      cap.lines.map((l) => l.code),
      ['not_found', 'not_found', 'bad_reference'],
    );
  });
}

test('secretstore: kv_version 2 also reads the keys when the answer has them directly in data (the documented shape)', async (t) => {
  const vault = new VaultDouble(VAULT_TOKEN, 1); // answers data: {keys}
  const address = await vault.start();
  t.after(() => vault.stop());
  vault.secrets.set('secret/app', { password: 'flat' });
  const r = new ReferenceResolver({ secrets: {}, kv: { secretstore: vaultConf(address, { kv_version: 2 }) } }, undefined, fast);
  assert.equal(await r.resolveString('secretstore://secret/app.password'), 'flat');
});

test('secretstore: agent_address is asked instead of address', async (t) => {
  const agent = new VaultDouble(VAULT_TOKEN, 2);
  const agentAddress = await agent.start();
  t.after(() => agent.stop());
  agent.secrets.set('secret/app', { password: 'via-agent' });
  const r = new ReferenceResolver(
    { secrets: {}, kv: { secretstore: vaultConf(`http://127.0.0.1:${await closedPort()}`, { agent_address: agentAddress }) } },
    undefined,
    fast,
  );
  assert.equal(await r.resolveString('secretstore://secret/app.password'), 'via-agent');
  assert.equal(agent.requests.length, 1);
});

test('secretstore: max_retries attempts after an error, then the value; beyond them the empty string', async (t) => {
  const vault = new VaultDouble(VAULT_TOKEN, 2);
  const address = await vault.start();
  t.after(() => vault.stop());
  vault.secrets.set('secret/app', { password: 'eventually' });
  const cap = captureLog();
  const r = new ReferenceResolver({ secrets: {}, kv: { secretstore: vaultConf(address, { max_retries: 3 }) } }, cap.log, fast);
  vault.failNext = 3;
  assert.equal(await r.resolveString('secretstore://secret/app.password'), 'eventually');
  assert.equal(vault.requests.length, 4, 'one attempt and three retries');
  assert.equal(cap.lines.length, 0);

  vault.requests.length = 0;
  vault.failNext = 10;
  assert.equal(await r.resolveString('secretstore://secret/app.password'), '');
  assert.equal(vault.requests.length, 4);
  assert.equal(cap.lines.length, 1);
  assert.match(String(cap.lines[0]!.reason), /HTTP 500/);

  // A 403 (a wrong token) is an answer, not an error to retry.
  vault.failNext = 0;
  vault.requests.length = 0;
  const wrong = new ReferenceResolver({ secrets: {}, kv: { secretstore: vaultConf(address, { max_retries: 3, token: 'wrong-token-xyz' }) } }, cap.log, fast);
  assert.equal(await wrong.resolveString('secretstore://secret/app.password'), '');
  assert.equal(vault.requests.length, 1);
  assert.ok(!cap.raw.join('').includes('wrong-token-xyz'));
});

test('secretstore: timeout (nanoseconds) ends an attempt that gets no answer; each retry gets its own', async (t) => {
  const vault = new VaultDouble(VAULT_TOKEN, 2);
  const address = await vault.start();
  t.after(() => vault.stop());
  vault.hang = true;
  const cap = captureLog();
  const r = new ReferenceResolver({ secrets: {}, kv: { secretstore: vaultConf(address, { timeout: 200_000_000, max_retries: 1 }) } }, cap.log, fast);
  assert.equal(await r.resolveString('secretstore://secret/app.password'), '');
  assert.equal(vault.requests.length, 2);
  assert.equal(cap.lines[0]!.code, 'unreachable');
});

test('a closed port: the empty string and one log line naming the reference, never the token or a password', async () => {
  const port = await closedPort();
  const cap = captureLog();
  const r = new ReferenceResolver(
    {
      secrets: {},
      kv: {
        kvstore: kvConf(`127.0.0.1:${port}`),
        secretstore: vaultConf(`http://vaultuser:${KV_PASSWORD}x@127.0.0.1:${port}`, { max_retries: 1 }),
      },
    },
    cap.log,
    fast,
  );
  assert.equal(await r.resolveString('kvstore://a/b'), '');
  assert.equal(await r.resolveString('secretstore://secret/app.password'), '');
  assert.equal(cap.lines.length, 2);
  assert.deepEqual(
    cap.lines.map((l) => [l.reference, l.code, l.level]),
    [
      ['kvstore://a/b', 'unreachable', 'error'],
      ['secretstore://secret/app.password', 'unreachable', 'error'],
    ],
  );
  const all = cap.raw.join('\n');
  for (const secret of [KV_TOKEN, KV_PASSWORD, VAULT_TOKEN]) assert.ok(!all.includes(secret), `log shows ${secret}: ${all}`);
});

test('a store that svc.conf does not configure is never reached: the empty string and a not_configured line', async () => {
  const cap = captureLog();
  const r = new ReferenceResolver({ secrets: {}, kv: {} }, cap.log, fast);
  assert.equal(await r.resolveString('kvstore://a'), '');
  assert.equal(await r.resolveString('secretstore://s.k'), '');
  assert.deepEqual(
    cap.lines.map((l) => l.code),
    ['not_configured', 'not_configured'],
  );
  const noAddress = new ReferenceResolver({ secrets: {}, kv: { kvstore: kvConf(''), secretstore: vaultConf('file:///etc/passwd') } }, cap.log, fast);
  assert.equal(await noAddress.resolveString('kvstore://a'), '');
  assert.equal(await noAddress.resolveString('secretstore://s.k'), '');
  assert.equal(cap.lines.length, 4);
});

test('secrets://key reads svc.conf secrets with SVC_GW_SECRETS over them', async () => {
  const cap = captureLog();
  const r = new ReferenceResolver({ secrets: { db: 'from-file', only_file: 'f' }, kv: {} }, cap.log, {
    env: { SVC_GW_SECRETS: 'db:from-env,url:http://h:1/p,broken,k2:v2' },
  });
  assert.equal(await r.resolveString('secrets://db'), 'from-env');
  assert.equal(await r.resolveString('secrets://only_file'), 'f');
  assert.equal(await r.resolveString('secrets://url'), 'http://h:1/p', 'a value may hold ":"');
  assert.equal(await r.resolveString('secrets://k2'), 'v2');
  assert.equal(await r.resolveString('secrets://absent'), '');
  assert.equal(cap.lines.length, 1);
  assert.equal(cap.lines[0]!.code, 'not_found');
});

test('env://KEY reads the variable by its full name, else SVC_SECRET_KEY (the pre-5.3.0 convention)', async () => {
  const cap = captureLog();
  const r = new ReferenceResolver({ secrets: {}, kv: {} }, cap.log, {
    env: { UPSTREAM_URL: 'http://full:1', SVC_SECRET_LISTEN: '/legacy/', SVC_SECRET_UPSTREAM_URL: 'not-this' },
  });
  assert.equal(await r.resolveString('env://UPSTREAM_URL'), 'http://full:1');
  assert.equal(await r.resolveString('env://LISTEN'), '/legacy/');
  assert.equal(await r.resolveString('env://listen'), '/legacy/', 'the legacy name is upper-cased, as Tyk');
  assert.equal(await r.resolveString('env://NOWHERE'), '');
  assert.equal(cap.lines.length, 1);
  // Not references: unchanged.
  for (const s of ['http://a/b', 'ENV://X', ' env://X', 'kvstore:/x', '', 'file:///etc/passwd']) assert.equal(await r.resolveString(s), s);
});

test('resolveDeep resolves every string of a nested API definition into a new tree, once per distinct reference', async (t) => {
  const consul = new ConsulDouble();
  const kvAddress = await consul.start();
  t.after(() => consul.stop());
  consul.keys.set('apis/target', 'http://backend:8080/');
  const vault = new VaultDouble(VAULT_TOKEN, 2);
  const vaultAddress = await vault.start();
  t.after(() => vault.stop());
  vault.secrets.set('secret/jwt', { source: 'c2VjcmV0' });
  const r = new ReferenceResolver(
    {
      secrets: { org: 'org-1' },
      kv: { kvstore: kvConf(kvAddress, { token: '', http_auth: { username: '', password: '' }, datacenter: '' }), secretstore: vaultConf(vaultAddress) },
    },
    undefined,
    { ...fast, env: { SVC_SECRET_LISTEN: '/api/' } },
  );
  const def = JSON.parse(`{
    "name": "orders", "api_id": "a1", "org_id": "secrets://org", "active": true, "jwt_source": "secretstore://secret/jwt.source",
    "proxy": { "listen_path": "env://LISTEN", "target_url": "kvstore://apis/target", "strip_listen_path": true,
               "service_discovery": { "cache_timeout": 60, "query_endpoint": null } },
    "version_data": { "versions": { "Default": { "extended_paths": { "url_rewrites": [
      { "path": "/a", "rewrite_to": "kvstore://apis/target" }, { "path": "/b", "rewrite_to": "plain" } ] } } } },
    "tags": ["kvstore://apis/target", 3, false, null],
    "__proto__": { "polluted": "kvstore://apis/target" }
  }`) as Record<string, unknown>;
  const before = JSON.stringify(def);
  const out = (await r.resolveDeep(def)) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  assert.equal(JSON.stringify(def), before, 'the input is not changed');
  assert.equal(out.org_id, 'org-1');
  assert.equal(out.jwt_source, 'c2VjcmV0');
  assert.equal(out.proxy.listen_path, '/api/');
  assert.equal(out.proxy.target_url, 'http://backend:8080/');
  assert.equal(out.proxy.strip_listen_path, true);
  assert.deepEqual(out.proxy.service_discovery, { cache_timeout: 60, query_endpoint: null });
  assert.deepEqual(out.version_data.versions.Default.extended_paths.url_rewrites, [
    { path: '/a', rewrite_to: 'http://backend:8080/' },
    { path: '/b', rewrite_to: 'plain' },
  ]);
  assert.deepEqual(out.tags, ['http://backend:8080/', 3, false, null]);
  assert.equal(Object.getPrototypeOf(out), Object.prototype, 'a __proto__ key stays a key');
  assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { polluted: 'http://backend:8080/' });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(consul.requests.length, 1, 'four uses of one reference, one lookup');
  assert.equal(consul.requests[0]!.query.get('dc'), null, 'no dc when datacenter is empty');
  assert.equal(consul.requests[0]!.headers['x-consul-token'], undefined);
  assert.equal(consul.requests[0]!.headers.authorization, undefined);

  // Bounded depth: a tree deeper than any definition is left as it is below the bound.
  let deep: unknown = 'env://LISTEN';
  for (let i = 0; i < 200; i++) deep = { d: deep };
  let node = (await r.resolveDeep(deep)) as { d: unknown };
  for (let i = 0; i < 200; i++) node = node.d as { d: unknown };
  assert.equal(node as unknown, 'env://LISTEN');
  assert.equal(await r.resolveDeep(42), 42);
  assert.equal(await r.resolveDeep('env://LISTEN'), '/api/');
});

test('resolveInline replaces $secret_kvstore., $secret_secretstore., $secret_conf., $secret_env. and env:// inside a text, through a short cache', async (t) => {
  const consul = new ConsulDouble({ token: KV_TOKEN });
  const kvAddress = await consul.start();
  t.after(() => consul.stop());
  consul.keys.set('tokens/upstream', 'tok-1');
  const vault = new VaultDouble(VAULT_TOKEN, 2);
  const vaultAddress = await vault.start();
  t.after(() => vault.stop());
  vault.secrets.set('secret/app', { password: 'pw-1' });
  const ttl = 150;
  const cap = captureLog();
  const r = new ReferenceResolver({ secrets: { tenant: 'acme' }, kv: { kvstore: kvConf(kvAddress), secretstore: vaultConf(vaultAddress) } }, cap.log, {
    ...fast,
    inlineTtlMs: ttl,
    env: { SVC_SECRET_REGION: 'eu-1', HOST_NAME: 'h.example' },
  });
  const text =
    '{"auth":"Bearer $secret_kvstore.tokens/upstream","pw":"$secret_secretstore.secret/app.password",' +
    '"tenant":"$secret_conf.tenant","region":"$secret_env.region","host":"env://HOST_NAME","again":"$secret_kvstore.tokens/upstream",' +
    '"missing":"[$secret_conf.nope][$secret_env.NOPE][$secret_kvstore.nope]"}';
  const want = (tok: string, pw: string): string =>
    `{"auth":"Bearer ${tok}","pw":"${pw}","tenant":"acme","region":"eu-1","host":"h.example","again":"${tok}","missing":"[][][]"}`;
  assert.equal(await r.resolveInline(text), want('tok-1', 'pw-1'));
  assert.equal(consul.requests.length, 2, 'tokens/upstream once (used twice) and nope once');
  assert.equal(vault.requests.length, 1);
  assert.deepEqual(
    cap.lines.filter((l) => l.level !== 'debug').map((l) => [l.reference, l.code]),
    [['$secret_kvstore.nope', 'not_found']],
  );

  // Changed in the stores: the cached values are seen until the ttl has passed.
  consul.keys.set('tokens/upstream', 'tok-2');
  vault.secrets.set('secret/app', { password: 'pw-2' });
  const cachedAt = Date.now();
  assert.equal(await r.resolveInline(text), want('tok-1', 'pw-1'));
  assert.equal(consul.requests.length, 2, 'no lookup within the ttl');
  assert.equal(cap.lines.filter((l) => l.level !== 'debug').length, 1, 'a cached failure logs no new line');
  await new Promise((res) => setTimeout(res, Math.max(0, ttl + 20 - (Date.now() - cachedAt))));
  assert.equal(await r.resolveInline(text), want('tok-2', 'pw-2'));
  assert.equal(consul.requests.length, 4);

  // Text without references is returned as it is, with no lookup.
  assert.equal(await r.resolveInline('no refs, $1 and $svc_context.x'), 'no refs, $1 and $svc_context.x');
  assert.equal(await r.resolveInline(''), '');
});

test('resolveInline with the cache off looks up every time; a bounded cache drops its oldest entries', async (t) => {
  const consul = new ConsulDouble();
  const kvAddress = await consul.start();
  t.after(() => consul.stop());
  for (const k of ['a', 'b', 'c']) consul.keys.set(k, k.toUpperCase());
  const kvstore = kvConf(kvAddress, { token: '', datacenter: '' });
  const off = new ReferenceResolver({ secrets: {}, kv: { kvstore } }, undefined, { ...fast, inlineTtlMs: 0 });
  await off.resolveInline('$secret_kvstore.a');
  await off.resolveInline('$secret_kvstore.a');
  assert.equal(consul.requests.length, 2);

  consul.requests.length = 0;
  const small = new ReferenceResolver({ secrets: {}, kv: { kvstore } }, undefined, { ...fast, inlineMaxEntries: 2 });
  assert.equal(await small.resolveInline('$secret_kvstore.a $secret_kvstore.b'), 'A B');
  assert.equal(await small.resolveInline('$secret_kvstore.c'), 'C'); // drops a
  assert.equal(consul.requests.length, 3);
  assert.equal(await small.resolveInline('$secret_kvstore.b $secret_kvstore.c'), 'B C');
  assert.equal(consul.requests.length, 3, 'b and c still cached');
  assert.equal(await small.resolveInline('$secret_kvstore.a'), 'A');
  assert.equal(consul.requests.length, 4, 'a was dropped');
});
