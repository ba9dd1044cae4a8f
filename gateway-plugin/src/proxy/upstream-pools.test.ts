/**
 * Upstream pools are bounded, in a real engine with a real gateway (issue 31, item 5): a rewrite
 * whose target port comes from a request header reaches 40 upstream origins (40 servers on
 * 127.0.0.1), yet at most `max_upstreams` pools stay open (the least recently used closed, its
 * connections with it), and pools unused for `keep_alive_timeout` are closed. Counted by the
 * upstreams' open connections and by the `gateway_upstream_pools` gauge on /metrics.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runGateway, writeGateway } from '../gateway/engine-run.js';
import { apiSpec, call, freePort, gatewayConfig, waitFor } from '../gateway/test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-gw-pools-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ORIGINS = 40;
const open = new Set<Socket>();
const upstreams: http.Server[] = [];
before(async () => {
  for (let i = 0; i < ORIGINS; i++) {
    const s = http.createServer((req, res) => res.end(`up${i}:${req.url}`));
    // Idle connections are the gateway's to close, not the upstream's.
    s.keepAliveTimeout = 120_000;
    s.on('connection', (c: Socket) => {
      open.add(c);
      c.once('close', () => open.delete(c));
    });
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    upstreams.push(s);
  }
});
after(async () => {
  for (const s of upstreams) s.closeAllConnections();
  await Promise.all(upstreams.map((s) => new Promise((r) => s.close(r))));
});

const portOf = (s: http.Server) => (s.address() as AddressInfo).port;

/** The value of the open-pools gauge on /metrics. */
async function openPools(metricsPort: number): Promise<number> {
  const text = (await call(metricsPort, 'GET', '/metrics')).body;
  const m = /^svc_gateway_upstream_pools\{[^}]*\} (\d+)$/m.exec(text);
  assert.ok(m, `no gateway_upstream_pools gauge in:\n${text}`);
  return Number(m[1]);
}

async function gateway(proxy: string) {
  const port = await freePort();
  const metricsPort = await freePort();
  const rewrite = {
    path: '/',
    method: 'GET',
    matchPattern: '(.*)',
    rewriteTo: '/plain',
    triggers: [
      {
        on: 'all' as const,
        rules: { header: [{ key: 'X-Port', matchRx: '^(\\d+)$', reverse: false }] },
        rewriteTo: 'http://127.0.0.1:$svc_context.trigger-0-X-Port-0-0/p',
      },
    ],
  };
  writeGateway(dir, gatewayConfig(port), [apiSpec('any', '/any', { targetUrl: `http://127.0.0.1:${portOf(upstreams[0]!)}`, urlRewrites: [rewrite] })]);
  const engine = await runGateway(
    dir,
    port,
    `pipeline: { threads: 1, processors: [ { gateway_url_rewrite: {} } ] }\noutput:\n  gateway_proxy: ${proxy}\nmetrics:\n  prometheus: {}`,
    { httpAddress: `127.0.0.1:${metricsPort}` },
  );
  return { port, metricsPort, engine };
}

describe('upstream pools', () => {
  it('at most max_upstreams pools: the least recently used is closed with its connections', async () => {
    const { port, metricsPort, engine } = await gateway('{ max_upstreams: 8, keep_alive_timeout: 120s }');
    try {
      for (const s of upstreams) {
        const r = await call(port, 'GET', '/any/x', { headers: { 'x-port': String(portOf(s)) } });
        assert.equal(r.body, `up${upstreams.indexOf(s)}:/p`);
      }
      assert.equal(await openPools(metricsPort), 8);
      await waitFor(() => open.size <= 8, `at most 8 upstream connections open (${open.size})`);
      assert.equal(await engine.stop(), 0, engine.log());
    } finally {
      await engine.stop();
    }
  });

  it('a pool unused for keep_alive_timeout is closed', async () => {
    const { port, metricsPort, engine } = await gateway('{ keep_alive_timeout: 1s }');
    try {
      for (const s of upstreams.slice(0, 10)) await call(port, 'GET', '/any/x', { headers: { 'x-port': String(portOf(s)) } });
      assert.ok((await openPools(metricsPort)) > 0);
      await waitFor(async () => (await openPools(metricsPort)) === 0, 'every idle pool to be closed');
    } finally {
      await engine.stop();
    }
  });
});
