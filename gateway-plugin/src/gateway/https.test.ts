/**
 * HTTPS on the gateway's port (svc.conf `http_server_options.use_ssl`, `certificates`,
 * `min_version`, `ssl_ciphers`), on a real gateway process with certificates made here: the certificate by the
 * name the client asks for (SNI, `domain_name`), requests proxied over TLS, a client below
 * `min_version` refused at the handshake, no plain HTTP on the port, and `use_ssl` without a
 * certificate refused at start. And HTTPS upstreams with an API's `proxy.transport`:
 * `ssl_insecure_skip_verify`, `ssl_min_version`, `ssl_max_version`, `ssl_ciphers`, and the client certificate
 * of `upstream_certificates`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SecureVersion } from 'node:tls';
import { after, it } from 'node:test';
import { selfSignedCert } from '@svc/engine/testing';
import { runGateway, writeGateway, type EngineRun } from './engine-run.js';
import { call, freePort, gatewayConfig, upstreamForFile } from './test-support.js';

const up = upstreamForFile(
  http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end(`up:${req.url}`));
  }),
);

const dir = mkdtempSync(join(tmpdir(), 'svc-gw-https-'));
const engines: EngineRun[] = [];
after(async () => {
  for (const e of engines) await e.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface TlsReply {
  status: number;
  body: string;
  /** The subject CN of the certificate the gateway presented. */
  cn: string;
  protocol: string | null;
  /** The cipher suite negotiated (OpenSSL's name). */
  cipher: string;
}

/** `ciphers`: the only TLS 1.2 suites the client offers (OpenSSL names). */
function get(port: number, path: string, servername: string, maxVersion?: SecureVersion, ciphers?: string): Promise<TlsReply> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path,
        servername,
        rejectUnauthorized: false,
        agent: false,
        timeout: 10_000,
        ...(maxVersion ? { maxVersion } : {}),
        ...(ciphers ? { ciphers } : {}),
      },
      (res) => {
        const socket = res.socket as import('node:tls').TLSSocket;
        const cn = String(socket.getPeerCertificate().subject?.CN ?? '');
        const protocol = socket.getProtocol();
        const cipher = socket.getCipher().name;
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, cn, protocol, cipher }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer in 10 s')));
    req.on('error', reject);
    req.end();
  });
}

function api(id: string, target: string, transport?: Record<string, unknown>, more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...more,
    api_id: id,
    name: id,
    use_keyless: true,
    proxy: { listen_path: `/${id}/`, target_url: target, strip_listen_path: true, ...(transport ? { transport } : {}) },
    version_data: { not_versioned: true, versions: { Default: { name: 'Default' } } },
  };
}

async function gateway(
  options: Record<string, unknown>,
  failOn?: RegExp,
  more: Record<string, Record<string, unknown>> = {},
): Promise<{ port: number; engine: EngineRun }> {
  const d = mkdtempSync(join(dir, 'gw-'));
  const port = await freePort();
  writeGateway(d, { ...gatewayConfig(port), http_server_options: { xff_depth: 0, ...options } } as ReturnType<typeof gatewayConfig>, []);
  writeFileSync(join(d, 'apps', 'api.json'), JSON.stringify(api('api', up.url())));
  for (const [id, def] of Object.entries(more)) writeFileSync(join(d, 'apps', `${id}.json`), JSON.stringify(def));
  const engine = await runGateway(d, port, 'output:\n  gateway_proxy: {}', {
    ready: () =>
      get(port, '/hello', 'localhost').then(
        (r) => r.status === 200,
        () => false,
      ),
    ...(failOn ? { failOn } : {}),
  });
  engines.push(engine);
  return { port, engine };
}

it('serves HTTPS with the certificate of the name asked for, from min_version; no plain HTTP', async (t) => {
  const a = selfSignedCert(dir, 'a.test');
  const b = selfSignedCert(dir, 'b.test');
  if (a === undefined || b === undefined) return t.skip('openssl is not installed');
  const { port } = await gateway({
    use_ssl: true,
    min_version: 772,
    certificates: [
      { domain_name: 'a.test', cert_file: a.cert, key_file: a.key },
      // domain_name wins over the certificate's own name (b.test).
      { domain_name: 'api.example', cert_file: b.cert, key_file: b.key },
    ],
  });
  const ra = await get(port, '/api/x?q=1', 'a.test');
  assert.equal(ra.status, 200);
  assert.equal(ra.body, 'up:/x?q=1');
  assert.equal(ra.cn, 'a.test');
  assert.equal(ra.protocol, 'TLSv1.3');
  assert.equal((await get(port, '/api/y', 'api.example')).cn, 'b.test');
  assert.equal((await get(port, '/api/y', 'b.test')).cn, 'b.test');
  // A name no certificate has: the first one, as Go.
  assert.equal((await get(port, '/api/y', 'other.test')).cn, 'a.test');
  // Below min_version (TLS 1.3 here): no handshake.
  await assert.rejects(get(port, '/api/x', 'a.test', 'TLSv1.2'));
  // Plain HTTP on the TLS port gets no answer.
  await assert.rejects(call(port, 'GET', '/api/x', { timeoutMs: 3000 }));
});

it('accepts only the TLS 1.2 cipher suites of ssl_ciphers (Go names); TLS 1.3 suites stay as Go leaves them', async (t) => {
  const a = selfSignedCert(dir, 'ciphers.test');
  if (a === undefined) return t.skip('openssl is not installed');
  const { port } = await gateway({
    use_ssl: true,
    certificates: [{ domain_name: '', cert_file: a.cert, key_file: a.key }],
    // The certificate's key is ECDSA. Tyk's legacy CHACHA20 name and a TLS 1.3 suite (not configurable in Go) beside a GCM one.
    ssl_ciphers: ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'tls_ecdhe_ecdsa_with_chacha20_poly1305', 'TLS_AES_128_GCM_SHA256'],
  });
  const gcm = await get(port, '/api/x', 'ciphers.test', 'TLSv1.2', 'ECDHE-ECDSA-AES128-GCM-SHA256');
  assert.equal(gcm.status, 200);
  assert.equal(gcm.protocol, 'TLSv1.2');
  assert.equal(gcm.cipher, 'ECDHE-ECDSA-AES128-GCM-SHA256');
  assert.equal((await get(port, '/api/x', 'ciphers.test', 'TLSv1.2', 'ECDHE-ECDSA-CHACHA20-POLY1305')).cipher, 'ECDHE-ECDSA-CHACHA20-POLY1305');
  // A TLS 1.2 client offering only suites not listed: no handshake.
  await assert.rejects(get(port, '/api/x', 'ciphers.test', 'TLSv1.2', 'ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-SHA'));
  // TLS 1.3 keeps its default suites, as in Go (TLS_AES_128_GCM_SHA256 listed or not).
  const tls13 = await get(port, '/api/x', 'ciphers.test');
  assert.equal(tls13.protocol, 'TLSv1.3');
  assert.equal(tls13.cipher, 'TLS_AES_256_GCM_SHA384');
});

it('refuses to start with an ssl_ciphers name Go does not know, naming it', async (t) => {
  const a = selfSignedCert(dir, 'ciphers-bad.test');
  if (a === undefined) return t.skip('openssl is not installed');
  const d = mkdtempSync(join(dir, 'gw-'));
  const port = await freePort();
  const options = {
    xff_depth: 0,
    use_ssl: true,
    certificates: [{ domain_name: '', cert_file: a.cert, key_file: a.key }],
    ssl_ciphers: ['ECDHE-RSA-AES128-GCM-SHA256'],
  };
  writeGateway(d, { ...gatewayConfig(port), http_server_options: options } as ReturnType<typeof gatewayConfig>, []);
  await assert.rejects(
    runGateway(d, port, 'output:\n  gateway_proxy: {}', { waitMs: 15_000, failOn: /not a Go cipher suite name/ }),
    /ssl_ciphers: \\?"ECDHE-RSA-AES128-GCM-SHA256\\?" is not a Go cipher suite name/,
  );
});

it('refuses to start with use_ssl and no certificate, rather than serve plain HTTP', async () => {
  const d = mkdtempSync(join(dir, 'gw-'));
  const port = await freePort();
  writeGateway(d, { ...gatewayConfig(port), http_server_options: { xff_depth: 0, use_ssl: true } } as ReturnType<typeof gatewayConfig>, []);
  await assert.rejects(
    runGateway(d, port, 'output:\n  gateway_proxy: {}', { waitMs: 60_000, failOn: /certificates is empty/ }),
    /use_ssl is on but certificates is empty/,
  );
});

it('proxies to an HTTPS upstream as proxy.transport says: verified by default, ssl_insecure_skip_verify, ssl_min_version', async (t) => {
  const made = selfSignedCert(dir, 'upstream.test');
  if (made === undefined) return t.skip('openssl is not installed');
  const { readFileSync } = await import('node:fs');
  // A TLS 1.2-only upstream with a certificate no CA signed.
  const upstream = https.createServer({ cert: readFileSync(made.cert), key: readFileSync(made.key), maxVersion: 'TLSv1.2' }, (req, res) =>
    res.end(`tls-up:${req.url}`),
  );
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  t.after(() => {
    upstream.closeAllConnections();
    upstream.close();
  });
  const target = `https://127.0.0.1:${(upstream.address() as import('node:net').AddressInfo).port}`;
  const port = await freePort();
  const d = mkdtempSync(join(dir, 'gw-'));
  writeGateway(d, gatewayConfig(port), []);
  const defs = {
    verified: api('verified', target),
    skip: api('skip', target, { ssl_insecure_skip_verify: true }),
    tls13: api('tls13', target, { ssl_insecure_skip_verify: true, ssl_min_version: 772 }),
  };
  for (const [id, def] of Object.entries(defs)) writeFileSync(join(d, 'apps', `${id}.json`), JSON.stringify(def));
  engines.push(await runGateway(d, port, 'output:\n  gateway_proxy: {}'));
  // Not signed by a known CA: Tyk's 500.
  assert.equal((await call(port, 'GET', '/verified/a')).status, 500);
  const skipped = await call(port, 'GET', '/skip/a?b=1');
  assert.equal(skipped.status, 200);
  assert.equal(skipped.body, 'tls-up:/a?b=1');
  // The upstream speaks TLS 1.2 at most: no handshake from TLS 1.3 up.
  assert.equal((await call(port, 'GET', '/tls13/a')).status, 500);
});

it('offers an HTTPS upstream only the TLS 1.2 suites of proxy.transport.ssl_ciphers (Go names)', async (t) => {
  const made = selfSignedCert(dir, 'ciphers-up.test');
  if (made === undefined) return t.skip('openssl is not installed');
  const { readFileSync } = await import('node:fs');
  // TLS 1.2 only, so the suite is one ssl_ciphers governs; the key is ECDSA.
  const upstream = https.createServer({ cert: readFileSync(made.cert), key: readFileSync(made.key), maxVersion: 'TLSv1.2' }, (req, res) =>
    res.end((req.socket as import('node:tls').TLSSocket).getCipher().name),
  );
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  t.after(() => {
    upstream.closeAllConnections();
    upstream.close();
  });
  const target = `https://127.0.0.1:${(upstream.address() as import('node:net').AddressInfo).port}`;
  const port = await freePort();
  const d = mkdtempSync(join(dir, 'gw-'));
  writeGateway(d, gatewayConfig(port), []);
  const transport = (ciphers: string[]) => ({ ssl_insecure_skip_verify: true, ssl_ciphers: ciphers });
  const defs = {
    aes256: api('aes256', target, transport(['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'])),
    chacha: api('chacha', target, transport(['TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305'])),
    rsaonly: api('rsaonly', target, transport(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'])),
  };
  for (const [id, def] of Object.entries(defs)) writeFileSync(join(d, 'apps', `${id}.json`), JSON.stringify(def));
  engines.push(await runGateway(d, port, 'output:\n  gateway_proxy: {}'));
  assert.equal((await call(port, 'GET', '/aes256/a')).body, 'ECDHE-ECDSA-AES256-GCM-SHA384');
  assert.equal((await call(port, 'GET', '/chacha/a')).body, 'ECDHE-ECDSA-CHACHA20-POLY1305');
  // No suite both offer (the upstream's key is ECDSA): no handshake, Tyk's 500.
  assert.equal((await call(port, 'GET', '/rsaonly/a')).status, 500);
});

it('presents the client certificate of upstream_certificates to an upstream that asks for one', async (t) => {
  const server = selfSignedCert(dir, 'mtls-server.test');
  const client = selfSignedCert(dir, 'mtls-client.test');
  if (server === undefined || client === undefined) return t.skip('openssl is not installed');
  const { readFileSync } = await import('node:fs');
  const both = join(dir, 'client-both.pem');
  writeFileSync(both, Buffer.concat([readFileSync(client.cert), readFileSync(client.key)]));
  // Only a client presenting the client certificate gets an answer.
  const upstream = https.createServer(
    { cert: readFileSync(server.cert), key: readFileSync(server.key), ca: readFileSync(client.cert), requestCert: true, rejectUnauthorized: true },
    (req, res) => res.end(`mtls:${(req.socket as import('node:tls').TLSSocket).getPeerCertificate().subject?.CN ?? ''}`),
  );
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  t.after(() => {
    upstream.closeAllConnections();
    upstream.close();
  });
  const host = `127.0.0.1:${(upstream.address() as import('node:net').AddressInfo).port}`;
  const port = await freePort();
  const d = mkdtempSync(join(dir, 'gw-'));
  writeGateway(d, gatewayConfig(port), []);
  const skip = { ssl_insecure_skip_verify: true };
  const defs = {
    nocert: api('nocert', `https://${host}`, skip),
    bycert: api('bycert', `https://${host}`, skip, { upstream_certificates: { [host]: both, 'other.test': '/nonexistent.pem' } }),
    wild: api('wild', `https://${host}`, skip, { upstream_certificates: { '*': both } }),
    off: api('off', `https://${host}`, skip, { upstream_certificates: { '*': both }, upstream_certificates_disabled: true }),
  };
  for (const [id, def] of Object.entries(defs)) writeFileSync(join(d, 'apps', `${id}.json`), JSON.stringify(def));
  engines.push(await runGateway(d, port, 'output:\n  gateway_proxy: {}'));
  assert.equal((await call(port, 'GET', '/nocert/a')).status, 500);
  const by = await call(port, 'GET', '/bycert/a');
  assert.equal(by.status, 200);
  assert.equal(by.body, 'mtls:mtls-client.test');
  assert.equal((await call(port, 'GET', '/wild/a')).body, 'mtls:mtls-client.test');
  assert.equal((await call(port, 'GET', '/off/a')).status, 500);
});
