#!/usr/bin/env node
// Issue 40, item 3 (error_overrides), side by side: Tyk Gateway v5.14.0 built from source and the svc
// gateway load the same classic definitions carrying `error_overrides` (exact codes and 4xx/5xx,
// message_pattern on the gateway's own errors, body_field/body_value and message_pattern on the
// upstream's, an inline body, a body template with {{.StatusCode}} and {{.Message}}, message only,
// headers, status_code) in front of an upstream that answers 500, 404 with a JSON body and 200; every
// request goes to both and status, body, Content-Type and the override's header are compared.
//   node scripts/tyk-diff-error-overrides.mjs   (after npx tsc -b; exit 1 on a difference)
// TYK_BIN, TYK_TEMPLATES say where Tyk is; TYK_REDIS (127.0.0.1:6379) and TYK_REDIS_DB (13) its Redis.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@svc/engine/testing';
import { TYK_BIN, gatewayFolder, startGateway, tykConf } from './tyk-peer.mjs';

const ROOT = mkdtempSync(join(tmpdir(), 'svc-tyk-overrides-'));
const REPO = fileURLToPath(new URL('..', import.meta.url));
const [REDIS_HOST, REDIS_PORT] = (process.env.TYK_REDIS || '127.0.0.1:6379').split(':');
const TYK_REDIS_DB = Number(process.env.TYK_REDIS_DB || 13);

const upstream = http.createServer((req, res) => {
  req.resume();
  const path = req.url.split('?')[0];
  if (path.endsWith('/boom')) {
    res.writeHead(500, { 'content-type': 'text/plain' });
    return void res.end('upstream exploded: database down');
  }
  if (path.endsWith('/nf')) {
    res.writeHead(404, { 'content-type': 'application/json' });
    return void res.end(JSON.stringify({ error: { code: 'NO_ITEM' }, detail: 'item 7 missing' }));
  }
  if (path.endsWith('/other')) {
    res.writeHead(404, { 'content-type': 'application/json' });
    return void res.end(JSON.stringify({ error: { code: 'ELSE' }, pad: 'x'.repeat(6000) }));
  }
  if (path.endsWith('/teapot')) {
    res.writeHead(418, { 'content-type': 'text/plain', 'x-up': '1' });
    return void res.end('short and stout');
  }
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('ok');
});
await new Promise((r) => upstream.listen(0, '127.0.0.1', r));
const target = `http://127.0.0.1:${upstream.address().port}`;

const version = (paths = {}) => ({
  not_versioned: true,
  versions: { Default: { name: 'Default', use_extended_paths: true, extended_paths: paths } },
});
const OVERRIDES = {
  401: [
    {
      match: { message_pattern: 'missing' },
      response: { status_code: 418, body: '{"m":"{{.Message}}","c":{{.StatusCode}}}', message: 'no "key"', headers: { 'x-o': 'missing' } },
    },
    { response: { message: 'bad key' } },
  ],
  403: [{ response: { body: 'forbidden here', headers: { 'x-o': 'forbidden', 'content-type': 'text/plain' } } }],
  404: [
    { match: { body_field: 'error.code', body_value: 'NO_ITEM' }, response: { status_code: 410, message: 'gone for good' } },
    { match: { message_pattern: '^nothing$' }, response: { body: 'never' } },
  ],
  '5xx': [{ response: { status_code: 503, body: '<e>{{.StatusCode}} {{.Message}}</e>', message: 'a<b' } }],
  429: [{ response: { headers: { 'retry-after': '7' } } }],
};
const apis = {
  keyed: {
    api_id: 'keyed',
    name: 'keyed',
    org_id: 'o',
    active: true,
    use_keyless: false,
    auth: { auth_header_name: 'Authorization' },
    proxy: { listen_path: '/keyed/', target_url: target, strip_listen_path: true },
    version_data: version(),
    error_overrides: OVERRIDES,
  },
  open: {
    api_id: 'open',
    name: 'open',
    org_id: 'o',
    active: true,
    use_keyless: true,
    proxy: { listen_path: '/open/', target_url: target, strip_listen_path: true },
    version_data: version({ black_list: [{ path: '/denied', method: 'GET' }] }),
    global_rate_limit: { rate: 7, per: 60 },
    error_overrides: OVERRIDES,
  },
  off: {
    api_id: 'off',
    name: 'off',
    org_id: 'o',
    active: true,
    use_keyless: true,
    proxy: { listen_path: '/off/', target_url: target, strip_listen_path: true },
    version_data: version({ black_list: [{ path: '/denied', method: 'GET' }] }),
    error_overrides: OVERRIDES,
    error_overrides_disabled: true,
  },
};

const CASES = [
  ['GET', '/keyed/x', {}],
  ['GET', '/keyed/x', { authorization: 'nope' }],
  ['GET', '/keyed/x', { 'content-type': 'application/xml' }],
  ['GET', '/open/denied', {}],
  ['GET', '/open/boom', {}],
  ['GET', '/open/boom', { 'content-type': 'text/xml' }],
  ['GET', '/open/nf', {}],
  ['GET', '/open/teapot', {}],
  ['GET', '/open/other', {}],
  ['GET', '/open/ok', {}],
  ['GET', '/open/ok', {}],
  ['GET', '/open/ok', {}],
  ['GET', '/open/ok', {}],
  ['GET', '/off/denied', {}],
  ['GET', '/off/boom', {}],
];

function send(port, [method, path, headers]) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          body,
          type: res.headers['content-type'],
          o: res.headers['x-o'],
          retry: res.headers['retry-after'],
          up: res.headers['x-up'],
          length: res.headers['content-length'],
        }),
      );
    });
    req.on('error', (e) => resolve({ error: e.message }));
    req.end();
  });
}

const tykPort = await freePort();
const svcPort = await freePort();
const tykFile = gatewayFolder(join(ROOT, 'tyk'), 'tyk', apis, {
  ...tykConf({ port: tykPort, database: TYK_REDIS_DB, log_level: 'error' }),
  storage: { type: 'redis', host: REDIS_HOST, port: Number(REDIS_PORT), database: TYK_REDIS_DB },
  secret: 's',
});
const svcFile = gatewayFolder(join(ROOT, 'svc'), 'svc', apis, { listen_address: '127.0.0.1', listen_port: svcPort, secret: 's' });
writeFileSync(
  join(ROOT, 'engine.yaml'),
  `http: { enabled: false }\nlogger: { level: WARN }\ninput:\n  api_gateway: { conf: ${svcFile} }\npipeline:\n  processors:\n    - gateway: {}\noutput:\n  gateway_proxy: {}\n`,
);
const procs = [startGateway(TYK_BIN, ['--conf', tykFile]), startGateway(join(REPO, 'node_modules/.bin/engine'), ['-c', join(ROOT, 'engine.yaml')])];
// Both gateways up (each answers its listen port), within 60 s.
for (let i = 0; i < 300; i++) {
  const up = await Promise.all([tykPort, svcPort].map((p) => send(p, ['GET', '/', {}])));
  if (up.every((r) => r.error === undefined)) break;
  await new Promise((r) => setTimeout(r, 200));
}
let differ = 0;
try {
  for (const c of CASES) {
    const [t, s] = [await send(tykPort, c), await send(svcPort, c)];
    const same = JSON.stringify(t) === JSON.stringify(s);
    if (!same) differ++;
    console.log(`${same ? 'same' : 'DIFF'} ${c[0]} ${c[1]} ${JSON.stringify(c[2])}\n  tyk ${JSON.stringify(t)}${same ? '' : `\n  svc ${JSON.stringify(s)}`}`);
  }
} finally {
  for (const p of procs) await p.stop();
  upstream.close();
  if (differ > 0) console.log(procs[1].logs());
  rmSync(ROOT, { recursive: true, force: true });
}
console.log(`${CASES.length - differ}/${CASES.length} the same`);
process.exit(differ > 0 ? 1 : 0);
