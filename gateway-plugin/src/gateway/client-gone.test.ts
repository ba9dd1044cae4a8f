/**
 * Clients that leave while a stage of their request waits, in a real engine with a real gateway
 * (issue 31, item 2): the api_gateway input lets 1,024 requests be in the processors at once; a
 * request whose client closed its connection frees its slot at once, so 1,100 requests stuck on
 * a stage that never finishes (`test_hold`, a stand-in for a stalled identity provider) whose
 * clients left do not stop the gateway from answering the next request.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runGateway, writeGateway } from './engine-run.js';
import { apiSpec, call, freePort, gatewayConfig, waitFor } from './test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-gw-gone-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('clients that leave', () => {
  it('free their pipeline slots: 1,100 stuck requests whose clients left do not block the next one', async () => {
    const upstream = http.createServer((req, res) => res.end(`up:${req.url}`));
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const port = await freePort();
    writeGateway(dir, gatewayConfig(port), [apiSpec('a', '/a', { targetUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` })]);
    const engine = await runGateway(dir, port, 'pipeline: { threads: 1, processors: [ { test_hold: {} } ] }\noutput:\n  gateway_proxy: {}');
    const clients: net.Socket[] = [];
    try {
      for (let i = 0; i < 1100; i++) {
        const s = net.connect(port, '127.0.0.1');
        s.on('error', () => undefined);
        s.write(`GET /a/held-${i} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test-Hold: 1\r\n\r\n`);
        clients.push(s);
      }
      // Every slot is taken (the rest wait in the input's queue).
      await waitFor(() => engine.log().includes('test_hold: 1024 held'), 'the stage to hold 1,024 requests');
      for (const s of clients) s.destroy();
      const r = await call(port, 'GET', '/a/next');
      assert.equal(r.status, 200, r.body);
      assert.equal(r.body, 'up:/next');
      assert.equal(await engine.stop(), 0, engine.log());
    } finally {
      for (const s of clients) s.destroy();
      await engine.stop();
      upstream.closeAllConnections();
      await new Promise((r) => upstream.close(r));
    }
  });
});
