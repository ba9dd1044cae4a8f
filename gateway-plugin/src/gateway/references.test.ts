/**
 * External references end to end, in a real engine with the real loaders: an API definition whose
 * target URL is `env://NAME` is served at the variable's value, and the management API shows the
 * definition as written (the reference, never the value it resolved to: it may be a secret).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runGateway, writeGateway } from './engine-run.js';
import { apiSpec, call, freePort, gatewayConfig } from './test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-gw-refs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('gateway: external references in API definitions', () => {
  it('env:// in target_url: requests reach the value; GET /svc/apis/{id} shows the reference', async () => {
    const upstream = http.createServer((req, res) => res.end(`up:${req.url}`));
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const name = `SVC_TEST_UPSTREAM_${randomUUID().replace(/-/g, '').slice(0, 12).toUpperCase()}`;
    // The engine process inherits this environment.
    process.env[name] = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const port = await freePort();
    writeGateway(dir, gatewayConfig(port), [apiSpec('r', '/r', { targetUrl: `env://${name}` })]);
    const engine = await runGateway(dir, port, 'output:\n  gateway_proxy: {}');
    try {
      const r = await call(port, 'GET', '/r/x');
      assert.deepEqual([r.status, r.body], [200, 'up:/x'], engine.log());
      const shown = await call(port, 'GET', '/svc/apis/r', { headers: { 'x-svc-authorization': 'test-secret' } });
      assert.equal(shown.status, 200);
      const def = JSON.parse(shown.body) as { proxy: { target_url: string } };
      assert.equal(def.proxy.target_url, `env://${name}`);
      assert.ok(!shown.body.includes(String(process.env[name])), 'the resolved value is not shown');
    } finally {
      await engine.stop();
      delete process.env[name];
      await new Promise((r) => upstream.close(r));
    }
  });
});
