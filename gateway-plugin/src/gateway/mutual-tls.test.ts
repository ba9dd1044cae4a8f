/**
 * mTLS client certificates (`use_mutual_tls_auth` with `client_certificates`, issue 40) against a
 * real gateway process serving HTTPS: a client's own certificate on the allow-list (a PEM file's
 * path, or the PEM text), one a listed CA issued, a stranger's and none; an API without mTLS on
 * the same port serves them all. Certificates are made with openssl at test time. The answers are
 * what Tyk v5.14.0 answered on the same definitions: `scripts/tyk-diff-mtls.mjs` (14/14 the same,
 * and 7/7 with `--only-mtls`, with and without SNI).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createHash, X509Certificate } from 'node:crypto';
import { definitionGateway, tykBody, type Def } from './definition-fixtures.js';
import { runGateway, writeGateway, type EngineRun } from './engine-run.js';
import { freePort, gatewayConfig, upstreamForFile } from './test-support.js';
import { clientTls, mtlsCertificates, type Pair } from './client-certificates.test-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-mtls-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const certs = mtlsCertificates(dir);

const up = upstreamForFile(
  http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`up ${req.url}`);
  }),
);

function def(id: string, more: Def = {}): Def {
  return {
    api_id: id,
    name: id,
    use_keyless: true,
    proxy: { listen_path: `/${id}/`, target_url: up.url(), strip_listen_path: true },
    version_data: { not_versioned: true, versions: { Default: { name: 'Default', use_extended_paths: true, extended_paths: {} } } },
    ...more,
  };
}

function get(port: number, path: string, pair?: Pair, servername = 'localhost'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, path, servername, rejectUnauthorized: false, agent: false, ...(pair ? clientTls(pair) : {}) },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A gateway process serving HTTPS with `defs` (as definitionGateway, which waits for plain HTTP). */
async function httpsGateway(defs: Record<string, Def>): Promise<{ port: number; engine: EngineRun }> {
  const d = mkdtempSync(join(dir, 'gw-'));
  const port = await freePort();
  const tls = { use_ssl: true, certificates: [{ domain_name: 'localhost', cert_file: certs.server.cert, key_file: certs.server.key }] };
  writeGateway(d, { ...gatewayConfig(port), http_server_options: tls } as ReturnType<typeof gatewayConfig>, []);
  for (const [name, def] of Object.entries(defs)) writeFileSync(join(d, 'apps', name), JSON.stringify(def));
  const ready = () =>
    get(port, '/hello').then(
      (r) => r.status === 200,
      () => false,
    );
  const engine = await runGateway(d, port, 'pipeline:\n  processors:\n    - gateway: {}\noutput:\n  gateway_proxy: {}', { ready });
  return { port, engine };
}

const sha256 = (p: Pair) =>
  createHash('sha256')
    .update(new X509Certificate(readFileSync(p.cert)).raw)
    .digest('hex');

describe('mTLS client certificates (Tyk: gateway/mw_certificate_check.go, internal/crypto ValidateRequestCerts)', () => {
  it('serves a listed certificate or one a listed CA issued; refuses the others with Tyk’s 403s', async () => {
    const { port, engine } = await httpsGateway({
      'mtls.json': def('mtls', { use_mutual_tls_auth: true, client_certificates: [certs.allowed.cert, certs.ca.cert] }),
      'inline.json': def('inline', { use_mutual_tls_auth: true, client_certificates: [readFileSync(certs.allowed.cert, 'utf8')] }),
      'open.json': def('open'),
      'store.json': def('store', { use_mutual_tls_auth: true, client_certificates: ['5f3a0b1c2d3e4f5a6b7c8d9e0f1a2b3c'] }),
    });
    try {
      const required = [403, tykBody('Client TLS certificate is required')];
      for (const sni of ['localhost', '']) {
        assert.deepEqual(Object.values(await get(port, '/mtls/x', undefined, sni)), required, `no certificate (SNI "${sni}")`);
        assert.deepEqual(Object.values(await get(port, '/mtls/x', certs.allowed, sni)), [200, 'up /x']);
        assert.deepEqual(Object.values(await get(port, '/mtls/x', certs.issued, sni)), [200, 'up /x'], 'issued by the listed CA');
        assert.deepEqual(Object.values(await get(port, '/mtls/x', certs.stranger, sni)), [
          403,
          tykBody(`Certificate with SHA256 ${sha256(certs.stranger)} not allowed`),
        ]);
      }
      assert.deepEqual(Object.values(await get(port, '/inline/x', certs.allowed)), [200, 'up /x'], 'the PEM text itself');
      assert.equal((await get(port, '/inline/x', certs.issued)).status, 403);
      for (const pair of [undefined, certs.allowed, certs.stranger]) assert.deepEqual(Object.values(await get(port, '/open/x', pair)), [200, 'up /x']);
      // An id of Tyk's certificate store is refused at load; the other APIs serve.
      assert.equal((await get(port, '/store/x', certs.allowed)).status, 404);
      assert.match(engine.log(), /client_certificates\[0\]: not supported/);
    } finally {
      await engine.stop();
    }
  });

  it('on a plain HTTP port an mTLS API answers Tyk’s 403 "TLS not enabled"', async () => {
    const { port, engine } = await definitionGateway({ 'mtls.json': def('mtls', { use_mutual_tls_auth: true, client_certificates: [certs.allowed.cert] }) });
    try {
      const r = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/mtls/x', agent: false }, (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          })
          .on('error', reject);
      });
      assert.deepEqual(Object.values(r), [403, tykBody('TLS not enabled')]);
    } finally {
      await engine.stop();
    }
  });
});
