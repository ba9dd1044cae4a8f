#!/usr/bin/env node
// Issue 40, item 3 (batch requests), side by side: Tyk Gateway v5.14.0 built from source and the svc
// gateway load the same classic definitions with `enable_batch_request_support` (a keyed API, a
// keyless one with a rate limit, one without batches) in front of an upstream that records what
// reaches it; each batch (`POST {listen_path}tyk/batch/`, in order with suppress_parallel_execution,
// and in parallel) goes to both; status, Content-Type and the reply (each unit's relative_url, code,
// body and headers, the Date's value left out) are compared, and what the upstream saw.
//   node scripts/tyk-diff-batch.mjs   (after npx tsc -b; exit 1 on a difference)
// TYK_BIN, TYK_TEMPLATES say where Tyk is; TYK_REDIS (127.0.0.1:6379) and TYK_REDIS_DB (14) its Redis.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@svc/engine/testing';
import { TYK_BIN, gatewayFolder, startGateway, tykConf } from './tyk-peer.mjs';

const ROOT = mkdtempSync(join(tmpdir(), 'svc-tyk-batch-'));
const REPO = fileURLToPath(new URL('..', import.meta.url));
const [REDIS_HOST, REDIS_PORT] = (process.env.TYK_REDIS || '127.0.0.1:6379').split(':');
const TYK_REDIS_DB = Number(process.env.TYK_REDIS_DB || 14);

let seen = [];
const upstream = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    seen.push(`${req.method} ${req.url} ${body} x-a=${req.headers['x-a'] ?? ''}`);
    const path = req.url.split('?')[0];
    if (path.endsWith('/fail')) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      return void res.end('bad gateway');
    }
    res.writeHead(200, { 'content-type': 'application/json', 'x-up': 'yes' });
    res.end(JSON.stringify({ got: `${req.method} ${req.url}`, body }));
  });
});
await new Promise((r) => upstream.listen(0, '127.0.0.1', r));
const target = `http://127.0.0.1:${upstream.address().port}`;

const version = { not_versioned: true, versions: { Default: { name: 'Default', use_extended_paths: true, extended_paths: {} } } };
const api = (id, more) => ({
  api_id: id,
  name: id,
  org_id: 'o',
  active: true,
  use_keyless: true,
  enable_batch_request_support: true,
  proxy: { listen_path: `/${id}/`, target_url: target, strip_listen_path: true },
  version_data: version,
  ...more,
});
const apis = {
  open: api('open', { global_rate_limit: { rate: 6, per: 60 } }),
  keyed: api('keyed', { use_keyless: false, auth: { auth_header_name: 'Authorization' } }),
  nobatch: api('nobatch', { enable_batch_request_support: false }),
};
const batch = (requests, more = {}) => JSON.stringify({ requests, suppress_parallel_execution: true, ...more });
const CASES = [
  [
    'POST',
    '/open/tyk/batch/',
    batch([
      { method: 'GET', relative_url: 'a?x=1', headers: { 'x-a': '1' } },
      { method: 'POST', relative_url: 'b', body: 'hello' },
      { method: 'GET', relative_url: 'fail' },
    ]),
  ],
  ['POST', '/open/tyk/batch/', batch([])],
  ['POST', '/open/tyk/batch/', 'not json'],
  ['POST', '/open/tyk/batch/', batch([{ method: 'G T', relative_url: 'x' }])],
  ['GET', '/open/tyk/batch/', ''],
  ['POST', '/open/tyk/batch', batch([{ method: 'GET', relative_url: 'c' }])],
  [
    'POST',
    '/keyed/tyk/batch/',
    batch([
      { method: 'GET', relative_url: 'k' },
      { method: 'GET', relative_url: 'k', headers: { Authorization: 'nope' } },
    ]),
  ],
  ['POST', '/nobatch/tyk/batch/', batch([{ method: 'GET', relative_url: 'n' }])],
  [
    'POST',
    '/open/tyk/batch/',
    batch([
      { method: 'GET', relative_url: 'r1' },
      { method: 'GET', relative_url: 'r2' },
      { method: 'GET', relative_url: 'r3' },
    ]),
  ],
  [
    'POST',
    '/keyed/tyk/batch/',
    batch([{ relative_url: 'q1' }, { method: 'DELETE', relative_url: 'q2' }, { relative_url: 'q3' }], { suppress_parallel_execution: false }),
    true,
  ],
  ['POST', '/open/tyk/batch/', JSON.stringify({ Requests: [{ Method: 'GET', Relative_URL: 'p1' }] })],
];

// `sorted`: a parallel batch, whose replies Tyk gives in the order they end: compared by relative_url.
function send(port, [method, path, body, sorted]) {
  return new Promise((resolve) => {
    const before = seen.length;
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        let reply = text;
        try {
          reply = JSON.parse(text);
          if (Array.isArray(reply))
            reply = reply.map((u) => ({
              ...u,
              headers:
                u.headers &&
                // svc's error answers carry no X-Generator (none of them does, batch or not).
                Object.entries(u.headers)
                  .filter(([k]) => k !== 'X-Generator')
                  .map(([k, v]) => (k === 'Date' ? k : `${k}: ${v}`)),
            }));
        } catch {
          // not JSON: compared as text
        }
        if (sorted && Array.isArray(reply)) reply.sort((a, b) => (a.relative_url < b.relative_url ? -1 : 1));
        resolve({ status: res.statusCode, type: res.headers['content-type'], reply, upstream: seen.slice(before) });
      });
    });
    req.on('error', (e) => resolve({ error: e.message }));
    req.end(body);
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
  const up = await Promise.all([tykPort, svcPort].map((p) => send(p, ['GET', '/', ''])));
  if (up.every((r) => r.error === undefined)) break;
  await new Promise((r) => setTimeout(r, 200));
}
let differ = 0;
try {
  for (const c of CASES) {
    const [t, s] = [await send(tykPort, c), await send(svcPort, c)];
    const same = JSON.stringify(t) === JSON.stringify(s);
    if (!same) differ++;
    console.log(`${same ? 'same' : 'DIFF'} ${c[0]} ${c[1]} ${c[2].slice(0, 80)}\n  tyk ${JSON.stringify(t)}${same ? '' : `\n  svc ${JSON.stringify(s)}`}`);
  }
} finally {
  for (const p of procs) await p.stop();
  upstream.close();
  if (differ > 0) console.log(procs[1].logs());
  rmSync(ROOT, { recursive: true, force: true });
}
console.log(`${CASES.length - differ}/${CASES.length} the same`);
process.exit(differ > 0 ? 1 : 0);
