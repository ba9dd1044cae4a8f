/**
 * The three lists of field-support.ts, table-driven: each feature svc does not implement is
 * refused at load when a definition turns it on (naming the file, the field and "not supported"),
 * loads when it is off; ignored fields are warned about once; svc.conf's unsupported switches
 * refuse the config and Tyk's `enable_redis_rolling_limiter` is read.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { loadGatewayConfig } from '../conf/load-gateway-config.js';
import { NO_REFERENCES } from '../refs/references.js';
import { fieldSupportTable } from './field-support.js';
import { parseApiDefinition } from './parse-api-definition.js';

type Def = Record<string, unknown>;

const classic = (more: Def = {}, version: Def = {}): Def => ({
  api_id: 'a',
  use_keyless: true,
  proxy: { listen_path: '/a/', target_url: 'http://127.0.0.1:9/' },
  version_data: { not_versioned: true, versions: { Default: { name: 'Default', use_extended_paths: true, ...version } } },
  ...more,
});

const oas = (ext: Def = {}, more: Def = {}): Def => ({
  openapi: '3.0.3',
  info: { title: 'a', version: '1' },
  paths: { '/x': { get: { operationId: 'x' } } },
  'x-svc-api-gateway': {
    info: { id: 'a', name: 'a', state: { active: true } },
    upstream: { url: 'http://127.0.0.1:9/' },
    server: { listenPath: { value: '/a/' } },
    ...ext,
  },
  ...more,
});

const ep = (more: Def = {}) => [{ path: '/x', method: 'GET', ...more }];

/** [field path in the error, a definition turning it on, the same with it off]. */
const REFUSED: Array<[string, Def, Def]> = [
  [
    'version_data.versions.Default.paths',
    classic({}, { paths: { ignored: [], white_list: ['/x'], black_list: [] } }),
    classic({}, { paths: { ignored: [], white_list: [], black_list: [] } }),
  ],
  // Versions as separate APIs (a base API naming its child APIs) are served, but not mixed with versions in version_data.
  [
    'definition.enabled',
    {
      ...classic({ definition: { enabled: true, location: 'header', key: 'v', versions: { v2: 'child-api' } } }),
      version_data: { not_versioned: false, versions: { v1: { name: 'v1' } } },
    },
    classic({ definition: { enabled: true, location: 'header', key: 'v', versions: { v2: 'child-api' } } }),
  ],
  ['external_oauth', classic({ external_oauth: { enabled: true } }), classic({ external_oauth: {} })],
  [
    'custom_middleware',
    classic({ custom_middleware: { pre: [{ name: 'x' }] } }),
    classic({ custom_middleware: { pre: [], post: [], driver: 'otto', auth_check: { name: '' } } }),
  ],
  ['version_data.versions.Default.extended_paths.virtual', classic({}, { extended_paths: { virtual: ep({ response_function_name: 'f' }) } }), classic()],
  [
    'x-svc-api-gateway.server.customDomain.certificates',
    oas({ server: { listenPath: { value: '/a/' }, customDomain: { enabled: true, name: 'api.example.com', certificates: ['c'] } } }),
    oas({ server: { listenPath: { value: '/a/' }, customDomain: { enabled: true, name: 'api.example.com' } } }),
  ],
  [
    'x-svc-api-gateway.server.authentication.securitySchemes',
    oas(
      { server: { listenPath: { value: '/a/' }, authentication: { enabled: true, securitySchemes: { basic: { enabled: true } } } } },
      { components: { securitySchemes: { basic: { type: 'http', scheme: 'basic' } } } },
    ),
    oas(
      { server: { listenPath: { value: '/a/' }, authentication: { enabled: true, securitySchemes: { key: { enabled: true } } } } },
      { components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } } } },
    ),
  ],
  [
    'x-svc-api-gateway.server.authentication.securitySchemes.jwt.allowedIssuers',
    oas(
      {
        server: {
          listenPath: { value: '/a/' },
          authentication: { enabled: true, securitySchemes: { jwt: { enabled: true, source: 'eA==', signingMethod: 'hmac', allowedIssuers: ['me'] } } },
        },
      },
      { components: { securitySchemes: { jwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } } },
    ),
    oas(
      {
        server: {
          listenPath: { value: '/a/' },
          authentication: { enabled: true, securitySchemes: { jwt: { enabled: true, source: 'eA==', signingMethod: 'hmac', allowedIssuers: [] } } },
        },
      },
      { components: { securitySchemes: { jwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } } },
    ),
  ],
];

for (const [field, on, off] of REFUSED) {
  test(`${field}: turned on, the definition is refused at load (file, field, not supported); off, it loads`, async () => {
    await assert.rejects(
      parseApiDefinition(on, NO_REFERENCES, 'apps/a.json'),
      (err: Error) => err.message.startsWith(`apps/a.json: ${field}: not supported: `) && /remove the field or turn it off/.test(err.message),
    );
    const api = await parseApiDefinition(off, NO_REFERENCES, 'apps/a.json');
    assert.equal(api.id, 'a');
  });
}

test('ignored fields (analytics, dashboard-only) load with a warning once per field; unknown fields too', async () => {
  const warnings: string[] = [];
  const def = classic({ do_not_track: true, slug: 'a', tags: ['x'], not_tyk: 1 });
  await parseApiDefinition(def, NO_REFERENCES, 'apps/a.json', (w) => warnings.push(w));
  await parseApiDefinition({ ...def, api_id: 'b' }, NO_REFERENCES, 'apps/b.json', (w) => warnings.push(w));
  assert.deepEqual(warnings, [
    'apps/a.json: do_not_track: ignored (analytics: not implemented by svc)',
    'apps/a.json: slug: ignored (the dashboard slug: not implemented by svc)',
    'apps/a.json: tags: ignored (segment tags: not implemented by svc)',
    "apps/a.json: not_tyk: not a field of Tyk's API definition (ignored)",
  ]);
});

test("svc.conf: an unsupported switch refuses the config; Tyk's enable_redis_rolling_limiter is the rolling limiter", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-conf-support-'));
  try {
    const file = join(dir, 'svc.conf');
    writeFileSync(file, JSON.stringify({ control_api_hostname: 'admin.example' }));
    await assert.rejects(
      loadGatewayConfig(file, { env: {} }),
      (err: Error) =>
        err.message ===
        `${file}: control_api_hostname: not supported: a hostname the control API answers on; svc does not implement it: remove the field or turn it off`,
    );
    writeFileSync(file, JSON.stringify({ storage: { host: '127.0.0.1', use_ssl: true } }));
    await assert.rejects(loadGatewayConfig(file, { env: {} }), (err: Error) => err.message.startsWith(`${file}: storage.use_ssl: not supported: TLS to Redis`));
    writeFileSync(file, JSON.stringify({ enable_custom_domains: false, enable_redis_rolling_limiter: true }));
    const { config, warnings } = await loadGatewayConfig(file, { env: {} });
    assert.equal(config.enable_shared_store_rolling_limiter, true);
    assert.deepEqual(warnings, []);
    assert.equal('enable_redis_rolling_limiter' in config, false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('IP lists, endpoint lists and size limits load and are read as Tyk reads them (issue 25)', async () => {
  const parse = (def: Def) => parseApiDefinition(def, NO_REFERENCES, 'apps/a.json');
  // Tyk 5.14 enables a non-empty list unless ip_access_control_disabled is true (a classic file is not migrated).
  assert.deepEqual((await parse(classic({ enable_ip_whitelisting: false, allowed_ips: ['10.9.9.9'] }))).ipAllow, ['10.9.9.9']);
  assert.deepEqual((await parse(classic({ allowed_ips: ['10.9.9.9'], ip_access_control_disabled: true }))).ipAllow, []);
  assert.deepEqual((await parse(classic({ allowed_ips: ['1.1.1.1'], ip_access_control_disabled: true, enable_ip_whitelisting: true }))).ipAllow, ['1.1.1.1']);
  const lists = await parse(
    classic(
      {},
      {
        ignore_endpoint_case: true,
        extended_paths: { internal: ep(), white_list: ep(), black_list: ep({ disabled: true }), ignored: ep({ method: '' }) },
      },
    ),
  );
  assert.deepEqual(
    lists.endpointLists?.map((e) => [e.kind, e.method, e.ignoreCase]),
    [
      ['ignored', '', true],
      ['white', 'GET', true],
      ['internal', 'GET', false],
    ],
  );
  // The size middleware is on (a size_limits entry, even disabled): the global limit applies, its switch or not.
  const sized = await parse(
    classic({}, { global_size_limit: 10, global_size_limit_disabled: true, extended_paths: { size_limits: ep({ size_limit: 1, disabled: true }) } }),
  );
  assert.equal(sized.globalSizeLimit, 10);
  assert.deepEqual(sized.endpointSizeLimits, []);
  assert.equal((await parse(classic({}, { global_size_limit: 10, global_size_limit_disabled: true }))).globalSizeLimit, 0);
  const oasSpec = await parse(
    oas({
      server: { listenPath: { value: '/a/' }, ipAccessControl: { enabled: true, allow: ['10.0.0.0/8'], block: ['10.1.1.1'] } },
      middleware: {
        global: { requestSizeLimit: { enabled: true, value: 9 } },
        operations: { x: { block: { enabled: true }, requestSizeLimit: { enabled: true, value: 3 } } },
      },
    }),
  );
  assert.deepEqual([oasSpec.ipAllow, oasSpec.ipBlock, oasSpec.globalSizeLimit], [['10.0.0.0/8'], ['10.1.1.1'], 9]);
  assert.deepEqual(oasSpec.endpointLists, [{ kind: 'black', path: '/x', method: 'GET', ignoreCase: false }]);
  assert.deepEqual(oasSpec.endpointSizeLimits, [{ path: '/x', method: 'GET', limit: 3 }]);
});

test("the gateway guide's field table is the lists' (scripts/readme-field-table.mjs writes it)", () => {
  const guide = readFileSync(fileURLToPath(new URL('../../../docs/guide/gateway.md', import.meta.url)), 'utf8');
  assert.ok(guide.includes(`\n${fieldSupportTable()}\n`), 'docs/guide/gateway.md is out of date: run npm run build && node scripts/readme-field-table.mjs');
});
