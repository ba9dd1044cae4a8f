/**
 * `/svc/reload` swaps the APIs without dropping requests: in a real engine with the real
 * `gateway_proxy`, requests in flight on an API the reload removes finish on the API they were
 * routed to, requests under load on an API that stays all succeed across several reloads, and
 * after the reload the removed API is Tyk's 404 and the added one serves.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runGateway, writeApis, writeGateway } from './engine-run.js';
import { apiSpec, call, freePort, gatewayConfig, waitFor } from './test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-gw-reload-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('reload under load', () => {
  it('in-flight requests finish on their API; load on a kept API never fails; the new set serves', async () => {
    // The upstream holds `/slow` until released; everything else is answered at once.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let held = 0;
    const upstream = http.createServer((req, res) => {
      const answer = () => res.end(`up:${req.url}`);
      if (req.url === '/slow') {
        held++;
        void released.then(answer);
      } else answer();
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const port = await freePort();
    const a = apiSpec('a', '/a', { targetUrl: target });
    const b = apiSpec('b', '/b', { targetUrl: target });
    const c = apiSpec('c', '/c', { targetUrl: target });
    writeGateway(dir, gatewayConfig(port), [a, c]);
    const engine = await runGateway(dir, port, 'output:\n  gateway_proxy: {}');
    const auth = { 'x-svc-authorization': 'test-secret' };
    try {
      const inFlight = Array.from({ length: 10 }, () => call(port, 'GET', '/a/slow'));
      await waitFor(() => held === 10, 'the upstream to hold 10 requests');

      let loading = true;
      const statuses: number[] = [];
      const load = Array.from({ length: 4 }, async () => {
        while (loading) statuses.push((await call(port, 'GET', '/c/fast')).status);
      });

      writeApis(dir, [b, c]);
      assert.equal((await call(port, 'GET', '/svc/reload', { headers: auth })).body, '{"status":"ok","message":""}\n');
      const gone = await call(port, 'GET', '/a/x');
      assert.equal(gone.status, 404);
      assert.equal(gone.body, 'Not Found');
      assert.equal((await call(port, 'GET', '/b/x')).body, 'up:/x');
      for (let i = 0; i < 5; i++) {
        writeApis(dir, i % 2 ? [b, c] : [c, b]);
        assert.equal((await call(port, 'GET', '/svc/reload/group', { headers: auth })).status, 200);
      }
      await waitFor(() => statuses.length >= 50, 'some load across the reloads');

      release();
      for (const r of await Promise.all(inFlight)) {
        assert.equal(r.status, 200);
        assert.equal(r.body, 'up:/slow');
      }
      loading = false;
      await Promise.all(load);
      assert.deepEqual(
        statuses.filter((s) => s !== 200),
        [],
        `${statuses.length} requests under load`,
      );
      assert.equal(await engine.stop(), 0, engine.log());
    } finally {
      release();
      upstream.closeAllConnections();
      await new Promise((r) => upstream.close(r));
    }
  });
});
