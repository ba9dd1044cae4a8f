#!/usr/bin/env node
// Issue 26, side by side: Tyk Gateway v5.14.0 built from source and the svc gateway load the same
// classic definitions (load balancing over target_list, hard_timeouts, global_enforce_timeout,
// circuit_breakers, the response cache, HTTPS upstreams with proxy.transport and
// upstream_certificates) and their OAS forms (upstream.loadBalancing with weights, enforceTimeout,
// circuitBreaker, middleware cache, upstream.tlsTransport with ciphers, mutualTLS; files for svc,
// Tyk's management API for Tyk) in front of two upstreams that record what reaches them, get the same requests
// in the same order, and every answer is compared: status, body, Content-Type, ETag, the cached
// response header (X-Tyk- / X-Svc-Cached-Response), and which upstream got the request.
//   node scripts/tyk-diff-traffic.mjs   (after npm run build; exit 1 on a difference)
// TYK_BIN (/tmp/peers/bin/tyk), TYK_TEMPLATES (/tmp/peers/tyk-templates) and TYK_REDIS_DB (12, on
// 127.0.0.1:6379: Tyk needs Redis) say where Tyk and its Redis are.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, selfSignedCert } from '@svc/engine/testing';
import { TYK_BIN, addTykOasApis, gatewayFolder, startGateway, tykConf } from './tyk-peer.mjs';

const ROOT = mkdtempSync(join(tmpdir(), 'svc-tyk-traffic-'));
const REPO = fileURLToPath(new URL('..', import.meta.url));
const TYK_REDIS_DB = Number(process.env.TYK_REDIS_DB || 12);

let seen = [];
const held = [];
function upstream(name) {
  return http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(`${name} ${req.method} ${req.url}`);
      const path = req.url.split('?')[0];
      if (path === '/hang') return void held.push(res);
      if (path === '/flaky') res.statusCode = 500;
      if (path === '/count') res.setHeader('etag', '"v1"');
      res.setHeader('content-type', 'text/plain');
      res.end(`${name}`);
    });
  });
}
const servers = [upstream('a'), upstream('b')];
for (const s of servers) await new Promise((r) => s.listen(0, '127.0.0.1', r));
const [a, b] = servers.map((s) => `http://127.0.0.1:${s.address().port}`);
// A TLS 1.2-only upstream with a self-signed certificate.
const upstreamCert = selfSignedCert(ROOT, 'upstream.test');
if (!upstreamCert) throw new Error('openssl is needed to make the test certificates');
const secure = https.createServer({ cert: readFileSync(upstreamCert.cert), key: readFileSync(upstreamCert.key), maxVersion: 'TLSv1.2' }, (req, res) => {
  seen.push(`tls ${req.method} ${req.url}`);
  res.setHeader('content-type', 'text/plain');
  res.end('tls');
});
await new Promise((r) => secure.listen(0, '127.0.0.1', r));
servers.push(secure);
const s = `https://127.0.0.1:${secure.address().port}`;
// An upstream that answers only a client presenting the client certificate (a PEM file with the certificate and its key).
const clientCert = selfSignedCert(ROOT, 'client.test');
if (!clientCert) throw new Error('openssl is needed to make the test certificates');
writeFileSync(join(ROOT, 'client.pem'), Buffer.concat([readFileSync(clientCert.cert), readFileSync(clientCert.key)]));
const mutual = https.createServer(
  {
    cert: readFileSync(upstreamCert.cert),
    key: readFileSync(upstreamCert.key),
    ca: readFileSync(clientCert.cert),
    requestCert: true,
    rejectUnauthorized: true,
  },
  (req, res) => {
    seen.push(`mtls ${req.method} ${req.url}`);
    res.setHeader('content-type', 'text/plain');
    res.end(`mtls:${req.socket.getPeerCertificate().subject?.CN}`);
  },
);
await new Promise((r) => mutual.listen(0, '127.0.0.1', r));
servers.push(mutual);
const m = `127.0.0.1:${mutual.address().port}`;

// Tyk's cache is in Redis and outlives a run: API ids are new each run (listen paths stay).
const RUN = Date.now().toString(36);
const classic = (id, proxy = {}, paths = {}, version = {}) => ({
  api_id: `${id}-${RUN}`,
  name: id,
  org_id: 'o',
  active: true,
  use_keyless: true,
  proxy: { listen_path: `/${id}/`, target_url: a, strip_listen_path: true, ...proxy },
  version_data: { not_versioned: true, versions: { Default: { name: 'Default', use_extended_paths: true, extended_paths: paths, ...version } } },
});
/** An OAS definition (`ext`: x-tyk- or x-svc-api-gateway) whose operations are `ops` (`'GET /path'` → the operation's middleware). */
const oas = (ext, id, ops = {}, upstream = {}, global = undefined) => {
  const paths = {};
  const operations = {};
  for (const [key, mw] of Object.entries(ops)) {
    const [method, path] = key.split(' ');
    const opId = `${method.toLowerCase()}${path.replace(/\W/g, '_')}`;
    (paths[path] ??= {})[method.toLowerCase()] = { operationId: opId, responses: { 200: { description: 'ok' } } };
    operations[opId] = mw;
  }
  return {
    openapi: '3.0.3',
    info: { title: id, version: '1' },
    paths,
    [ext]: {
      info: { id: `${id}-${RUN}`, name: id, state: { active: true } },
      upstream: { url: a, ...upstream },
      server: { listenPath: { value: `/${id}/`, strip: true } },
      middleware: { ...(global ? { global } : {}), operations },
    },
  };
};
const defs = (ext) => ({
  oaslb: oas(
    ext,
    'oaslb',
    {},
    {
      loadBalancing: {
        enabled: true,
        targets: [
          { url: a, weight: 2 },
          { url: b, weight: 1 },
        ],
      },
    },
  ),
  oasnolb: oas(ext, 'oasnolb', {}, { loadBalancing: { enabled: false, targets: [{ url: b, weight: 1 }] } }),
  oashard: oas(ext, 'oashard', { 'GET /hang': { enforceTimeout: { enabled: true, value: 1 } }, 'POST /ok': { enforceTimeout: { enabled: false, value: 1 } } }),
  oasglobal: oas(ext, 'oasglobal', {}, { enforceTimeout: { enabled: true, duration: '300ms' } }),
  oascb: oas(ext, 'oascb', {
    'GET /flaky': { circuitBreaker: { enabled: true, threshold: 0.5, sampleSize: 2, coolDownPeriod: 30, halfOpenStateEnabled: true } },
  }),
  oascache: oas(
    ext,
    'oascache',
    {
      'GET /count': { cache: { enabled: true } },
      'GET /flaky': { cache: { enabled: true, cacheResponseCodes: [500] } },
      'GET /off': { cache: { enabled: false } },
    },
    {},
    { cache: { enabled: true, timeout: 60, cacheResponseCodes: [200] } },
  ),
  oasskip: oas(ext, 'oasskip', {}, { url: s, tlsTransport: { insecureSkipVerify: true } }),
  oastls13: oas(ext, 'oastls13', {}, { url: s, tlsTransport: { insecureSkipVerify: true, minVersion: '1.3' } }),
  oascipher: oas(ext, 'oascipher', {}, { url: s, tlsTransport: { insecureSkipVerify: true, ciphers: ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'] } }),
  oasnocipher: oas(ext, 'oasnocipher', {}, { url: s, tlsTransport: { insecureSkipVerify: true, ciphers: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'] } }),
  oasmtls: oas(
    ext,
    'oasmtls',
    {},
    {
      url: `https://${m}`,
      tlsTransport: { insecureSkipVerify: true },
      mutualTLS: { enabled: true, domainToCertificateMapping: [{ domain: m, certificate: join(ROOT, 'client.pem') }] },
    },
  ),
  oasmtlsoff: oas(
    ext,
    'oasmtlsoff',
    {},
    {
      url: `https://${m}`,
      tlsTransport: { insecureSkipVerify: true },
      mutualTLS: { enabled: false, domainToCertificateMapping: [{ domain: m, certificate: join(ROOT, 'client.pem') }] },
    },
  ),
  lb: classic('lb', { enable_load_balancing: true, target_list: [a, b.slice('http://'.length)] }),
  empty: classic('empty', { enable_load_balancing: true, target_list: [] }),
  hard: classic('hard', {}, { hard_timeouts: [{ path: '/hang', method: 'GET', timeout: 1 }] }),
  global: classic('global', {}, {}, { global_enforce_timeout: '300ms' }),
  cache: {
    ...classic(
      'cache',
      {},
      {
        advance_cache_config: [
          { method: 'GET', path: '/count' },
          { method: 'GET', path: '/flaky' },
        ],
        cache: ['/old'],
      },
    ),
    cache_options: { enable_cache: true, cache_timeout: 60, cache_response_codes: [200] },
  },
  verified: classic('verified', { target_url: s }),
  skip: classic('skip', { target_url: s, transport: { ssl_insecure_skip_verify: true } }),
  tls13: classic('tls13', { target_url: s, transport: { ssl_insecure_skip_verify: true, ssl_min_version: 772 } }),
  nocert: classic('nocert', { target_url: `https://${m}`, transport: { ssl_insecure_skip_verify: true } }),
  bycert: {
    ...classic('bycert', { target_url: `https://${m}`, transport: { ssl_insecure_skip_verify: true } }),
    upstream_certificates: { [m]: join(ROOT, 'client.pem') },
  },
  cb: classic('cb', {}, { circuit_breakers: [{ path: '/flaky', method: 'GET', threshold_percent: 0.5, samples: 2, return_to_service_after: 30 }] }),
  cipher: classic('cipher', { target_url: s, transport: { ssl_insecure_skip_verify: true, ssl_ciphers: ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'] } }),
  nocipher: classic('nocipher', { target_url: s, transport: { ssl_insecure_skip_verify: true, ssl_ciphers: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'] } }),
});
const cases = [
  ...[0, 1, 2, 3, 4].map((i) => ['GET', `/lb/n${i}`]),
  ['GET', '/empty/x'],
  ['GET', '/hard/hang'],
  ['POST', '/hard/ok'],
  ['GET', '/global/hang'],
  ['GET', '/cb/flaky'],
  ['GET', '/cb/flaky'],
  ['GET', '/cb/flaky'],
  ['GET', '/cb/flaky'],
  ['GET', '/cb/other'],
  ['GET', '/verified/a'],
  ['GET', '/skip/a?b=1'],
  ['GET', '/tls13/a'],
  ['GET', '/nocert/a'],
  ['GET', '/bycert/a'],
  ['GET', '/cache/count'],
  ['GET', '/cache/count'],
  ['GET', '/cache/count?x=1'],
  ['GET', '/cache/count', { 'x-real-ip': '10.9.9.9' }],
  ['GET', '/cache/count', { 'x-real-ip': '10.9.9.9' }],
  ['POST', '/cache/count'],
  ['POST', '/cache/count'],
  ['HEAD', '/cache/count'],
  ['GET', '/cache/count', { 'if-none-match': '"v1"' }],
  ['GET', '/cache/flaky'],
  ['GET', '/cache/flaky'],
  ['GET', '/cache/old'],
  ['GET', '/cache/old'],
  ['OPTIONS', '/cache/old'],
  ['OPTIONS', '/cache/old'],
  ['GET', '/cipher/a'],
  ['GET', '/nocipher/a'],
  ...[0, 1, 2, 3, 4, 5].map((i) => ['GET', `/oaslb/n${i}`]),
  ['GET', '/oasnolb/x'],
  ['GET', '/oashard/hang'],
  ['POST', '/oashard/ok'],
  ['GET', '/oasglobal/hang'],
  ['GET', '/oascb/flaky'],
  ['GET', '/oascb/flaky'],
  ['GET', '/oascb/flaky'],
  ['GET', '/oascb/other'],
  ['GET', '/oascache/count'],
  ['GET', '/oascache/count'],
  ['GET', '/oascache/count?x=1'],
  ['GET', '/oascache/flaky'],
  ['GET', '/oascache/flaky'],
  ['GET', '/oascache/off'],
  ['GET', '/oascache/off'],
  ['GET', '/oascache/other'],
  ['GET', '/oascache/other'],
  ['GET', '/oasskip/a?b=1'],
  ['GET', '/oastls13/a'],
  ['GET', '/oascipher/a'],
  ['GET', '/oasnocipher/a'],
  ['GET', '/oasmtls/a'],
  ['GET', '/oasmtlsoff/a'],
];

const tykPort = await freePort();
const svcPort = await freePort();
// Tyk reads OAS definitions from app_path only beside a classic one: it gets them through its API.
const apisFor = (name, ext) => Object.fromEntries(Object.entries(defs(ext)).filter(([, d]) => name === 'svc' || !d.openapi));
const tykFile = gatewayFolder(join(ROOT, 'tyk'), 'tyk', apisFor('tyk', 'x-tyk-api-gateway'), {
  secret: 's',
  ...tykConf({ port: tykPort, database: TYK_REDIS_DB, log_level: 'warn' }),
});
const svcFile = gatewayFolder(join(ROOT, 'svc'), 'svc', apisFor('svc', 'x-svc-api-gateway'), {
  listen_address: '127.0.0.1',
  listen_port: svcPort,
  secret: 's',
});
const engineYaml = join(ROOT, 'svc', 'engine.yaml');
// One process, as the one Tyk process: round robin, breakers and the memory cache are per process.
writeFileSync(
  engineYaml,
  `http: { enabled: false }\nlogger: { level: WARN }\ninput:\n  api_gateway: { conf: ${svcFile}, processes: 1 }\noutput:\n  gateway_proxy: {}\n`,
);
const procs = [startGateway(TYK_BIN, ['--conf', tykFile]), startGateway(join(REPO, 'node_modules/.bin/engine'), ['-c', engineYaml])];
await new Promise((r) => setTimeout(r, 8000));
for (const r of await addTykOasApis(
  tykPort,
  's',
  Object.values(defs('x-tyk-api-gateway')).filter((d) => d.openapi),
)) {
  if (!r.startsWith('200')) console.log('tyk OAS create:', r.trim());
}
function call(port, method, path, headers = {}) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false, timeout: 10_000 }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      const h = res.headers;
      const cached = h['x-tyk-cached-response'] ?? h['x-svc-cached-response'];
      res.on('end', () => resolve({ status: res.statusCode, type: h['content-type'], etag: h.etag, cached, body }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer in 10 s')));
    req.on('error', (e) => resolve({ error: e.message }));
    req.end();
  });
}

let differences = 0;
const results = {};
for (const [name, port] of [
  ['tyk', tykPort],
  ['svc', svcPort],
]) {
  results[name] = [];
  for (const [method, path, headers] of cases) {
    seen = [];
    const r = await call(port, method, path, headers);
    // Tyk keeps an answer in Redis from a goroutine: give it the time to land.
    if (path.startsWith('/cache/') || path.startsWith('/oascache/')) await new Promise((r) => setTimeout(r, 100));
    results[name].push({ ...r, upstream: seen.join(',').replace(/ .*/, '') });
  }
}
cases.forEach(([method, path, headers], i) => {
  const t = JSON.stringify(results.tyk[i]);
  const s = JSON.stringify(results.svc[i]);
  const same = t === s;
  if (!same) differences++;
  console.log(`${same ? 'same' : 'DIFF'} ${method} ${path}${headers ? ` ${JSON.stringify(headers)}` : ''}\n  tyk ${t}${same ? '' : `\n  svc ${s}`}`);
});
console.log(`${cases.length - differences} of ${cases.length} alike`);
if (process.env.SHOW_LOGS) console.log(procs.map((p) => p.logs()).join('\n----\n'));
for (const res of held) res.destroy();
await Promise.all(procs.map((p) => p.stop()));
for (const s of servers) s.close();
rmSync(ROOT, { recursive: true, force: true });
process.exit(differences === 0 ? 0 : 1);
