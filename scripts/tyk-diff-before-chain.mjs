#!/usr/bin/env node
// Issue 25, side by side: Tyk Gateway v5.14.0 built from source and the svc gateway load the same
// definitions (IP lists, endpoint lists, size limits, versions, mock replies, header and method
// transforms, CORS, basic auth, validate_json, OAS validateRequest (body and parameters); classic files, and OAS ones, which Tyk takes through its management
// API) in front of one upstream that records what reaches it, get the same requests (a basic auth
// user is created on each through its management API first), and every answer is compared: status,
// body, the answer's CORS / expiry / mock / x-resp / x-up headers, and what the upstream got (method,
// URL, the x-* headers the rows inject).
//   node scripts/tyk-diff-before-chain.mjs [--xff1 | --xff3]   (after npm run build; exit 1 on a difference)
// TYK_BIN (/tmp/peers/bin/tyk), TYK_TEMPLATES (/tmp/peers/tyk-templates) and TYK_REDIS_DB (14, on
// 127.0.0.1:6379: Tyk needs Redis) say where Tyk and its Redis are. --xff1 / --xff3 set
// http_server_options.xff_depth in both configs.
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import * as http from 'node:http';
import { join } from 'node:path';
import { freePort } from '@svc/engine/testing';
import { TYK_BIN, addTykOasApis, gatewayFolder, startGateway, tykConf } from './tyk-peer.mjs';
const ROOT = mkdtempSync(join(tmpdir(), 'svc-tyk-diff-'));
const REPO = fileURLToPath(new URL('..', import.meta.url));
const TYK_REDIS_DB = Number(process.env.TYK_REDIS_DB || 14);
const seen = [];
/** Request headers the upstream reports back (x-up-* and those a case names), for cases that compare them. */
const up = http.createServer((req, res) => {
  const body = [];
  req.on('data', (c) => body.push(c));
  req.on('end', () => {
    const shown = Object.entries(req.headers)
      .filter(([k]) => /^(x-ver|x-api-version|x-add|x-remove|x-keep|x-ctx|x-meta|x-secret|x-forwarded-proto)/.test(k))
      .map(([k, v]) => `${k}=${v}`)
      .sort()
      .join(' ');
    const got = Buffer.concat(body).toString();
    seen.push(`${req.method} ${req.url}${shown ? ` [${shown}]` : ''}${got ? ` body=${got}` : ''}`);
    res.setHeader('x-up', '1');
    res.setHeader('x-up2', '2');
    // Paths with "json" answer JSON (for the response body transforms).
    if (req.url.includes('json')) {
      res.setHeader('content-type', 'application/json');
      return res.end('{"a":"x<y","list":[1,2.5,"s"],"n":null,"big":1000000,"o":{"k":"v"}}');
    }
    res.end('up');
  });
});
await new Promise((r) => up.listen(0, '127.0.0.1', r));
const target = `http://127.0.0.1:${up.address().port}`;
const classic = (id, more = {}, paths = {}, version = {}) => ({
  api_id: id,
  name: id,
  org_id: 'o',
  active: true,
  use_keyless: true,
  proxy: { listen_path: `/${id}/`, target_url: target, strip_listen_path: true },
  version_data: { not_versioned: true, versions: { Default: { name: 'Default', use_extended_paths: true, extended_paths: paths, ...version } } },
  ...more,
});
/** A versioned classic definition: `definition` says where the version is, `versions` each version's fields. */
const versioned = (id, definition, versions, more = {}, data = {}) => ({
  api_id: id,
  name: id,
  org_id: 'o',
  active: true,
  use_keyless: true,
  proxy: { listen_path: `/${id}/`, target_url: target, strip_listen_path: true },
  definition,
  version_data: {
    not_versioned: false,
    versions: Object.fromEntries(Object.entries(versions).map(([k, v]) => [k, { name: k, use_extended_paths: true, extended_paths: {}, ...v }])),
    ...data,
  },
  ...more,
});
/** A path parameter. */
const P = (name) => ({ name, in: 'path', required: true, schema: { type: 'string' } });
const R = { responses: { 200: { description: 'ok' } } };
const oas = (ext, id, paths = {}, ops = {}) => ({
  openapi: '3.0.3',
  info: { title: id, version: '1' },
  paths: Object.fromEntries(
    Object.entries(paths).map(([p, item]) => [p, Object.fromEntries(Object.entries(item).map(([m, op]) => [m, m === 'parameters' ? op : { ...op, ...R }]))]),
  ),
  components: {
    securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'Authorization' } },
    schemas: { Pet: { type: 'object', required: ['id'], properties: { id: { type: 'integer' }, kind: { type: 'string', enum: ['cat', 'dog'] } } } },
  },
  [ext]: {
    info: { id, name: id, state: { active: true } },
    upstream: { url: target },
    server: { listenPath: { value: `/${id}/`, strip: true }, ...ops.server },
    middleware: ops.middleware,
  },
});
const SCHEMA = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 2, maxLength: 5 },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    kind: { enum: ['a', 'b'] },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
    price: { type: 'number', maximum: 1000000 },
  },
};
/** A Go template as a classic blob (base64), its context and metadata fields named for the gateway (`_tyk_*` / `_svc_*`). */
const blob = (ext, text) => {
  const p = ext.includes('svc') ? 'svc' : 'tyk';
  return Buffer.from(text.replaceAll('_P_', `_${p}_`).replaceAll('$P_', `$${p}_`)).toString('base64');
};
const REQUEST_TEMPLATE =
  '{"user": "{{.name}}", "n": {{.n}}, "tags": [{{range $i, $t := .tags}}{{if $i}},{{end}}"{{$t}}"{{end}}], "path": "{{._P_context.path}}", ' +
  '"arr": "{{.array}}", "meta": "{{._P_meta.who}}", "lit": "$P_context.path", "h": "$P_context.headers_X_Keep", {{- /* c */ -}} "m": "{{.m}}", "up": "{{upper (default "none" .name)}}"}';
const RESPONSE_TEMPLATE =
  '{{.a}}|{{len .list}}|{{.n}}|{{.missing}}|{{jsonMarshal .list}}|{{.big}}|{{range $k, $v := .o}}{{$k}}={{$v}}{{end}}|{{printf "%v-%d" .big (len .a)}}';
const transformEntry = (ext, path, method, text, more = {}) => ({
  path,
  method,
  template_data: { input_type: 'json', template_mode: 'blob', template_source: blob(ext, text), enable_session: false, ...more },
});
const defs = (ext) => ({
  dom1: { ...classic('dom1', { domain: 'a.example' }), proxy: { listen_path: '/d/', target_url: `${target}/dom1`, strip_listen_path: true } },
  dom2: { ...classic('dom2', { domain: '{sub}.b.example' }), proxy: { listen_path: '/d/', target_url: `${target}/dom2`, strip_listen_path: true } },
  dom3: { ...classic('dom3'), proxy: { listen_path: '/d/', target_url: `${target}/dom3`, strip_listen_path: true } },
  dom4: {
    ...classic('dom4', { domain: 'off.example', domain_disabled: true }),
    proxy: { listen_path: '/dd/', target_url: `${target}/dom4`, strip_listen_path: true },
  },
  dom5: { ...classic('dom5', { domain: 'p.example:8080' }), proxy: { listen_path: '/d/', target_url: `${target}/dom5`, strip_listen_path: true } },
  dom6: { ...classic('dom6', { domain: '{n:[0-9]+}.c.example' }), proxy: { listen_path: '/d/', target_url: `${target}/dom6`, strip_listen_path: true } },
  oasdom: (() => {
    const d = oas(ext, 'oasdom', {}, { server: { customDomain: { enabled: true, name: 'o.example' } } });
    d[ext].upstream.url = `${target}/oasdom`;
    d[ext].server.listenPath = { value: '/d/', strip: true };
    return d;
  })(),
  hm: classic('hm', {
    use_keyless: false,
    enable_signature_checking: true,
    hmac_allowed_algorithms: ['hmac-sha1', 'hmac-sha256'],
    hmac_allowed_clock_skew: 5000,
  }),
  tf: classic(
    'tf',
    { enable_context_vars: true },
    {
      transform: [
        transformEntry(ext, '/t', 'POST', REQUEST_TEMPLATE),
        transformEntry(ext, '/bad', 'POST', 'x{{.a.b}}'),
        { ...transformEntry(ext, '/off', 'POST', 'off'), disabled: true },
      ],
      transform_response: [transformEntry(ext, '/jsonr', 'GET', RESPONSE_TEMPLATE), transformEntry(ext, '/jsonbad', 'GET', 'x{{.a.b}}y')],
    },
  ),
  tfnoctx: classic('tfnoctx', {}, { transform: [transformEntry(ext, '/t', 'POST', '[{{._P_context.path}}]')] }),
  oastf: oas(
    ext,
    'oastf',
    { '/t': { post: { operationId: 't' } }, '/jsonr': { get: { operationId: 'r' } } },
    {
      middleware: {
        operations: {
          t: { transformRequestBody: { enabled: true, format: 'json', body: blob(ext, '{"got": "{{.name}}"}') } },
          r: { transformResponseBody: { enabled: true, format: 'json', body: blob(ext, '{{.a}}/{{len .list}}') } },
        },
      },
    },
  ),
  allow: classic('allow', { enable_ip_whitelisting: true, allowed_ips: ['10.9.9.9', '192.168.0.0/16'] }),
  quirk: classic('quirk', { enable_ip_whitelisting: false, allowed_ips: ['10.9.9.9'] }),
  off: classic('off', { enable_ip_whitelisting: false, allowed_ips: ['10.9.9.9'], ip_access_control_disabled: true }),
  deny: classic('deny', { enable_ip_blacklisting: true, blacklisted_ips: ['127.0.0.1', '10.1.0.0/16'] }),
  mapped: classic('mapped', { enable_ip_blacklisting: true, blacklisted_ips: ['::ffff:127.0.0.0/104'] }),
  keyedip: classic('keyedip', { use_keyless: false, auth: { auth_header_name: 'Authorization' }, enable_ip_whitelisting: true, allowed_ips: ['10.9.9.9'] }),
  black: classic(
    'black',
    {},
    {
      black_list: [
        { path: '/admin', method: 'GET' },
        { path: '/Secret', method: '', ignore_case: true },
      ],
    },
  ),
  white: classic(
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
  keyed: classic(
    'keyed',
    { use_keyless: false, auth: { auth_header_name: 'Authorization' } },
    {
      ignored: [{ path: '/health', method: 'GET' }],
      black_list: [
        { path: '/health', method: 'GET' },
        { path: '/gone', method: '' },
      ],
    },
  ),
  inner: classic('inner', {}, { internal: [{ path: '/secret', method: 'GET' }] }),
  front: classic(
    'front',
    {},
    { url_rewrites: [{ path: '/to-inner', method: 'GET', match_pattern: '/to-inner', rewrite_to: 'tyk://inner/secret', triggers: [] }] },
  ),
  sized: classic('sized', {}, { size_limits: [{ path: '/small', method: 'POST', size_limit: 3 }] }, { global_size_limit: 10 }),
  sizedq: classic(
    'sizedq',
    {},
    { size_limits: [{ path: '/small', method: 'POST', size_limit: 3, disabled: true }] },
    { global_size_limit: 10, global_size_limit_disabled: true },
  ),
  winner: classic('winner', {}, { white_list: [{ path: '/pub', method: 'GET' }], internal: [{ path: '/priv', method: 'GET' }] }),
  front2: classic(
    'front2',
    {},
    {
      url_rewrites: [
        { path: '/to-priv', method: 'GET', match_pattern: '/to-priv', rewrite_to: 'tyk://winner/priv', triggers: [] },
        { path: '/to-pub', method: 'GET', match_pattern: '/to-pub', rewrite_to: 'tyk://winner/pub', triggers: [] },
      ],
    },
  ),
  winner2: classic(
    'winner2',
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
  front3: classic(
    'front3',
    {},
    {
      url_rewrites: [
        { path: '/to-priv', method: 'GET', match_pattern: '/to-priv', rewrite_to: 'tyk://winner2/priv', triggers: [] },
        { path: '/to-quiet', method: 'GET', match_pattern: '/to-quiet', rewrite_to: 'tyk://winner2/quiet', triggers: [] },
      ],
    },
  ),
  lp: classic('lp', {}, { black_list: [{ path: '/lp/x', method: '' }] }),
  ign: classic('ign', { use_keyless: false, auth: { auth_header_name: 'Authorization' } }, { ignored: [{ path: '/free', method: '' }] }),
  oasign: oas(
    ext,
    'oasign',
    { '/free': { get: { operationId: 'free' } }, '/paid': { get: { operationId: 'paid' } } },
    {
      server: { authentication: { enabled: true, securitySchemes: { key: { enabled: true } } } },
      middleware: { operations: { free: { ignoreAuthentication: { enabled: true } } } },
    },
  ),
  oasip: oas(ext, 'oasip', {}, { server: { ipAccessControl: { enabled: true, allow: ['127.0.0.1'], block: ['127.0.0.1'] } } }),
  oasops: oas(
    ext,
    'oasops',
    {
      '/one': { get: { operationId: 'a' }, post: { operationId: 'aPost' } },
      '/two/{id}': { get: { operationId: 'b', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }] } },
    },
    { middleware: { operations: { a: { allow: { enabled: true } }, b: { block: { enabled: true } }, aPost: { internal: { enabled: true } } } } },
  ),
  verh: versioned(
    'verh',
    { location: 'header', key: 'x-api-version', strip_versioning_data: true },
    {
      v1: { expires: '2031-03-04 05:06', extended_paths: { black_list: [{ path: '/old', method: 'GET' }] } },
      v2: { override_target: `${target}/v2base` },
      gone: { expires: '2001-01-01 00:00' },
      bad: { expires: 'soon' },
      misnamed: { name: 'other' },
    },
  ),
  verd: versioned('verd', { location: 'header', key: 'x-api-version' }, { v1: {}, v2: {} }, {}, { default_version: 'v1' }),
  verf: versioned('verf', { location: 'header', key: 'x-api-version', fallback_to_default: true }, { v1: {}, v2: {} }, {}, { default_version: 'v1' }),
  verq: versioned('verq', { location: 'url-param', key: 'version', strip_versioning_data: true }, { v1: {} }),
  verq2: versioned('verq2', { location: 'url-param', key: 'version' }, { v1: {} }),
  veru: versioned('veru', { location: 'url', strip_path: true }, { v1: {}, v2: { extended_paths: { white_list: [{ path: '/only', method: 'GET' }] } } }),
  veru2: versioned('veru2', { location: 'url' }, { v1: {} }),
  verp: versioned('verp', { location: 'url', strip_versioning_data: true, url_versioning_pattern: '^v\\d+$' }, { v1: {}, latest: {} }),
  vexp: classic('vexp', { expiration: '2035-01-02 03:04' }, {}, { expires: '2031-03-04 05:06' }),
  vexpd: classic('vexpd', { expiration: '2001-01-02 03:04' }),
  vexpv: classic('vexpv', {}, {}, { expires: '2001-01-02 03:04' }),
  vtwo: {
    ...classic('vtwo'),
    version_data: {
      not_versioned: true,
      default_version: 'b',
      versions: { a: { name: 'a' }, b: { name: 'b', use_extended_paths: true, extended_paths: { black_list: [{ path: '/x', method: 'GET' }] } } },
    },
  },
  mk: classic(
    'mk',
    {},
    {
      mock_response: [
        { path: '/json', method: 'GET', code: 202, body: '{"a":1}', headers: { 'x-mock': 'yes' } },
        { path: '/html', method: 'GET', code: 200, body: '<html><body>x</body></html>' },
        { path: '/empty', method: 'GET', code: 204, body: '' },
        { path: '/off', method: 'GET', code: 200, body: 'off', disabled: true },
      ],
      black_list: [{ path: '/json', method: '' }],
    },
  ),
  mkw: classic(
    'mkw',
    { use_keyless: false, auth: { auth_header_name: 'Authorization' } },
    {
      white_list: [
        { path: '/acts', method_actions: { GET: { action: 'reply', code: 201, data: 'hi', headers: { 'x-mock': 'act' } } } },
        { path: '/free', method: 'GET' },
      ],
      mock_response: [{ path: '/mocked', method: 'GET', code: 200, body: 'mocked' }],
    },
  ),
  hdr: classic(
    'hdr',
    { enable_context_vars: true },
    {
      transform_headers: [{ path: '/e', method: 'GET', delete_headers: ['x-remove-e'], add_headers: { 'x-add-e': 'ep $tyk_context.headers_X_Keep' } }],
      transform_response_headers: [{ path: '/e', method: 'GET', delete_headers: ['x-up'], add_headers: { 'x-resp-e': 'r $tyk_context.path' } }],
      method_transforms: [
        { path: '/m', method: 'GET', to_method: 'post' },
        { path: '/bad', method: 'GET', to_method: 'COPY' },
      ],
    },
    {
      global_headers: {
        'x-add-g': 'g',
        'X-Ctx-Path': '$tyk_context.path',
        'x-ctx-parts': '$tyk_context.path_parts',
        'x-ctx-q': '$tyk_context.request_data',
        'x-ctx-qa': '$tyk_context.request_data_a',
        'x-ctx-none': '[$tyk_context.nothing]',
        'x-ctx-host': '$tyk_context.headers_Host',
        'x-ctx-keep': '$tyk_context.headers_X_Keep',
        'x-secret': '$secret_conf.mine',
        'x-meta': '[$tyk_meta.who]',
      },
      global_headers_remove: ['x-remove-g'],
      global_response_headers: { 'x-resp-g': 'rg' },
      global_response_headers_remove: ['x-up2'],
    },
  ),
  hdrnoctx: classic(
    'hdrnoctx',
    {},
    {},
    {
      global_headers: { 'x-ctx-path': '[$tyk_context.path]', 'x-add-g': 'g' },
      global_headers_disabled: false,
      global_response_headers: { 'x-resp-g': 'rg' },
      global_response_headers_disabled: true,
    },
  ),
  cors: classic(
    'cors',
    {
      CORS: {
        enable: true,
        allowed_origins: ['https://a.example', 'https://*.b.example'],
        allowed_methods: ['GET', 'PUT'],
        allowed_headers: ['X-One', 'content-type'],
        exposed_headers: ['x-exp-one', 'X-Exp-Two'],
        allow_credentials: true,
        max_age: 60,
      },
      enable_ip_whitelisting: true,
      allowed_ips: ['127.0.0.1'],
    },
    { black_list: [{ path: '/blocked', method: '' }] },
  ),
  corsall: classic('corsall', { CORS: { enable: true, max_age: -5 } }),
  corspass: classic('corspass', { CORS: { enable: true, options_passthrough: true } }, { black_list: [{ path: '/blocked', method: '' }] }),
  corskey: classic('corskey', { use_keyless: false, auth: { auth_header_name: 'Authorization' }, CORS: { enable: true } }),
  corspk: classic('corspk', { use_keyless: false, auth: { auth_header_name: 'Authorization' }, CORS: { enable: true, options_passthrough: true } }),
  inact: classic('inact', { active: false }),
  basic: classic('basic', { use_keyless: false, use_basic_auth: true }),
  vamb: { ...classic('vamb'), version_data: { not_versioned: true, versions: { Default: { name: 'Default' }, default: { name: 'default' } } } },
  oashdr: oas(
    ext,
    'oashdr',
    { '/e': { get: { operationId: 'e' } }, '/m': { get: { operationId: 'm' } } },
    {
      middleware: {
        global: {
          transformRequestHeaders: { enabled: true, add: [{ name: 'x-add-g', value: 'g' }], remove: ['x-remove-g'] },
          transformResponseHeaders: { enabled: true, add: [{ name: 'x-resp-g', value: 'rg' }], remove: ['x-up2'] },
        },
        operations: {
          e: {
            transformRequestHeaders: { enabled: true, add: [{ name: 'x-add-e', value: 'e' }], remove: ['x-remove-e'] },
            transformResponseHeaders: { enabled: true, add: [{ name: 'x-resp-e', value: 're' }], remove: ['x-up'] },
          },
          m: { transformRequestMethod: { enabled: true, toMethod: 'PUT' } },
        },
      },
    },
  ),
  vj: classic(
    'vj',
    {},
    {
      validate_json: [
        { path: '/x', method: 'POST', schema: SCHEMA },
        { path: '/c400', method: 'POST', schema: SCHEMA, error_response_code: 400 },
        { path: '/off', method: 'POST', schema: SCHEMA, disabled: true },
      ],
    },
  ),
  oasvr: oas(
    ext,
    'oasvr',
    {
      '/x': { post: { operationId: 'x', requestBody: { required: true, content: { 'application/json': { schema: SCHEMA } } } } },
      '/ref': { put: { operationId: 'ref', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } } },
      '/t': {
        post: {
          operationId: 't',
          requestBody: {
            content: {
              'application/json': {
                schema: {
                  title: 'Thing',
                  type: 'object',
                  additionalProperties: false,
                  properties: { a: { type: 'boolean', nullable: true }, b: { type: ['string'] } },
                },
              },
            },
          },
        },
      },
    },
    {
      middleware: {
        operations: {
          x: { validateRequest: { enabled: true } },
          ref: { validateRequest: { enabled: true, errorResponseCode: 400 } },
          t: { validateRequest: { enabled: true } },
        },
      },
    },
  ),
  oasprm: oas(
    ext,
    'oasprm',
    {
      '/p/{id}/{name}': {
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
          { name: 'name', in: 'path', required: true, schema: { type: 'string', maxLength: 3 } },
          { name: 'lim', in: 'query', required: true, schema: { type: 'string' } },
        ],
        get: {
          operationId: 'pget',
          parameters: [
            { name: 'lim', in: 'query', required: false, schema: { type: 'integer', maximum: 10 } },
            { name: 'on', in: 'query', schema: { type: 'boolean' } },
            { name: 'f', in: 'query', schema: { type: 'number', minimum: 0.5 } },
            { name: 'kind', in: 'query', schema: { type: 'string', enum: ['a', 'b'], minLength: 1 } },
            { name: 'X-Num', in: 'header', required: true, schema: { type: 'integer' } },
            { name: 'code', in: 'query', schema: { type: 'string', pattern: '^[a-z]+\\d$' } },
            { name: 'X-Tag', in: 'header', schema: { type: 'string', pattern: '\\u0041' } },
            { name: 'ids', in: 'query', schema: { type: 'array', items: { type: 'integer', maximum: 5 }, maxItems: 2 } },
            { name: 'X-Fs', in: 'header', schema: { type: 'array', items: { type: 'number' } } },
            { name: 'sid', in: 'cookie', schema: { type: 'integer', minimum: 1 } },
          ],
        },
      },
      '/b': {
        post: {
          operationId: 'pbody',
          parameters: [{ name: 'q', in: 'query', required: true, schema: { type: 'string' } }],
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
    { middleware: { operations: { pget: { validateRequest: { enabled: true } }, pbody: { validateRequest: { enabled: true, errorResponseCode: 400 } } } } },
  ),
  mkoas: oas(
    ext,
    'mkoas',
    {
      '/a': { get: { operationId: 'a' } },
      '/b': { get: { operationId: 'b' }, post: { operationId: 'bpost' } },
      '/c': { get: { operationId: 'c' } },
      '/d': { get: { operationId: 'd' } },
    },
    {
      middleware: {
        global: { transformResponseHeaders: { enabled: true, add: [{ name: 'x-resp-g', value: 'rg' }] } },
        operations: {
          a: {
            mockResponse: {
              enabled: true,
              code: 201,
              body: '{"a":1}',
              headers: [
                { name: 'x-mock', value: 'yes' },
                { name: 'content-type', value: 'application/json' },
              ],
            },
          },
          b: { mockResponse: { enabled: true, body: 'hello' } },
          c: {
            mockResponse: {
              enabled: true,
              code: 202,
              body: '<p>x</p>',
              headers: [
                { name: 'x-mock-c', value: '1' },
                { name: 'x-resp-e', value: 'from-mock' },
              ],
            },
            transformResponseHeaders: { enabled: true, add: [{ name: 'x-resp-e', value: 're' }], remove: ['x-mock-c'] },
          },
          d: { mockResponse: { enabled: false, code: 203, body: 'off' } },
        },
      },
    },
  ),
  oasjwt: {
    ...oas(
      ext,
      'oasjwt',
      { '/a': { get: { operationId: 'a' } } },
      {
        server: {
          authentication: {
            enabled: true,
            stripAuthorizationData: true,
            securitySchemes: {
              jwt: {
                enabled: true,
                header: { enabled: true, name: 'Authorization' },
                query: { enabled: true, name: 'jwt' },
                source: Buffer.from('secret-secret-secret').toString('base64'),
                signingMethod: 'hmac',
                identityBaseField: 'sub',
                policyFieldName: 'pol',
                defaultPolicies: ['p1'],
                issuedAtValidationSkew: 2,
                scopes: { claimName: 'scope', scopeToPolicyMapping: [{ scope: 'read', policyId: 'p1' }] },
              },
            },
          },
        },
      },
    ),
    security: [{ jwt: [] }],
    components: { securitySchemes: { jwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
  },
  oaskey: {
    ...oas(
      ext,
      'oaskey',
      {},
      {
        server: {
          authentication: {
            enabled: true,
            securitySchemes: { key: { enabled: true, query: { enabled: true, name: 'k' }, cookie: { enabled: false, name: 'c' } } },
          },
        },
      },
    ),
    security: [{ key: [] }],
  },
  oasmix: oas(
    ext,
    'oasmix',
    {
      '/a': { get: { operationId: 'a' } },
      '/a/{id}': { get: { operationId: 'aid', parameters: [P('id')] }, post: { operationId: 'aidpost', parameters: [P('id')] } },
      '/b/c': { put: { operationId: 'bc' } },
      '/a{x}': { get: { operationId: 'ax', parameters: [P('x')] } },
    },
    {
      server: { listenPath: { value: '/oasmix/', strip: false } },
      middleware: {
        global: {
          cors: { enabled: true, allowedOrigins: ['https://a.example'], allowedMethods: ['GET'], maxAge: 5, allowCredentials: true, exposedHeaders: ['x-e'] },
          contextVariables: { enabled: true },
          ignoreCase: { enabled: true },
          skipRateLimit: true,
          requestSizeLimit: { enabled: false, value: 100 },
        },
        operations: {
          a: { rateLimit: { enabled: true, rate: 5, per: '1m30s' }, block: { enabled: false, ignoreCase: true } },
          aid: {
            urlRewrite: {
              enabled: true,
              pattern: '/a/(.*)',
              rewriteTo: '/z/$1',
              triggers: [
                {
                  condition: 'any',
                  rewriteTo: '/t',
                  rules: [
                    { in: 'header', name: 'X-T', pattern: 'y', negate: false },
                    { in: 'query', name: 'q', pattern: '1', negate: true },
                  ],
                },
              ],
            },
          },
          aidpost: { allow: { enabled: true } },
          bc: { transformRequestMethod: { enabled: true, toMethod: 'POST' }, requestSizeLimit: { enabled: true, value: 7 } },
          ax: { internal: { enabled: false } },
        },
      },
    },
  ),
  oasrate: (() => {
    const d = oas(ext, 'oasrate', {});
    d[ext].upstream = { url: target, rateLimit: { enabled: true, rate: 100, per: '1s' }, preserveHostHeader: { enabled: true } };
    d[ext].info.state.active = false;
    return d;
  })(),
  vbase: {
    ...classic('vbase'),
    definition: {
      enabled: true,
      name: 'v1',
      default: 'v1',
      location: 'header',
      key: 'x-api-version',
      strip_versioning_data: true,
      versions: { v2: 'vchild', v3: 'missing' },
    },
  },
  vchild: {
    ...classic('vchild', { internal: true }, { black_list: [{ path: '/blocked', method: 'GET' }] }),
    proxy: { listen_path: '/vchild/', target_url: `${target}/child`, strip_listen_path: true },
  },
  vbaseu: {
    ...classic('vbaseu'),
    proxy: { listen_path: '/vbaseu/', target_url: target, strip_listen_path: false },
    definition: {
      enabled: true,
      name: 'v1',
      default: 'self',
      location: 'url',
      strip_versioning_data: true,
      fallback_to_default: true,
      versions: { v2: 'vchild', v9: 'nothing' },
    },
  },
  vbasenodef: { ...classic('vbasenodef'), definition: { enabled: true, name: 'v1', location: 'header', key: 'x-api-version', versions: { v2: 'vchild' } } },
  oasvbase: (() => {
    const d = oas(ext, 'oasvbase', {});
    d[ext].info.versioning = {
      enabled: true,
      name: 'v1',
      default: 'v1',
      location: 'url-param',
      key: 'ver',
      versions: [{ name: 'v2', id: 'oasvchild' }],
      stripVersioningData: true,
    };
    return d;
  })(),
  oasvchild: (() => {
    const d = oas(ext, 'oasvchild', {});
    d[ext].info.state.internal = true;
    d[ext].upstream.url = `${target}/oaschild`;
    return d;
  })(),
  oassize: oas(
    ext,
    'oassize',
    { '/a': { post: { operationId: 'a' } } },
    { middleware: { global: { requestSizeLimit: { enabled: true, value: 5 } }, operations: { a: { requestSizeLimit: { enabled: true, value: 2 } } } } },
  ),
});
/**
 * Headers of an HMAC-signed request (Tyk's HTTPSignatureValidationMiddleware), worked out when the
 * request is sent (its Date is now): key `alice`, secret `sekret` unless told.
 */
const sign =
  ({ alg = 'hmac-sha1', hs = ['date'], key = 'alice', secret = 'sekret', extra = {}, date, aux = false, lower = false, fields } = {}) =>
  (method, path) => {
    const h = { ...(date === null ? {} : { date: date ?? new Date().toUTCString() }), ...(aux ? { 'x-aux-date': new Date().toUTCString() } : {}), ...extra };
    const line = (n) =>
      n === '(request-target)'
        ? `(request-target): ${method.toLowerCase()} ${path.split('?')[0]}`
        : n === 'date' && h['x-aux-date']
          ? `x-aux-date: ${h['x-aux-date']}`
          : `${n}: ${h[n] ?? ''}`;
    const algo = { 'hmac-sha256': 'sha256', 'hmac-sha512': 'sha512' }[alg] ?? 'sha1';
    let sig = encodeURIComponent(createHmac(algo, secret).update(hs.map(line).join('\n')).digest('base64'));
    if (lower) sig = sig.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());
    return { ...h, authorization: fields ?? `Signature keyId="${key}",algorithm="${alg}",headers="${hs.join(' ')}",signature="${sig}"` };
  };
const J = { 'content-type': 'application/json' };
const cases = [
  ['GET', '/allow/x'],
  ['GET', '/allow/x', { 'x-real-ip': '10.9.9.9' }],
  ['GET', '/allow/x', { 'x-forwarded-for': '192.168.4.5, 127.0.0.1' }],
  ['GET', '/allow/x', { 'x-real-ip': '10.0.0.1', 'x-forwarded-for': '10.9.9.9' }],
  ['GET', '/allow/x', { 'x-real-ip': 'nonsense', 'x-forwarded-for': '10.9.9.9' }],
  ['GET', '/quirk/x'],
  ['GET', '/off/x'],
  ['GET', '/deny/x'],
  ['GET', '/deny/x', { 'x-forwarded-for': '10.2.2.2, 10.1.2.3' }],
  ['GET', '/mapped/x'],
  ['GET', '/keyedip/x'],
  ['GET', '/black/admin'],
  ['POST', '/black/admin'],
  ['GET', '/black/secret/x'],
  ['GET', '/black/%C5%BFECRET'],
  ['GET', '/black/other'],
  ['GET', '/white/open'],
  ['POST', '/white/open'],
  ['GET', '/white/other'],
  ['GET', '/white/acts'],
  ['PUT', '/white/acts'],
  ['GET', '/white/off'],
  ['GET', '/keyed/health'],
  ['GET', '/keyed/other'],
  ['DELETE', '/keyed/gone'],
  ['GET', '/inner/secret'],
  ['POST', '/inner/secret'],
  ['GET', '/front/to-inner'],
  ['POST', '/sized/x', {}, '12345678901'],
  ['POST', '/sized/x', {}, '1234567890'],
  ['GET', '/sized/x', { 'content-length': '11' }, '12345678901'],
  ['POST', '/sized/small', {}, '1234'],
  ['PUT', '/sized/small', {}, '1234'],
  ['POST', '/sized/x', {}, 'a', true],
  ['POST', '/sizedq/x', {}, '12345678901'],
  ['GET', '/winner/priv'],
  ['GET', '/winner/pub'],
  ['GET', '/front2/to-priv'],
  ['GET', '/front2/to-pub'],
  ['GET', '/front3/to-priv'],
  ['GET', '/front3/to-quiet'],
  ['GET', '/winner2/pub'],
  ['GET', '/winner2/quiet'],
  ['GET', '/lp/x'],
  ['GET', '/lp/y'],
  ['GET', '/ign/free'],
  ['POST', '/ign/free/x'],
  ['GET', '/ign/paid'],
  ['GET', '/oasign/free'],
  ['GET', '/oasign/paid'],
  ['POST', '/sized/x', { 'content-length': '0' }],
  ['HEAD', '/sized/x'],
  ['GET', '/allow/x', { 'x-forwarded-for': ['127.0.0.1', '10.9.9.9'] }],
  ['GET', '/allow/x', { 'x-forwarded-for': '  10.9.9.9  , 1.1.1.1' }],
  ['GET', '/allow/x', { 'x-real-ip': '::ffff:10.9.9.9' }],
  ['GET', '/allow/x', { 'x-real-ip': '10.9.9.9', 'x-real-ip-2': 'x' }],
  ['GET', '/deny/x', { 'x-forwarded-for': '10.2.2.2, 10.1.2.3, 127.0.0.5' }],
  ['GET', '/deny/x', { 'x-forwarded-for': 'garbage' }],
  ['GET', '/oasip/x'],
  ['GET', '/oasops/one'],
  ['POST', '/oasops/one'],
  ['GET', '/oasops/two/1'],
  ['GET', '/oasops/three'],
  ['POST', '/oassize/a', {}, '123'],
  ['POST', '/oassize/b', {}, '123'],
  ['POST', '/oassize/b', {}, '123456'],
  ['GET', '/verh/x'],
  ['GET', '/verh/x', { 'x-api-version': 'v1' }],
  ['GET', '/verh/old', { 'x-api-version': 'v1' }],
  ['GET', '/verh/x', { 'x-api-version': 'v2' }],
  ['GET', '/verh/x', { 'x-api-version': 'v9' }],
  ['GET', '/verh/x', { 'x-api-version': 'gone' }],
  ['GET', '/verh/x', { 'x-api-version': 'bad' }],
  ['GET', '/verh/x', { 'x-api-version': 'misnamed' }],
  ['GET', '/verh/x', { 'x-api-version': ['v2', 'v1'] }],
  ['GET', '/verd/x'],
  ['GET', '/verd/x', { 'x-api-version': 'v2' }],
  ['GET', '/verd/x', { 'x-api-version': 'v3' }],
  ['GET', '/verf/x', { 'x-api-version': 'v3' }],
  ['GET', '/verq/x?z=1&version=v1&a=b+c&a=%21'],
  ['GET', '/verq/x?version=v2'],
  ['GET', '/verq2/x?version=v1&z=1'],
  ['GET', '/veru/v1/x/v1/y'],
  ['GET', '/veru/v1'],
  ['GET', '/veru/v2/only'],
  ['GET', '/veru/v2/other'],
  ['GET', '/veru/v3/x'],
  ['GET', '/veru/'],
  ['GET', '/veru2/v1/x'],
  ['GET', '/verp/v1/x'],
  ['GET', '/verp/latest/x'],
  ['GET', '/vexp/x'],
  ['GET', '/vexpd/x'],
  ['GET', '/vexpv/x'],
  ['GET', '/vtwo/x'],
  ['GET', '/vamb/x'],
  ['GET', '/mk/json'],
  ['POST', '/mk/json'],
  ['GET', '/mk/html'],
  ['GET', '/mk/empty'],
  ['GET', '/mk/off'],
  ['GET', '/mkw/acts'],
  ['POST', '/mkw/acts'],
  ['GET', '/mkw/mocked'],
  ['GET', '/mkw/free'],
  ['GET', '/hdr/x?a=1&b=2&a=3', { host: 'h.example', 'x-remove-g': 'no', 'x-remove-e': 'stays', 'x-keep': 'k' }],
  ['GET', '/hdr/e/f', { host: 'h.example', 'x-remove-g': 'no', 'x-remove-e': 'goes', 'x-keep': 'k' }],
  ['POST', '/hdr/e', { host: 'h.example', 'x-remove-e': 'stays' }],
  ['GET', '/hdr/m', { host: 'h.example' }],
  ['GET', '/hdr/bad', { host: 'h.example' }],
  ['GET', '/hdrnoctx/x'],
  ['GET', '/cors/x'],
  ['GET', '/cors/x', { origin: 'https://a.example' }],
  ['GET', '/cors/x', { origin: 'https://X.B.example' }],
  ['GET', '/cors/x', { origin: 'https://c.example' }],
  ['POST', '/cors/x', { origin: 'https://a.example' }],
  ['OPTIONS', '/cors/x', { origin: 'https://a.example', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type,x-one' }],
  ['OPTIONS', '/cors/x', { origin: 'https://a.example', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'x-one, content-type' }],
  ['OPTIONS', '/cors/x', { origin: 'https://a.example', 'access-control-request-method': 'DELETE' }],
  ['OPTIONS', '/cors/x', { origin: 'https://c.example', 'access-control-request-method': 'GET' }],
  ['OPTIONS', '/cors/x', { 'access-control-request-method': 'GET' }],
  ['OPTIONS', '/cors/x', { origin: 'https://a.example' }],
  ['OPTIONS', '/cors/blocked', { origin: 'https://a.example', 'access-control-request-method': 'GET' }],
  ['GET', '/cors/blocked', { origin: 'https://a.example' }],
  ['GET', '/cors/x', { origin: 'https://a.example', 'x-real-ip': '10.1.1.1' }],
  ['OPTIONS', '/cors/x', { origin: 'https://a.example', 'access-control-request-method': 'GET', 'x-real-ip': '10.1.1.1' }],
  ['GET', '/corsall/x', { origin: 'https://z.example' }],
  ['OPTIONS', '/corsall/x', { origin: 'https://z.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'accept' }],
  ['OPTIONS', '/corspass/x', { origin: 'https://z.example', 'access-control-request-method': 'GET' }],
  ['OPTIONS', '/corspass/blocked', { origin: 'https://z.example', 'access-control-request-method': 'GET' }],
  ['OPTIONS', '/corspass/x', { origin: 'https://z.example' }],
  ['GET', '/corskey/x', { origin: 'https://z.example' }],
  ['OPTIONS', '/corskey/x', { origin: 'https://z.example', 'access-control-request-method': 'GET' }],
  ['OPTIONS', '/corspk/x', { origin: 'https://z.example', 'access-control-request-method': 'GET' }],
  ['GET', '/corspk/x', { origin: 'https://z.example' }],
  ['GET', '/basic/x'],
  ['GET', '/basic/x', { authorization: 'Basic YWxpY2U6cHc=' }],
  ['GET', '/basic/x', { authorization: 'Whatever YWxpY2U6cHc=' }],
  ['GET', '/basic/x', { authorization: 'Basic YWxpY2U6bm9wZQ==' }],
  ['GET', '/basic/x', { authorization: 'Basic Y2Fyb2w6cHc=' }],
  ['GET', '/basic/x', { authorization: 'Basic YWxpY2U=' }],
  ['GET', '/basic/x', { authorization: 'Basic YWxpY2U6cHc6eA==' }],
  ['GET', '/basic/x', { authorization: 'Basic not-base64!' }],
  ['GET', '/basic/x', { authorization: 'Basic a b' }],
  ['GET', '/inact/x'],
  ['GET', '/inact/x', { 'x-forwarded-proto': 'https' }],
  ['GET', '/oashdr/e', { 'x-remove-g': '1', 'x-remove-e': '1' }],
  ['GET', '/oashdr/x', { 'x-remove-g': '1', 'x-remove-e': '1' }],
  ['GET', '/oashdr/m'],
  ['POST', '/vj/x', J, '{"name":"ab"}'],
  ['POST', '/vj/x', J, '{}'],
  ['POST', '/vj/x', J, '{"name":1}'],
  ['POST', '/vj/x', J, '{"name":"a"}'],
  ['POST', '/vj/x', J, '{"name":"abcdefg"}'],
  ['POST', '/vj/x', J, '{"name":"ab","age":-1}'],
  ['POST', '/vj/x', J, '{"name":"ab","age":200}'],
  ['POST', '/vj/x', J, '{"name":"ab","age":1.5}'],
  ['POST', '/vj/x', J, '{"name":"ab","kind":"c"}'],
  ['POST', '/vj/x', J, '{"name":"ab","tags":[1]}'],
  ['POST', '/vj/x', J, '{"name":"ab","tags":["a","b","c"]}'],
  ['POST', '/vj/x', J, '{"name":"ab","price":2000000}'],
  ['POST', '/vj/x', J, '{"name":"ab","price":1e400}'],
  ['POST', '/vj/x', J, 'x{'],
  ['POST', '/vj/x', J, ''],
  ['POST', '/vj/x', J, '[]'],
  ['POST', '/vj/x', J, 'null'],
  ['POST', '/vj/x', J, '{"age":"x"}'],
  ['POST', '/vj/x', J, '{"name":"<&>=\\u00e9"}'],
  ['POST', '/vj/c400', J, '{}'],
  ['POST', '/vj/off', J, '{}'],
  ['GET', '/vj/x'],
  ['PUT', '/vj/x', J, '{}'],
  ['POST', '/vj/x', J, '{"a" 1}'],
  ['POST', '/vj/x', J, '{"a":}'],
  ['POST', '/vj/x', J, '{"a":1,}'],
  ['POST', '/vj/x', J, '[1,]'],
  ['POST', '/vj/x', J, '[1 2]'],
  ['POST', '/vj/x', J, '{a:1}'],
  ['POST', '/vj/x', J, '{"a":tru}'],
  ['POST', '/vj/x', J, '{"a":"x\\q"}'],
  ['POST', '/vj/x', J, '{"a":"\\u12g4"}'],
  ['POST', '/vj/x', J, '{"a":-}'],
  ['POST', '/vj/x', J, '{"a":1.}'],
  ['POST', '/vj/x', J, '{"a":1e}'],
  ['POST', '/vj/x', J, '{"a":"x'],
  ['POST', '/vj/x', J, '{"a":1'],
  ['POST', '/vj/x', J, '{} trailing'],
  ['POST', '/vj/x', J, '{"name":"ab"} x'],
  ['POST', '/vj/x', J, '"str"'],
  ['POST', '/vj/x', J, '12 '],
  ['POST', '/vj/x', J, '{"a":"\t"}'],
  ['POST', '/oasvr/x', J, '{"a" 1}'],
  ['POST', '/oasvr/x', J, '{"a":}'],
  ['POST', '/oasvr/x', J, '{"a":1,}'],
  ['POST', '/oasvr/x', J, '[1,]'],
  ['POST', '/oasvr/x', J, '[1 2]'],
  ['POST', '/oasvr/x', J, '{a:1}'],
  ['POST', '/oasvr/x', J, '{"name":"ab"} x'],
  ['GET', '/mkoas/a'],
  ['GET', '/mkoas/b'],
  ['POST', '/mkoas/b'],
  ['GET', '/mkoas/c'],
  ['GET', '/mkoas/d'],
  ['GET', '/mkoas/a/deeper'],
  ['POST', '/oasvr/x', J, '{"name":"ab"}'],
  ['POST', '/oasvr/x', J, '{}'],
  ['POST', '/oasvr/x', J, '{"name":1}'],
  ['POST', '/oasvr/x', J, '{"name":"a"}'],
  ['POST', '/oasvr/x', J, '{"name":"abcdefg"}'],
  ['POST', '/oasvr/x', J, '{"name":"ab","age":-1}'],
  ['POST', '/oasvr/x', J, '{"name":"ab","age":200}'],
  ['POST', '/oasvr/x', J, '{"name":"ab","age":1.5}'],
  ['POST', '/oasvr/x', J, '{"name":"ab","kind":"c"}'],
  ['POST', '/oasvr/x', J, '{"name":"ab","tags":[1]}'],
  ['POST', '/oasvr/x', J, '{"name":"ab","tags":["a","b","c"]}'],
  ['POST', '/oasvr/x', J, '{"name":"ab","price":2000000}'],
  ['POST', '/oasvr/x', J, 'x{'],
  ['POST', '/oasvr/x', J, ''],
  ['POST', '/oasvr/x', J, '[]'],
  ['POST', '/oasvr/x', J, 'null'],
  ['POST', '/oasvr/x', J, '{"age":"x"}'],
  ['POST', '/oasvr/x', J, '{"name":"<&>=\\u00e9"}'],
  ['POST', '/oasvr/x', J, '{"name":"ab","kind":1}'],
  ['POST', '/oasvr/x', J, '{"name":"ab","tags":null}'],
  ['POST', '/oasvr/x', { 'content-type': 'text/plain' }, '{}'],
  ['POST', '/oasvr/x', {}, '{}'],
  ['POST', '/oasvr/x', { 'content-type': 'application/json; charset=utf-8' }, '{}'],
  ['GET', '/oasvr/x'],
  ['PUT', '/oasvr/ref', J, ''],
  ['PUT', '/oasvr/ref', J, '{}'],
  ['PUT', '/oasvr/ref', J, '{"id":"1"}'],
  ['PUT', '/oasvr/ref', J, '{"id":1,"kind":"cow"}'],
  ['PUT', '/oasvr/ref', J, '{"id":1,"kind":"cat"}'],
  ['POST', '/oasvr/t', J, '{"a":null}'],
  ['POST', '/oasvr/t', J, '{"a":1}'],
  ['POST', '/oasvr/t', J, '{"b":true}'],
  ['POST', '/oasvr/t', J, '{"z":1,"a":1}'],
  ['POST', '/oasvr/t', J, '{"a":true,"z":1}'],
  ['POST', '/oasvr/t', J, 'null'],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?lim=3', { 'x-num': '1' }],
  ['GET', '/oasprm/p/0/ab', { 'x-num': '1' }],
  ['GET', '/oasprm/p/x/ab', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/abcd', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/a%62', { 'x-num': '1' }],
  ['GET', '/oasprm/p/99999999999999999999/ab', { 'x-num': '1' }],
  ['GET', '/oasprm/p/0x1F/ab', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1_0/ab', { 'x-num': '1' }],
  ['GET', '/oasprm/p/-1/ab', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?lim=', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?lim', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?lim=11', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?lim=1.5', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?lim=a&lim=2', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?lim=2&lim=a', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?lim=%zz', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?lim=1;x', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?on=yes', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?on=T', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?on=', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?f=0.1', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?f=NaN', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?f=inf', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?f=1e400', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?f=1_0', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?f=0x1p-2', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?f=.5', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?kind=c', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?kind=a', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?kind=+', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?kind=%20', { 'x-num': '1' }],
  ['GET', '/oasprm/p/017/ab', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?x=1', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', cookie: 'sid=5' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', cookie: 'a=b; sid=x' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', cookie: 'sid=0' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', cookie: 'sid=' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', cookie: 'sid' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', cookie: 'sid="7"' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', cookie: 'sid=a b; sid=3' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', cookie: 'sid=a\\b; sid=0' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', cookie: ' sid = 4' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', cookie: 'Sid=x' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', cookie: 'sid="x; sid=9' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', cookie: 'a=1;;sid=z' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', cookie: 'x=1, sid=2' }],
  ['GET', '/oasprm/p/1/ab?ids=1&ids=2', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?ids=1&ids=x', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?ids=1&ids=9', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?ids=1&ids=2&ids=3', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?ids=', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?ids=1&ids=', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?ids=1,2', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', 'x-fs': '1.5,2' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', 'x-fs': '1,,2' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', 'x-fs': '1,x' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', 'x-fs': 'NaN' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', 'x-fs': ',' }],
  ['GET', '/oasprm/p/1/ab?code=ab1', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?code=ab', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?code=%C3%A91', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab?code=1a1', { 'x-num': '1' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', 'x-tag': 'zAz' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '1', 'x-tag': 'zz"' }],
  ['GET', '/oasprm/p/1/ab', {}],
  ['GET', '/oasprm/p/1/ab', { 'x-num': '' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': 'z' }],
  ['GET', '/oasprm/p/1/ab', { 'x-num': ' 7 ' }],
  ['POST', '/oasprm/b', J, '{}'],
  ['POST', '/oasprm/b?q=1', J, '[]'],
  ['POST', '/oasprm/b?q=1', J, '{}'],
  ['POST', '/tf/t', { ...J, 'x-keep': 'a b&c' }, '{"name":"ann","n":1000000,"tags":["a","b"],"m":{"z":1,"a":[true,null]}}'],
  ['POST', '/tf/t?q=1', J, '[1,2]'],
  ['POST', '/tf/t', J, ''],
  ['POST', '/tf/t', J, 'not json'],
  ['GET', '/tf/t'],
  ['POST', '/tf/bad', J, '{"a":"s"}'],
  ['GET', '/tf/jsonr'],
  ['GET', '/tf/jsonr', { 'accept-encoding': 'gzip' }],
  ['GET', '/tf/jsonbad'],
  ['POST', '/tfnoctx/t', J, '{}'],
  ['POST', '/oastf/t', J, '{"name":"o"}'],
  ['GET', '/oastf/jsonr'],
  ['GET', '/d/x', { host: 'a.example' }],
  ['GET', '/d/x', { host: 'a.example:1234' }],
  ['GET', '/d/x', { host: 'A.EXAMPLE' }],
  ['GET', '/d/x', { host: 'x.b.example' }],
  ['GET', '/d/x', { host: 'y.z.b.example' }],
  ['GET', '/d/x', { host: 'p.example:8080' }],
  ['GET', '/d/x', { host: 'p.example' }],
  ['GET', '/d/x', { host: '12.c.example' }],
  ['GET', '/d/x', { host: 'ab.c.example' }],
  ['GET', '/d/x', { host: 'o.example' }],
  ['GET', '/d/x'],
  ['GET', '/dd/x', { host: 'elsewhere.example' }],
  ['GET', '/allow/x', { host: 'a.example' }],
  ['GET', '/hm/x'],
  ['GET', '/hm/x', sign()],
  ['GET', '/hm/x?q=1', sign({ alg: 'hmac-sha256', hs: ['(request-target)', 'date', 'x-extra'], extra: { 'x-extra': 'v' } })],
  ['GET', '/hm/x', sign({ secret: 'wrong' })],
  ['GET', '/hm/x', sign({ key: 'nobody' })],
  ['GET', '/hm/x', sign({ alg: 'hmac-sha512' })],
  ['GET', '/hm/x', sign({ hs: ['x-extra'], extra: { 'x-extra': 'v' }, date: null })],
  ['GET', '/hm/x', sign({ date: 'Mon, 01 Jan 2001 00:00:00 GMT' })],
  ['GET', '/hm/x', sign({ date: 'garbage', aux: true })],
  ['GET', '/hm/x', sign({ lower: true })],
  ['GET', '/hm/x', sign({ fields: 'Signature keyId="alice",foo="x"' })],
  ['GET', '/hm/x', sign({ fields: 'keyId="alice",signature="x' })],
  ['GET', '/vbase/x'],
  ['GET', '/vbase/x', { 'x-api-version': 'v1' }],
  ['GET', '/vbase/x', { 'x-api-version': 'v2' }],
  ['GET', '/vbase/blocked', { 'x-api-version': 'v2' }],
  ['GET', '/vbase/x', { 'x-api-version': 'v3' }],
  ['GET', '/vbase/x', { 'x-api-version': 'v4' }],
  ['GET', '/vchild/x'],
  ['GET', '/vbaseu/v2/x'],
  ['GET', '/vbaseu/v9/x'],
  ['GET', '/vbaseu/x'],
  ['GET', '/vbaseu/v1/x'],
  ['GET', '/vbasenodef/x'],
  ['GET', '/vbasenodef/x', { 'x-api-version': 'v2' }],
  ['GET', '/oasvbase/x?ver=v2&a=1'],
  ['GET', '/oasvbase/x?ver=v1'],
  ['GET', '/oasvbase/x'],
  ['GET', '/oasvchild/x'],
];
/** Response headers compared (Tyk's names; svc's are the same with tyk → svc). */
const SHOWN_RESPONSE = /^(x-tyk-api-expires|x-svc-api-expires|access-control-|vary|www-authenticate|x-mock|x-resp|x-up)/;
function call(port, [method, path, given = {}, body, chunked]) {
  const headers = typeof given === 'function' ? given(method, path) : given;
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const c = [];
      res.on('data', (d) => c.push(d));
      const shown = Object.entries(res.headers)
        .filter(
          ([k]) =>
            SHOWN_RESPONSE.test(k) ||
            ((k === 'content-type' || k.startsWith('x-ratelimit')) && path.startsWith('/mk')) ||
            (['content-type', 'content-length', 'content-encoding'].includes(k) && /tf\//.test(path)),
        )
        .map(([k, v]) => `${k.replace('x-svc-', 'x-tyk-')}=${v}`)
        .sort()
        .join(' ');
      res.on('end', () => resolve(`${res.statusCode} ${Buffer.concat(c).toString().replace(/\s+/g, ' ').slice(0, 400)}${shown ? ` [${shown}]` : ''}`));
    });
    req.on('error', (e) => resolve(`error ${e.message}`));
    if (chunked) {
      req.write(body);
      req.end();
    } else req.end(body);
  });
}
/** A gateway's folder: the classic definitions (the OAS ones too for svc; Tyk gets those through its API), svc's with its own names. */
function folder(name, ext, conf) {
  const apis = {};
  for (const [id, d] of Object.entries(defs(ext)))
    if (name === 'svc' || !d.openapi) apis[id] = name === 'svc' ? JSON.parse(JSON.stringify(d).replaceAll('tyk://', 'svc://').replaceAll('$tyk_', '$svc_')) : d;
  const dir = join(ROOT, name);
  return {
    dir,
    file: gatewayFolder(dir, name, apis, { listen_address: '127.0.0.1', secret: 's', secrets: { mine: 'shh' }, enable_custom_domains: true, ...conf }),
  };
}
const tykPort = await freePort();
const svcPort = await freePort();
const xff = process.argv.includes('--xff1')
  ? { http_server_options: { xff_depth: 1 } }
  : process.argv.includes('--xff3')
    ? { http_server_options: { xff_depth: 3 } }
    : {};
const tyk = folder('tyk', 'x-tyk-api-gateway', { ...tykConf({ port: tykPort, database: TYK_REDIS_DB, log_level: 'error', hash_keys: true }), ...xff });
const svc = folder('svc', 'x-svc-api-gateway', { listen_port: svcPort, ...xff });
writeFileSync(
  join(svc.dir, 'engine.yaml'),
  `http: { enabled: false }\nlogger: { level: WARN }\ninput:\n  api_gateway: { conf: ${svc.file} }\npipeline:\n  processors:\n    - gateway: {}\noutput:\n  gateway_proxy: {}\n`,
);
const procs = [startGateway(TYK_BIN, ['--conf', tyk.file]), startGateway(join(REPO, 'node_modules/.bin/engine'), ['-c', join(svc.dir, 'engine.yaml')])];
await new Promise((r) => setTimeout(r, 8000));
for (const r of await addTykOasApis(
  tykPort,
  's',
  Object.values(defs('x-tyk-api-gateway')).filter((d) => d.openapi),
))
  console.log('tyk OAS create:', r.trim());
// A basic auth user on both gateways, through each one's management API.
for (const [port, prefix] of [
  [tykPort, 'tyk'],
  [svcPort, 'svc'],
]) {
  const r = await new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/${prefix}/keys/alice`,
        headers: { [`x-${prefix}-authorization`]: 's', 'content-type': 'application/json' },
      },
      (res) => {
        let b = '';
        res.on('data', (c) => (b += c));
        res.on('end', () => resolve(`${res.statusCode} ${b}`));
      },
    );
    req.on('error', (e) => resolve(e.message));
    req.end(
      JSON.stringify({
        org_id: 'o',
        rate: 1000,
        per: 1,
        quota_max: -1,
        basic_auth_data: { password: 'pw' },
        hmac_enabled: true,
        hmac_string: 'sekret',
        access_rights: {
          basic: { api_id: 'basic', api_name: 'basic', versions: ['Default'] },
          hm: { api_id: 'hm', api_name: 'hm', versions: ['Default'] },
        },
      }),
    );
  });
  console.log(`${prefix} basic auth user:`, String(r).trim().slice(0, 120));
}
let same = 0;
for (const c of cases) {
  const before = seen.length;
  const t = await call(tykPort, c);
  const tHit = seen.length - before;
  const b2 = seen.length;
  const s = await call(svcPort, c);
  const sHit = seen.length - b2;
  const tSeen = seen.slice(before, before + tHit).join(' | ');
  const sSeen = seen.slice(b2).join(' | ');
  const ok = t === s && tHit === sHit && tSeen === sSeen;
  if (ok) same++;
  console.log(
    `${ok ? 'same' : 'DIFF'} ${c[0]} ${c[1]} ${typeof c[2] === 'function' ? '(signed now)' : JSON.stringify(c[2] ?? {})}${c[4] ? ' chunked' : ''}\n   tyk: ${t} (upstream ${tHit}${tSeen ? `: ${tSeen}` : ''})\n   svc: ${s} (upstream ${sHit}${sSeen ? `: ${sSeen}` : ''})`,
  );
}
// The management API's classic form of every API (GET /tyk/apis/{id}, GET /tyk/apis), classic and OAS alike.
const mgmt = (port, prefix, path) =>
  new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'GET', path, headers: { [`x-${prefix}-authorization`]: 's' } }, (res) => {
      let b = '';
      res.on('data', (c) => (b += c));
      // A blob template is base64 of its text, whose `_svc_` fields are Tyk's `_tyk_`.
      const renamed = () =>
        b
          .replaceAll('svc://', 'tyk://')
          .replaceAll('$svc_', '$tyk_')
          .replace(
            /"template_source":"([A-Za-z0-9+/=]*)"/g,
            (_m, b64) =>
              `"template_source":"${Buffer.from(Buffer.from(b64, 'base64').toString().replaceAll('_svc_', '_tyk_').replaceAll('$svc_', '$tyk_')).toString('base64')}"`,
          );
      res.on('end', () => resolve(`${res.statusCode} ${res.headers['content-type']} ${renamed()}`));
    });
    req.on('error', (e) => resolve(e.message));
    req.end();
  });
/** Where two JSON texts differ: the paths of the first few differing values. */
function jsonDiff(a, b, at = '', out = []) {
  if (out.length > 8) return out;
  if (JSON.stringify(a) === JSON.stringify(b)) return out;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (!Array.isArray(a) && ka.join() !== kb.join())
      out.push(
        `${at}: keys tyk [${ka.filter((k) => !kb.includes(k))}] svc [${kb.filter((k) => !ka.includes(k))}]${ka.filter((k) => kb.includes(k)).join() !== kb.filter((k) => ka.includes(k)).join() ? ' (order)' : ''}`,
      );
    for (const k of ka) if (k in b) jsonDiff(a[k], b[k], `${at}.${k}`, out);
    return out;
  }
  out.push(`${at}: tyk ${JSON.stringify(a)?.slice(0, 200)} svc ${JSON.stringify(b)?.slice(0, 200)}`);
  return out;
}
const mgmtCases = [...Object.keys(defs('x')).map((id) => `/apis/${id}`), '/apis'];
for (const path of mgmtCases) {
  let t = await mgmt(tykPort, 'tyk', `/tyk${path}`);
  let s = await mgmt(svcPort, 'svc', `/svc${path}`);
  if (path === '/apis') {
    // Tyk lists its APIs in Go's map order: compare them by id.
    const sorted = (text) => {
      const [status, type, ...body] = text.split(' ');
      const list = JSON.parse(body.join(' '));
      return `${status} ${type} ${JSON.stringify(list.sort((x, y) => (x.api_id < y.api_id ? -1 : 1)))}`;
    };
    t = sorted(t);
    s = sorted(s);
  }
  if (process.env.DUMP_MANAGEMENT) {
    mkdirSync(process.env.DUMP_MANAGEMENT, { recursive: true });
    writeFileSync(join(process.env.DUMP_MANAGEMENT, `${path.replaceAll('/', '_')}.tyk`), t);
    writeFileSync(join(process.env.DUMP_MANAGEMENT, `${path.replaceAll('/', '_')}.svc`), s);
  }
  const ok = t === s;
  cases.push(['GET', `(management) ${path}`]);
  if (ok) same++;
  const head = (x) => x.split(' ').slice(0, 2).join(' ');
  let detail = '';
  if (!ok) {
    try {
      detail = jsonDiff(JSON.parse(t.split(' ').slice(2).join(' ')), JSON.parse(s.split(' ').slice(2).join(' '))).join('\n     ');
    } catch {
      detail = `tyk ${t.slice(0, 300)}\n     svc ${s.slice(0, 300)}`;
    }
  }
  console.log(
    `${ok ? 'same' : 'DIFF'} GET (management) ${path}${ok ? '' : `\n   tyk: ${head(t)} svc: ${head(s)}${t.length === s.length ? '' : ` (${t.length} vs ${s.length} chars)`}\n     ${detail}`}`,
  );
}
console.log(`${same} of ${cases.length} alike`);
await Promise.all(procs.map((p) => p.stop()));
up.close();
if (process.argv.includes('--logs')) console.log(procs.map((p) => p.logs()).join('\n----\n'));
rmSync(ROOT, { recursive: true, force: true });
process.exitCode = same === cases.length ? 0 : 1;
