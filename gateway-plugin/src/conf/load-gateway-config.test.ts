import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, type Logger } from '@svc/engine';
import { ConsulDouble } from '../refs/consul-double.js';
import { loadGatewayConfig } from './load-gateway-config.js';

async function withConf(content: string, run: (file: string, dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-conf-'));
  try {
    const file = join(dir, 'svc.conf');
    await writeFile(file, content);
    await run(file, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function rejects(content: string, message: (file: string) => string): Promise<void> {
  await withConf(content, async (file) => {
    await assert.rejects(loadGatewayConfig(file, { env: {} }), (err: unknown) => {
      assert.ok(err instanceof ConfigError, String(err));
      assert.equal(err.message, message(file));
      return true;
    });
  });
}

/** A logger that keeps its lines, to check what a failure logs (and that no token is in it). */
function recordingLogger(lines: string[]): Logger {
  const log = (level: string) => (msg: string, fields?: Record<string, unknown>) => lines.push(`${level} ${msg} ${JSON.stringify(fields ?? {})}`);
  const l: Logger = {
    fatal: log('fatal'),
    error: log('error'),
    warn: log('warn'),
    info: log('info'),
    debug: log('debug'),
    trace: log('trace'),
    enabled: () => true,
    child: () => l,
  };
  return l;
}

test("an empty svc.conf is Tyk's defaults: port 8080, all interfaces, hash_keys on, storage in memory", async () => {
  await withConf('{}', async (file, dir) => {
    const { config, warnings } = await loadGatewayConfig(file, { env: {} });
    assert.deepEqual(warnings, []);
    assert.deepEqual(config, {
      listen_address: '',
      listen_port: 8080,
      secret: '',
      node_secret: '',
      control_api_port: 0,
      app_path: join(dir, 'apps'),
      policies: { policy_source: '', policy_record_name: '', policy_path: '', policy_connection_string: '' },
      local_session_cache: { disable_cached_session_state: false, cached_session_timeout: 0, cached_session_eviction: 0 },
      hash_keys: true,
      hash_key_function: '',
      oauth_token_expire: 0,
      oauth_refresh_token_expire: 0,
      oauth_redirect_uri_separator: '',
      oauth_error_status_code: 0,
      oauth_token_expired_retain_period: 0,
      enable_shared_store_rolling_limiter: false,
      enable_sentinel_rate_limiter: false,
      enable_non_transactional_rate_limiter: false,
      enable_fixed_window_rate_limiter: false,
      drl_threshold: 0,
      rate_limit_response_headers: 'quotas',
      rate_limit_fail_open: false,
      enable_custom_domains: false,
      hostname: '',
      enable_separate_cache_store: false,
      http_server_options: {
        xff_depth: 0,
        use_ssl: false,
        certificates: [],
        min_version: 0,
        ssl_ciphers: [],
        enable_strict_routes: false,
        enable_path_prefix_matching: false,
        enable_path_suffix_matching: false,
      },
      proxy_default_timeout: 0,
      secrets: {},
      kv: {},
      baseDir: dir,
    });
    assert.equal('storage' in config, false, 'no storage section: in memory');
  });
});

test('fields as written; storage and kv sections filled with defaults; relative paths against the file folder', async () => {
  const conf = {
    listen_address: '127.0.0.1',
    listen_port: 9090,
    secret: 's3cret',
    app_path: './apis',
    policies: { policy_source: 'file', policy_record_name: 'policies/policies.json', policy_path: '/abs/policies' },
    storage: { type: 'redis', port: 6380, addrs: ['a:1', 'b:2'] },
    hash_keys: false,
    hash_key_function: 'murmur128',
    enable_fixed_window_rate_limiter: true,
    drl_threshold: 5,
    kv: { kvstore: { address: '127.0.0.1:8500', token: 't' }, secretstore: { address: 'http://127.0.0.1:8200' } },
  };
  await withConf(JSON.stringify(conf), async (file, dir) => {
    const { config } = await loadGatewayConfig(file, { env: {} });
    assert.equal(config.listen_address, '127.0.0.1');
    assert.equal(config.listen_port, 9090);
    assert.equal(config.app_path, join(dir, 'apis'));
    assert.equal(config.policies.policy_record_name, join(dir, 'policies/policies.json'));
    assert.equal(config.policies.policy_path, '/abs/policies');
    assert.deepEqual(config.storage, {
      type: 'redis',
      host: 'localhost',
      port: 6380,
      username: '',
      password: '',
      database: 0,
      enable_cluster: false,
      addrs: ['a:1', 'b:2'],
    });
    assert.deepEqual(
      [config.hash_keys, config.hash_key_function, config.enable_fixed_window_rate_limiter, config.drl_threshold],
      [false, 'murmur128', true, 5],
    );
    assert.deepEqual(config.kv.kvstore, {
      address: '127.0.0.1:8500',
      scheme: 'http',
      datacenter: '',
      http_auth: { username: '', password: '' },
      wait_time: 0,
      token: 't',
      tls_config: { address: '', ca_path: '', ca_file: '', cert_file: '', key_file: '', insecure_skip_verify: false },
    });
    assert.deepEqual(config.kv.secretstore, { address: 'http://127.0.0.1:8200', agent_address: '', max_retries: 0, timeout: 0, token: '', kv_version: 2 });
  });
});

test('unknown fields are a warning each, with their dotted path; null is absent', async () => {
  await withConf(
    JSON.stringify({ x: 1, enable_analytics: true, storage: { host: 'r', optimisation_max_idle: 2 }, kv: { kvstore: { foo: 1 } }, listen_port: null }),
    async (file) => {
      const { config, warnings } = await loadGatewayConfig(file, { env: {} });
      assert.equal(config.listen_port, 8080);
      assert.deepEqual(warnings, [
        // One of Tyk's own settings: the lists of field-support.ts say what it is.
        `${file}: enable_analytics: ignored (logging, analytics, plugins, dashboards or connection tuning: not implemented by svc)`,
        `${file}: storage.optimisation_max_idle: ignored (Redis connection tuning: not implemented by svc)`,
        `${file}: unknown field "x" (ignored)`,
        `${file}: unknown field "kv.kvstore.foo" (ignored)`,
      ]);
    },
  );
});

test('a wrong type and invalid JSON are a ConfigError at file:line:col, naming the dotted path', async () => {
  await rejects('{"listen_port": "8080"}', (f) => `${f}:1:17 expected an integer at listen_port, got a string`);
  await rejects('{"listen_port": 70000}', (f) => `${f}:1:17 expected an integer from 0 to 65535, got 70000 (listen_port)`);
  await rejects('{"storage": {"port": true}}', (f) => `${f}:1:22 expected an integer at storage.port, got boolean true`);
  await rejects('{"kv": {"secretstore": {"timeout": 1.5}}}', (f) => `${f}:1:36 expected an integer at kv.secretstore.timeout, got 1.5`);
  await rejects('{"storage": {"addrs": "a:1"}}', (f) => `${f}:1:23 expected an array at storage.addrs, got a string`);
  await rejects('{"secrets": {"a": 1}}', (f) => `${f}:1:19 expected a string at secrets.a, got number 1`);
  await rejects('{"policies": []}', (f) => `${f}:1:14 expected an object at policies, got an array`);
  await rejects('[1]', (f) => `${f}:1:1 expected an object (the gateway config), got an array`);
  await rejects('{\n  "listen_port": 8080,\n  "secret": x\n}', (f) => `${f}:3:13 invalid JSON: Unexpected token 'x'`);
  await rejects('{"secret": "s3cr3t-value",\n "x": }', (f) => `${f}:2:7 invalid JSON: Unexpected token '}'`);
  await assert.rejects(loadGatewayConfig('/nonexistent/svc.conf'), /\/nonexistent\/svc\.conf: cannot read the gateway config: ENOENT/);
});

test('SVC_GW_SECRETS merges over secrets; secrets:// and env:// in the reference fields resolve once', async () => {
  const conf = {
    secret: 'secrets://api',
    node_secret: 'env://NODE',
    secrets: { api: 'from-file', keep: 'k' },
    storage: { password: 'secrets://redis' },
    cache_storage: { password: 'secrets://cache' },
    policies: { policy_connection_string: 'env://CONN' },
    listen_address: 'env://NOT_A_REFERENCE_FIELD',
  };
  await withConf(JSON.stringify(conf), async (file) => {
    const env = { SVC_GW_SECRETS: 'api:from-env,redis:pw:with:colons,cache:cache-pw', NODE: 'node-s', SVC_SECRET_CONN: 'redis://conn' };
    const { config } = await loadGatewayConfig(file, { env });
    assert.deepEqual(config.secrets, { api: 'from-env', keep: 'k', redis: 'pw:with:colons', cache: 'cache-pw' });
    assert.equal(config.secret, 'from-env');
    assert.equal(config.node_secret, 'node-s');
    assert.equal(config.storage?.password, 'pw:with:colons');
    assert.equal(config.cache_storage?.password, 'cache-pw');
    assert.equal(config.policies.policy_connection_string, 'redis://conn', 'env:// falls back to SVC_SECRET_{KEY}');
    assert.equal(config.listen_address, 'env://NOT_A_REFERENCE_FIELD', 'only the fields docs/spec/gateway.md lists are references in svc.conf');
  });
});

test('kvstore:// in svc.conf reads Consul (a double) with the kv settings of the same file', async () => {
  const consul = new ConsulDouble({ token: 'consul-token' });
  const address = await consul.start();
  consul.keys.set('gateway/secret', 'from-consul');
  try {
    await withConf(JSON.stringify({ secret: 'kvstore://gateway/secret', kv: { kvstore: { address, token: 'consul-token' } } }), async (file) => {
      const { config } = await loadGatewayConfig(file, { env: {} });
      assert.equal(config.secret, 'from-consul');
      assert.equal(consul.requests.length, 1);
      assert.equal(consul.requests[0]!.path, '/v1/kv/gateway/secret');
      assert.equal(consul.requests[0]!.headers['x-consul-token'], 'consul-token');
    });
  } finally {
    await consul.stop();
  }
});

test('a store that is down: the field is empty, one log line without the token, and loading goes on', async () => {
  const closed = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
  const lines: string[] = [];
  const conf = { secret: 'kvstore://gateway/secret', node_secret: 'plain', kv: { kvstore: { address: `127.0.0.1:${closed}`, token: 'very-secret-token' } } };
  await withConf(JSON.stringify(conf), async (file) => {
    const { config } = await loadGatewayConfig(file, { env: {}, log: recordingLogger(lines) });
    assert.equal(config.secret, '');
    assert.equal(config.node_secret, 'plain');
  });
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0]!, /^error external reference not resolved/);
  assert.ok(!lines[0]!.includes('very-secret-token'));
});
