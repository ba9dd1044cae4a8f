/**
 * A JWKS endpoint that trickles its answer (one byte every 200 ms, never ending), in a real engine
 * with a real gateway (issue 31, item 2): the fetch has a total deadline, so a request needing the
 * key set is answered (Tyk's 403, the key is unknown) instead of hanging, the gateway drops the
 * connection to the endpoint, and the other APIs keep answering meanwhile.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tykErrorBody } from '../kernel/errors.js';
import { runGateway, writeGateway } from '../gateway/engine-run.js';
import { apiSpec, call, freePort, gatewayConfig, waitFor } from '../gateway/test-support.js';
import { nowS, signJwt } from './jwt-support.test-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-gw-jwks-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('a trickling JWKS endpoint', () => {
  it('the fetch is cut at its deadline: the request is answered, the connection to the endpoint closed', async () => {
    let fetches = 0;
    const open = new Set<Socket>();
    const timers = new Set<NodeJS.Timeout>();
    const jwks = http.createServer((_req, res) => {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"keys":[');
      const t = setInterval(() => res.write(' '), 200);
      timers.add(t);
      res.once('close', () => clearInterval(t));
    });
    jwks.on('connection', (s: Socket) => {
      open.add(s);
      s.once('close', () => open.delete(s));
    });
    const upstream = http.createServer((req, res) => res.end(`up:${req.url}`));
    await Promise.all([jwks, upstream].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
    const port = await freePort();
    writeGateway(dir, gatewayConfig(port), [apiSpec('open', '/open', { targetUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` })]);
    writeFileSync(
      join(dir, 'apps', 'jwks.json'),
      JSON.stringify({
        api_id: 'jwks',
        name: 'jwks',
        org_id: 'o',
        active: true,
        enable_jwt: true,
        jwt_signing_method: 'rsa',
        jwt_source: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`,
        jwt_identity_base_field: 'sub',
        jwt_default_policies: [],
        proxy: { listen_path: '/jwks/', target_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, strip_listen_path: true },
        version_data: { not_versioned: true, versions: { Default: { name: 'Default' } } },
      }),
    );
    const engine = await runGateway(dir, port, 'pipeline: { threads: 1, processors: [ { gateway: {} } ] }\noutput:\n  gateway_proxy: {}');
    try {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const token = signJwt('RS256', { sub: 'u', iat: nowS(), exp: nowS() + 600 }, privateKey, { kid: 'k1' });
      const waiting = call(port, 'GET', '/jwks/x', { headers: { authorization: `Bearer ${token}` } });
      await waitFor(() => fetches === 1, 'the gateway to fetch the JWKS');
      // Another API answers while the fetch trickles.
      assert.equal((await call(port, 'GET', '/open/y')).body, 'up:/y');
      const r = await waiting;
      assert.equal(r.status, 403, r.body);
      assert.equal(r.body, tykErrorBody('Key not authorized'));
      await waitFor(() => open.size === 0, 'the gateway to close its connection to the JWKS endpoint');
    } finally {
      await engine.stop();
      for (const t of timers) clearInterval(t);
      for (const s of [jwks, upstream]) s.closeAllConnections();
      await Promise.all([jwks, upstream].map((s) => new Promise((r) => s.close(r))));
    }
  });
});
