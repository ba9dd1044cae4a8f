import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '@svc/engine';
import { NO_REFERENCES, type References } from '../refs/references.js';
import { parseApiDefinition } from './parse-api-definition.js';
import { classic, oas } from './test-fixtures.js';

async function rejects(def: unknown, message: string | RegExp, file = 'apis/petstore.json'): Promise<void> {
  await assert.rejects(parseApiDefinition(def, NO_REFERENCES, file), (err: unknown) => {
    assert.ok(err instanceof ConfigError, `a ConfigError, got ${String(err)}`);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

test('a classic definition: every field the gateway reads, normalised', async () => {
  const def = classic();
  const spec = await parseApiDefinition(def, NO_REFERENCES, 'apis/petstore.json');
  assert.deepEqual(spec, {
    id: 'petstore',
    name: 'Pet Store',
    orgId: 'org1',
    active: true,
    format: 'classic',
    file: 'apis/petstore.json',
    definition: def,
    listenPath: '/pets/',
    stripListenPath: true,
    targetUrl: 'http://127.0.0.1:9000/v1',
    preserveHostHeader: false,
    keyless: false,
    standardAuth: false,
    jwt: {
      signingMethod: 'hmac',
      source: 'c2VjcmV0',
      identityBaseField: 'sub',
      policyFieldName: 'policy',
      defaultPolicies: ['default'],
      scopeClaimName: 'realm.scopes',
      scopeToPolicy: { read: 'p-read' },
      issuedAtSkew: 0,
      expiresAtSkew: 5,
      notBeforeSkew: 0,
    },
    // JWT reads auth_configs.jwt; query and cookie without a name would take the header's.
    credential: { header: 'X-Token', query: 'X-Token', cookie: 'tok' },
    stripAuthData: true,
    globalRateLimit: { rate: 100, per: 60 },
    disableRateLimit: false,
    enableContextVars: false,
    endpointRateLimits: [{ path: '/status/(.*)', method: 'GET', rate: 2, per: 1 }],
    urlRewrites: [
      {
        path: '/old/(.*)',
        method: 'GET',
        matchPattern: '/old/(\\w+)',
        rewriteTo: '/new/$1',
        triggers: [
          { on: 'all', rules: { header: [{ key: 'X_Mode', matchRx: '^v(\\d)$', reverse: false }] }, rewriteTo: '/v$svc_context.trigger-0-X-Mode-0-0/$1' },
        ],
      },
    ],
    splitToken: [{ path: '/token', method: 'POST', tokenUrl: 'http://127.0.0.1:9001/token' }],
    ipAllow: [],
    ipBlock: [],
    endpointLists: [],
    endpointSizeLimits: [],
    globalSizeLimit: 0,
  });
});

test("classic defaults are Tyk's: sub, pol, scope, Authorization; no auth flag = the auth token check", async () => {
  const spec = await parseApiDefinition({ api_id: 'a', use_jwt: true, proxy: { listen_path: 'a', target_url: 'http://u' } }, NO_REFERENCES);
  assert.equal(spec.listenPath, '/a');
  assert.equal(spec.active, true);
  assert.deepEqual([spec.jwt?.identityBaseField, spec.jwt?.policyFieldName, spec.jwt?.scopeClaimName, spec.jwt?.signingMethod], ['sub', 'pol', 'scope', '']);
  assert.deepEqual(spec.credential, { header: 'Authorization', query: '', cookie: '' });
  const keyed = await parseApiDefinition(
    { api_id: 'b', auth: { auth_header_name: 'X-Key', disable_header: true, use_param: true }, proxy: { listen_path: '/b', target_url: 'http://u' } },
    NO_REFERENCES,
  );
  assert.equal(keyed.standardAuth, true);
  assert.equal(keyed.jwt, undefined);
  assert.deepEqual(keyed.credential, { header: '', query: 'X-Key', cookie: '' }, 'the deprecated `auth` is the fallback of auth_configs.authToken');
  const keyless = await parseApiDefinition({ api_id: 'c', use_keyless: true, proxy: { listen_path: '/c', target_url: 'http://u' } }, NO_REFERENCES);
  assert.deepEqual([keyless.keyless, keyless.standardAuth], [true, false]);
});

test('extended paths are read only with use_extended_paths; a not-versioned API serves its only version, else Default (not default_version)', async () => {
  const def = classic();
  def.version_data.versions.Default.use_extended_paths = false;
  assert.deepEqual((await parseApiDefinition(def, NO_REFERENCES)).endpointRateLimits, []);
  // Tyk v5.14.0's GetSingleOrDefaultVersion, seen on Tyk built here: default_version is not read when not_versioned.
  const two = classic();
  two.version_data.default_version = 'v2';
  two.version_data.versions.v2 = { use_extended_paths: true, extended_paths: { rate_limit: [{ path: '/v2', method: 'POST', rate: 1, per: 2 }] } };
  assert.deepEqual((await parseApiDefinition(two, NO_REFERENCES)).endpointRateLimits, (await parseApiDefinition(classic(), NO_REFERENCES)).endpointRateLimits);
  const only = classic();
  only.version_data.versions = { v2: two.version_data.versions.v2 };
  assert.deepEqual((await parseApiDefinition(only, NO_REFERENCES)).endpointRateLimits, [{ path: '/v2', method: 'POST', rate: 1, per: 2 }]);
});

test('an OAS definition: the x-svc-api-gateway fields, operations by operationId in paths order', async () => {
  const def = oas();
  const spec = await parseApiDefinition(def, NO_REFERENCES, 'apis/orders.json');
  assert.equal(spec.format, 'oas');
  assert.equal(spec.id, 'orders');
  assert.equal(spec.name, 'Orders API');
  assert.equal(spec.listenPath, '/orders/');
  assert.equal(spec.stripListenPath, true);
  assert.equal(spec.targetUrl, 'http://127.0.0.1:9000');
  assert.deepEqual([spec.keyless, spec.standardAuth, spec.stripAuthData], [false, false, true]);
  assert.deepEqual(spec.credential, { header: 'X-Jwt', query: 'jwt', cookie: '' });
  assert.deepEqual(spec.jwt, {
    signingMethod: 'rsa',
    source: 'https://idp.example/jwks',
    identityBaseField: 'email',
    policyFieldName: 'pol',
    defaultPolicies: ['d'],
    scopeClaimName: 'permissions',
    scopeToPolicy: { admin: 'p-admin' },
    issuedAtSkew: 1,
    expiresAtSkew: 3,
    notBeforeSkew: 2,
  });
  assert.deepEqual(spec.globalRateLimit, { rate: 10, per: 60 });
  assert.deepEqual(spec.endpointRateLimits, [
    { path: '/orders/(.*)', method: 'GET', rate: 1, per: 0.5 },
    { path: '/status', method: 'GET', rate: 5, per: 10 },
  ]);
  assert.deepEqual(spec.urlRewrites, [{ path: '/orders/(.*)', method: 'GET', matchPattern: '/orders/(.*)', rewriteTo: '/o/$1', triggers: [] }]);
  assert.deepEqual(spec.splitToken, [{ path: '/orders/(.*)', method: 'POST', tokenUrl: 'http://127.0.0.1:9001/token' }]);
});

test('OAS: authentication off is keyless; the JWT scheme alone (no jwt block) selects JWT with defaults', async () => {
  const off = oas();
  off['x-svc-api-gateway'].server.authentication.enabled = false;
  assert.equal((await parseApiDefinition(off, NO_REFERENCES)).keyless, true);
  const scheme = oas();
  delete scheme['x-svc-api-gateway'].server.authentication.jwt;
  scheme['x-svc-api-gateway'].server.authentication.securitySchemes.bearer.signingMethod = 'hmac';
  const spec = await parseApiDefinition(scheme, NO_REFERENCES);
  assert.equal(spec.jwt?.signingMethod, 'hmac');
  assert.equal(spec.jwt?.identityBaseField, 'sub');
  const apiKey = oas();
  delete apiKey['x-svc-api-gateway'].server.authentication.jwt;
  apiKey.components.securitySchemes = { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } };
  apiKey['x-svc-api-gateway'].server.authentication.securitySchemes = { key: { enabled: true } };
  const keyed = await parseApiDefinition(apiKey, NO_REFERENCES);
  assert.deepEqual([keyed.standardAuth, keyed.jwt, keyed.credential.header], [true, undefined, 'X-Api-Key']);
});

test('errors name the file and the field path, and are ConfigErrors', async () => {
  const bad = classic();
  bad.proxy.listen_path = 42;
  await rejects(bad, 'apis/petstore.json: proxy.listen_path: expected a string, got a number');
  const noProxy = classic();
  delete noProxy.proxy;
  await rejects(noProxy, 'apis/petstore.json: proxy: required (an object with listen_path and target_url)');
  const rl = classic();
  rl.version_data.versions.Default.extended_paths.rate_limit[0].rate = 'many';
  await rejects(rl, 'apis/petstore.json: version_data.versions.Default.extended_paths.rate_limit[0].rate: expected a number, got a string');
  const rx = classic();
  rx.version_data.versions.Default.extended_paths.rate_limit[0].path = '/items/(unclosed';
  await rejects(rx, /^apis\/petstore.json: version_data.versions.Default.extended_paths.rate_limit\[0\].path: not a valid regular expression \(RE2 syntax\)/);
  const badTrigger = classic();
  badTrigger.version_data.versions.Default.extended_paths.url_rewrites[0].triggers[0].options = { header_matchs: {} };
  await rejects(
    badTrigger,
    /^apis\/petstore.json: version_data.versions.Default.extended_paths.url_rewrites\[0\].triggers\[0\].options.header_matchs: unknown trigger option/,
  );
  const badRx = classic();
  badRx.version_data.versions.Default.extended_paths.url_rewrites[0].triggers[0].options.header_matches.X_Mode.match_rx = '(a';
  await rejects(badRx, /X_Mode.match_rx: not a valid regular expression \(RE2 syntax\)/);
  const badOn = classic();
  badOn.version_data.versions.Default.extended_paths.url_rewrites[0].triggers[0].on = 'some';
  await rejects(badOn, /triggers\[0\].on: expected "all" or "any", got "some"/);
  const target = classic();
  target.proxy.target_url = 'not a url';
  await rejects(target, 'apis/petstore.json: proxy.target_url: expected an absolute URL such as http://upstream:8080');
  const per = oas();
  per['x-svc-api-gateway'].middleware.operations.status.rateLimit.per = 10;
  await rejects(per, 'apis/petstore.json: x-svc-api-gateway.middleware.operations.status.rateLimit.per: expected a duration string such as 10s, 1m or 500ms');
  const op = oas();
  op['x-svc-api-gateway'].middleware.operations.nope = { rateLimit: { enabled: true, rate: 1, per: '1s' } };
  await rejects(op, 'apis/petstore.json: x-svc-api-gateway.middleware.operations.nope: no operation with this operationId in paths');
  await rejects([], 'apis/petstore.json: expected a JSON object (an API definition), got an array');
  await assert.rejects(
    parseApiDefinition('x', NO_REFERENCES),
    (err: unknown) => err instanceof ConfigError && err.message === 'expected a JSON object (an API definition), got a string',
  );
});

test('references are resolved in every string field before the definition is read', async () => {
  const seen: string[] = [];
  const refs: References = {
    resolveString: async (v) => v,
    resolveInline: async (t) => t,
    resolveDeep: async <T>(v: T): Promise<T> => {
      const walk = (x: unknown): unknown => {
        if (typeof x === 'string') {
          seen.push(x);
          return x.replace('env://TARGET', 'http://resolved:1').replace('secrets://lp', '/from-secrets/');
        }
        if (Array.isArray(x)) return x.map(walk);
        if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, y]) => [k, walk(y)]));
        return x;
      };
      return walk(v) as T;
    },
  };
  const def = classic();
  def.proxy.target_url = 'env://TARGET';
  def.proxy.listen_path = 'secrets://lp';
  const spec = await parseApiDefinition(def, refs);
  assert.equal(spec.targetUrl, 'http://resolved:1');
  assert.equal(spec.listenPath, '/from-secrets/');
  // The kept definition (what the management API shows) holds the reference, never the value.
  assert.equal((spec.definition as { proxy: { target_url: string } }).proxy.target_url, 'env://TARGET');
  assert.ok(seen.includes('env://TARGET'));
});
