/**
 * The gateway's metrics in a real engine, as Prometheus scrapes them: requests per API and status
 * code (whoever answered: the router's 404, gateway_auth's refusal, the upstream through the
 * proxy) and latency per API.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runGateway, writeGateway } from './engine-run.js';
import { waitFor } from '@svc/engine/testing';
import { apiSpec, call, freePort, gatewayConfig } from './test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-gw-metrics-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The value of the sample of `name` whose labels include every one of `labels` (0 when none). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{')) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

/** The sum of every sample of `name` whose labels include every one of `labels`: what a dashboard's sum() reads. */
function total(text: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(name + '{') && Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

describe('gateway metrics', () => {
  it('counts each request once by API and status code (a client gone before the status is 499), and times them by API', async () => {
    const held: http.ServerResponse[] = [];
    const upstream = http.createServer((req, res) => (req.url === '/open/slow' || req.url === '/slow' ? held.push(res) : res.end('ok')));
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const port = await freePort();
    const metricsPort = await freePort();
    writeGateway(dir, gatewayConfig(port), [
      apiSpec('open', '/open', { targetUrl: target }),
      apiSpec('locked', '/locked', { targetUrl: target, keyless: false, standardAuth: true }),
    ]);
    const engine = await runGateway(
      dir,
      port,
      `pipeline:
  processors:
    - gateway: {}
output:
  gateway_proxy: {}
metrics:
  prometheus: {}`,
      { httpAddress: `127.0.0.1:${metricsPort}` },
    );
    try {
      for (let i = 0; i < 3; i++) assert.equal((await call(port, 'GET', '/open/x')).status, 200);
      for (let i = 0; i < 2; i++) assert.equal((await call(port, 'GET', '/locked/x')).status, 401);
      assert.equal((await call(port, 'GET', '/nowhere')).status, 404);
      const text = (await call(metricsPort, 'GET', '/metrics')).body;
      assert.equal(sample(text, 'svc_gateway_requests', { api_id: 'open', code: '200', path: 'root.input' }), 3, text);
      assert.equal(sample(text, 'svc_gateway_requests', { api_id: 'locked', code: '401', path: 'root.input' }), 2);
      assert.equal(sample(text, 'svc_gateway_requests', { api_id: '', code: '404' }), 1);
      assert.equal(sample(text, 'svc_gateway_latency_count', { api_id: 'open', path: 'root.input' }), 3);
      assert.equal(sample(text, 'svc_gateway_latency_count', { api_id: 'locked', path: 'root.input' }), 2);
      // A dashboard sums the family over every component: a proxied request is there once (the
      // proxy output counted it a second time before, so 6 read for 3 and "not 2xx" halved).
      assert.equal(total(text, 'svc_gateway_requests', { api_id: 'open', code: '200' }), 3, text);
      assert.equal(total(text, 'svc_gateway_latency_count', { api_id: 'open' }), 3, text);
      // A client that leaves while the upstream holds the answer.
      const gone = new AbortController();
      const pending = fetch(`http://127.0.0.1:${port}/open/slow`, { signal: gone.signal }).catch(() => undefined);
      await waitFor('the upstream to hold the request', async () => (held.length > 0 ? true : undefined), 10_000);
      gone.abort();
      await pending;
      await waitFor(
        'the gone client counted as 499',
        async () =>
          total((await call(metricsPort, 'GET', '/metrics')).body, 'svc_gateway_requests', { api_id: 'open', code: '499' }) === 1 ? true : undefined,
        10_000,
      );
      for (const r of held) r.end('late');
      assert.equal(await engine.stop(), 0, engine.log());
    } finally {
      await new Promise((r) => upstream.close(r));
    }
  });
});
