#!/usr/bin/env node
// Issue 40, item 3 (mTLS client certificates), side by side: Tyk Gateway v5.14.0 built from source
// and the svc gateway serve HTTPS (http_server_options.use_ssl, one certificate pair) with the same
// classic definitions: `use_mutual_tls_auth` with `client_certificates` (a client's PEM file and a
// CA's) beside a keyless API without mTLS on the same port (so Tyk requests, not requires, a client
// certificate); each request is sent to both with no certificate, the allowed one, one the CA
// issued and a stranger's, and status and body are compared.
//   node scripts/tyk-diff-mtls.mjs   (after npx tsc -b; exit 1 on a difference)
// TYK_BIN, TYK_TEMPLATES say where Tyk is; TYK_REDIS (127.0.0.1:6379) and TYK_REDIS_DB (15) its Redis.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@svc/engine/testing';
import { clientTls, mtlsCertificates } from '../gateway-plugin/dist/gateway/client-certificates.test-helpers.js';
import { TYK_BIN, gatewayFolder, startGateway, tykConf } from './tyk-peer.mjs';

const ROOT = mkdtempSync(join(tmpdir(), 'svc-tyk-mtls-'));
const REPO = fileURLToPath(new URL('..', import.meta.url));
const [REDIS_HOST, REDIS_PORT] = (process.env.TYK_REDIS || '127.0.0.1:6379').split(':');
const TYK_REDIS_DB = Number(process.env.TYK_REDIS_DB || 15);
const certs = mtlsCertificates(ROOT);

const upstream = http.createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end(`up ${req.url}`);
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
  proxy: { listen_path: `/${id}/`, target_url: target, strip_listen_path: true },
  version_data: version,
  ...more,
});
const apis = {
  mtls: api('mtls', { use_mutual_tls_auth: true, client_certificates: [certs.allowed.cert, certs.ca.cert] }),
  open: api('open', {}),
};
// --only-mtls: no API without mTLS on the port, so Tyk requires and verifies the certificate in the handshake.
if (process.argv.includes('--only-mtls')) delete apis.open;
const CLIENTS = { none: undefined, allowed: certs.allowed, issued: certs.issued, stranger: certs.stranger };
// Without SNI (an IP address), Tyk's handshake is the one for APIs without a custom domain.
const NO_SNI = ['none', 'allowed', 'stranger'].map((who) => `${who} (no SNI)`);
const CASES = [];
for (const path of apis.open ? ['/mtls/x', '/open/x'] : ['/mtls/x']) for (const who of [...Object.keys(CLIENTS), ...NO_SNI]) CASES.push([who, path]);

function send(port, [who, path]) {
  return new Promise((resolve) => {
    const pair = CLIENTS[who.split(' ')[0]];
    const servername = who.endsWith('(no SNI)') ? '' : 'localhost';
    const req = https.request(
      { host: '127.0.0.1', port, path, servername, rejectUnauthorized: false, agent: false, ...(pair ? clientTls(pair) : {}) },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode, body, type: res.headers['content-type'] }));
      },
    );
    req.on('error', (e) => resolve({ error: e.code ?? e.message }));
    req.end();
  });
}

const tykPort = await freePort();
const svcPort = await freePort();
const tykFile = gatewayFolder(join(ROOT, 'tyk'), 'tyk', apis, {
  ...tykConf({ port: tykPort, database: TYK_REDIS_DB, log_level: 'error' }),
  http_server_options: { use_ssl: true, certificates: [{ domain_name: 'localhost', cert_file: certs.server.cert, key_file: certs.server.key }] },
  storage: { type: 'redis', host: REDIS_HOST, port: Number(REDIS_PORT), database: TYK_REDIS_DB },
  secret: 's',
});
const svcFile = gatewayFolder(join(ROOT, 'svc'), 'svc', apis, {
  listen_address: '127.0.0.1',
  listen_port: svcPort,
  secret: 's',
  http_server_options: { use_ssl: true, certificates: [{ domain_name: 'localhost', cert_file: certs.server.cert, key_file: certs.server.key }] },
});
writeFileSync(
  join(ROOT, 'engine.yaml'),
  `http: { enabled: false }\nlogger: { level: WARN }\ninput:\n  api_gateway: { conf: ${svcFile} }\npipeline:\n  processors:\n    - gateway: {}\noutput:\n  gateway_proxy: {}\n`,
);
const procs = [startGateway(TYK_BIN, ['--conf', tykFile]), startGateway(join(REPO, 'node_modules/.bin/engine'), ['-c', join(ROOT, 'engine.yaml')])];
// Both gateways up (each answers its listen port), within 60 s.
for (let i = 0; i < 300; i++) {
  const up = await Promise.all([tykPort, svcPort].map((p) => send(p, ['none', '/'])));
  if (up.every((r) => r.error === undefined)) break;
  await new Promise((r) => setTimeout(r, 200));
}
let differ = 0;
try {
  for (const c of CASES) {
    const [t, s] = [await send(tykPort, c), await send(svcPort, c)];
    const same = JSON.stringify(t) === JSON.stringify(s);
    if (!same) differ++;
    console.log(`${same ? 'same' : 'DIFF'} ${c[0]} ${c[1]}\n  tyk ${JSON.stringify(t)}${same ? '' : `\n  svc ${JSON.stringify(s)}`}`);
  }
} finally {
  for (const p of procs) await p.stop();
  upstream.close();
  if (differ > 0) console.log(procs[1].logs());
  rmSync(ROOT, { recursive: true, force: true });
}
console.log(`${CASES.length - differ}/${CASES.length} the same`);
process.exit(differ > 0 ? 1 : 0);
