/**
 * The OAS forms of the traffic settings load as Tyk v5.14.0's apidef/oas ExtractTo turns them into
 * classic fields: each OAS definition here serves exactly what its classic twin serves.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '@svc/engine';
import { NO_REFERENCES } from '../refs/references.js';
import { parseApiDefinition } from './parse-api-definition.js';

const TRAFFIC = [
  'loadBalancing',
  'upstreamTls',
  'upstreamCertificates',
  'globalEnforceTimeoutMs',
  'cache',
  'hardTimeouts',
  'circuitBreakers',
  'cachePaths',
] as const;

type Def = Record<string, unknown>;

function oas(upstream: Def, operations: Def = {}, global?: Def): Def {
  return {
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths: {
      '/items/{id}': { get: { operationId: 'item' }, post: { operationId: 'postItem' } },
      '/items/special': { get: { operationId: 'special' } },
    },
    'x-svc-api-gateway': {
      info: { id: 't', name: 't', state: { active: true } },
      upstream: { url: 'http://127.0.0.1:9000', ...upstream },
      server: { listenPath: { value: '/t/', strip: true } },
      middleware: { ...(global ? { global } : {}), operations },
    },
  };
}

function classic(proxy: Def, paths: Def = {}, more: Def = {}, version: Def = {}): Def {
  return {
    api_id: 't',
    name: 't',
    use_keyless: true,
    proxy: { listen_path: '/t/', target_url: 'http://127.0.0.1:9000', strip_listen_path: true, ...proxy },
    version_data: { not_versioned: true, versions: { Default: { name: 'Default', use_extended_paths: true, extended_paths: paths, ...version } } },
    ...more,
  };
}

async function traffic(def: Def): Promise<Record<string, unknown>> {
  const spec = (await parseApiDefinition(def, NO_REFERENCES)) as unknown as Record<string, unknown>;
  return Object.fromEntries(TRAFFIC.map((k) => [k, spec[k]]));
}

async function rejects(def: Def, message: RegExp): Promise<void> {
  await assert.rejects(parseApiDefinition(def, NO_REFERENCES, 'apis/t.json'), (err: unknown) => {
    assert.ok(err instanceof ConfigError, `a ConfigError, got ${String(err)}`);
    assert.match(err.message, message);
    return true;
  });
}

test('upstream: loadBalancing (weights), tlsTransport, mutualTLS and enforceTimeout as their classic fields', async () => {
  const asOas = await traffic(
    oas({
      loadBalancing: {
        enabled: true,
        targets: [
          { url: 'http://a:1', weight: 2 },
          { url: 'b:2', weight: 1 },
          { url: 'http://c:3', weight: 0 },
        ],
      },
      tlsTransport: {
        insecureSkipVerify: true,
        minVersion: '1.2',
        maxVersion: '1.3',
        ciphers: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_AES_128_GCM_SHA256'],
      },
      mutualTLS: { enabled: true, domainToCertificateMapping: [{ domain: '*.example', certificate: '/certs/c.pem' }] },
      enforceTimeout: { enabled: true, duration: '1.5s' },
    }),
  );
  const asClassic = await traffic(
    classic(
      {
        enable_load_balancing: true,
        target_list: ['http://a:1', 'http://a:1', 'b:2'],
        transport: {
          ssl_insecure_skip_verify: true,
          ssl_min_version: 771,
          ssl_max_version: 772,
          ssl_ciphers: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_AES_128_GCM_SHA256'],
        },
      },
      {},
      { upstream_certificates: { '*.example': '/certs/c.pem' } },
      { global_enforce_timeout: '1.5s' },
    ),
  );
  assert.deepEqual(asOas, asClassic);
  assert.deepEqual(asOas.loadBalancing, { targets: ['http://a:1', 'http://a:1', 'http://b:2'] });
  assert.deepEqual(asOas.upstreamTls, { insecureSkipVerify: true, minVersion: 'TLSv1.2', maxVersion: 'TLSv1.3', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' });
  assert.equal(asOas.globalEnforceTimeoutMs, 1500);
  // Off, or no targets: the url (Tyk's LoadBalancing.ExtractTo); mutualTLS and enforceTimeout off: none.
  const off = await traffic(
    oas({
      loadBalancing: { enabled: false, targets: [{ url: 'http://a:1', weight: 1 }] },
      mutualTLS: { enabled: false, domainToCertificateMapping: [{ domain: '*', certificate: '/c.pem' }] },
      enforceTimeout: { enabled: false, duration: '1s' },
    }),
  );
  assert.deepEqual(off, await traffic(classic({})));
  assert.equal((await traffic(oas({ loadBalancing: { enabled: true, targets: [] } }))).loadBalancing, undefined);
});

test('operations: enforceTimeout, circuitBreaker and cache, with middleware.global.cache, as their classic extended paths, in Tyk path order', async () => {
  const asOas = await traffic(
    oas(
      {},
      {
        item: {
          enforceTimeout: { enabled: true, value: 2 },
          circuitBreaker: { enabled: true, threshold: 0.5, sampleSize: 4, coolDownPeriod: 30, halfOpenStateEnabled: false },
          cache: { enabled: true, cacheResponseCodes: [200, 404], timeout: 5 },
        },
        postItem: { enforceTimeout: { enabled: true, value: 9, duration: '250ms' }, cache: { enabled: true, cacheByRegex: '"id":\\d+' } },
        special: {
          enforceTimeout: { enabled: true, value: 1 },
          circuitBreaker: { enabled: false, threshold: 0.1, sampleSize: 1, coolDownPeriod: 1 },
          cache: { enabled: false },
        },
      },
      {
        cache: {
          enabled: true,
          timeout: 60,
          cacheAllSafeRequests: false,
          cacheResponseCodes: [200],
          cacheByHeaders: ['X-Tenant'],
          enableUpstreamCacheControl: true,
          controlTTLHeaderName: 'X-TTL',
        },
      },
    ),
  );
  // Tyk's oasutil.PathLess puts /items/special (no parameter) before /items/{id}.
  const asClassic = await traffic(
    classic(
      {},
      {
        hard_timeouts: [
          { path: '/items/special', method: 'GET', timeout: 1 },
          { path: '/items/{id}', method: 'GET', timeout: 2 },
          { path: '/items/{id}', method: 'POST', timeout: 1, duration: '250ms' },
        ],
        circuit_breakers: [
          { path: '/items/special', method: 'GET', threshold_percent: 0.1, samples: 1, return_to_service_after: 1, disabled: true },
          { path: '/items/{id}', method: 'GET', threshold_percent: 0.5, samples: 4, return_to_service_after: 30, disable_half_open_state: true },
        ],
        advance_cache_config: [
          { path: '/items/special', method: 'GET', disabled: true },
          { path: '/items/{id}', method: 'GET', cache_response_codes: [200, 404], timeout: 5 },
          { path: '/items/{id}', method: 'POST', cache_key_regex: '"id":\\d+' },
        ],
      },
      {
        cache_options: {
          enable_cache: true,
          cache_timeout: 60,
          cache_response_codes: [200],
          cache_by_headers: ['X-Tenant'],
          enable_upstream_cache_control: true,
          cache_control_ttl_header: 'X-TTL',
        },
      },
    ),
  );
  assert.deepEqual(asOas, asClassic);
  assert.deepEqual(
    (asOas.hardTimeouts as Array<{ path: string; ms: number }>).map((h) => [h.path, h.ms]),
    [
      ['/items/special', 1000],
      ['/items/{id}', 2000],
      ['/items/{id}', 250],
    ],
  );
});

test('refused at load: skipUnavailableHosts, forceCommonNameCheck, a cipher or TLS version Go does not name', async () => {
  await rejects(oas({ loadBalancing: { enabled: true, skipUnavailableHosts: true, targets: [{ url: 'http://a', weight: 1 }] } }), /skipUnavailableHosts/);
  await rejects(oas({ tlsTransport: { forceCommonNameCheck: true } }), /forceCommonNameCheck/);
  await rejects(oas({ tlsTransport: { ciphers: ['ECDHE-RSA-AES128-GCM-SHA256'] } }), /ciphers.*"ECDHE-RSA-AES128-GCM-SHA256" is not a Go cipher suite name/);
  await rejects(oas({ tlsTransport: { minVersion: 'TLS1.2' } }), /minVersion.*expected a TLS version/);
  await rejects(classic({ transport: { ssl_ciphers: ['TLS_RSA_WITH_RC4_128_SHA'] } }), /ssl_ciphers.*not available in this Node's OpenSSL/);
  await rejects(oas({ enforceTimeout: { enabled: true, duration: 'soon' } }), /duration.*Go duration/);
});
