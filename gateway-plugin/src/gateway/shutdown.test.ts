/**
 * SIGINT with requests in flight, in a real engine with the real `gateway_proxy`: the gateway
 * stops accepting at once, the requests in flight finish with the upstream's answer, and the
 * engine exits 0 once they did (issue 15's shutdown rules, for the gateway's input).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runGateway, writeGateway } from './engine-run.js';
import { apiSpec, call, freePort, gatewayConfig, waitFor } from './test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-gw-shutdown-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('gateway shutdown', () => {
  it('SIGINT: stops accepting, finishes the requests in flight, exits 0', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let held = 0;
    const upstream = http.createServer((req, res) => {
      // Probes sent before the gateway stopped accepting are answered at once.
      if (req.url === '/late') return res.end('late');
      held++;
      void released.then(() => res.end(`up:${req.url}`));
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const port = await freePort();
    writeGateway(dir, gatewayConfig(port), [apiSpec('a', '/a', { targetUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` })]);
    const engine = await runGateway(dir, port, 'output:\n  gateway_proxy: {}');
    try {
      const inFlight = Array.from({ length: 5 }, (_, i) => call(port, 'GET', `/a/${i}`));
      await waitFor(() => held === 5, 'the upstream to hold 5 requests');
      const stopped = engine.stop();
      await waitFor(
        () =>
          call(port, 'GET', '/a/late').then(
            () => false,
            () => true,
          ),
        'the gateway to stop accepting',
      );
      release();
      const replies = await Promise.all(inFlight);
      assert.deepEqual(
        replies.map((r) => [r.status, r.body]),
        [0, 1, 2, 3, 4].map((i) => [200, `up:/${i}`]),
      );
      assert.equal(await stopped, 0, engine.log());
    } finally {
      release();
      upstream.closeAllConnections();
      await new Promise((r) => upstream.close(r));
    }
  });
});
