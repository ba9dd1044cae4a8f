/**
 * One gateway node, one state: with `processes: 2` the circuit breakers, the load balancer's turn
 * and the memory response cache are the node's (the primary keeps them), so the node answers as
 * one Tyk v5.14.0 node does. Each request opens its own connection, and the primary hands
 * connections to the children in turn, so consecutive requests land on different processes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { childPids, runGateway, writeGateway, type EngineRun } from '../gateway/engine-run.js';
import { call, freePort, gatewayConfig, upstreamForFile, waitFor } from '../gateway/test-support.js';

/** Requests each upstream got, by name. */
const seen: string[] = [];
let counted = 0;

function upstream(name: string): http.Server {
  return http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(`${name} ${req.url}`);
      const path = (req.url ?? '').split('?')[0];
      if (path === '/flaky') res.statusCode = 500;
      if (path?.startsWith('/count')) return void res.end(`count:${++counted}`);
      res.end(`${name}:${req.url}`);
    });
  });
}

const u0 = upstreamForFile(upstream('u0'));
const u1 = upstreamForFile(upstream('u1'));
const u2 = upstreamForFile(upstream('u2'));

const dirs: string[] = [];
const engines: EngineRun[] = [];
after(async () => {
  for (const e of engines) await e.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Def = Record<string, unknown>;

function classic(id: string, proxy: Def = {}, paths: Def = {}, rest: Def = {}): Def {
  return {
    api_id: id,
    name: id,
    use_keyless: true,
    proxy: { listen_path: `/${id}/`, target_url: u0.url(), strip_listen_path: true, ...proxy },
    version_data: { not_versioned: true, versions: { Default: { name: 'Default', use_extended_paths: true, extended_paths: paths } } },
    ...rest,
  };
}

/** A gateway of two processes serving `def`, once both serve. */
async function twoProcesses(def: Def): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-gw-node-'));
  dirs.push(dir);
  const port = await freePort();
  writeGateway(dir, gatewayConfig(port), []);
  writeFileSync(join(dir, 'apps', `${def.api_id as string}.json`), JSON.stringify(def));
  const engine = await runGateway(dir, port, 'output:\n  gateway_proxy: {}', { input: 'processes: 2' });
  engines.push(engine);
  await waitFor(() => childPids(engine).length === 2, 'both children to serve', 30_000);
  return port;
}

describe('one gateway node of two processes, one state', () => {
  it("trips the endpoint's breaker after `samples` failures, whichever process took them", async () => {
    const port = await twoProcesses(
      classic(
        'cb',
        {},
        {
          circuit_breakers: [{ path: '/flaky', method: 'GET', threshold_percent: 0.5, samples: 4, return_to_service_after: 60, disable_half_open_state: true }],
        },
      ),
    );
    for (let i = 0; i < 4; i++) assert.equal((await call(port, 'GET', '/cb/flaky')).status, 500, `failure ${i + 1}`);
    const start = seen.length;
    const refused = await Promise.all(Array.from({ length: 4 }, () => call(port, 'GET', '/cb/flaky')));
    assert.deepEqual(
      refused.map((r) => r.status),
      [503, 503, 503, 503],
    );
    assert.equal(seen.length, start, 'an open breaker sent requests upstream');
  });

  it('takes the load-balanced targets in turn across processes: u0, u1, u2, u0, ...', async () => {
    const port = await twoProcesses(classic('lb', { enable_load_balancing: true, target_list: [u0.url(), u1.url(), u2.url()] }));
    const start = seen.length;
    for (let i = 0; i < 6; i++) assert.equal((await call(port, 'GET', `/lb/n${i}`)).status, 200);
    assert.deepEqual(seen.slice(start), ['u0 /n0', 'u1 /n1', 'u2 /n2', 'u0 /n3', 'u1 /n4', 'u2 /n5']);
  });

  it('serves a GET repeated right after its answer from the cache, whichever process takes it', async () => {
    const port = await twoProcesses({
      ...classic('cache', {}, { advance_cache_config: [{ method: 'GET', path: '/count.*' }] }),
      cache_options: { enable_cache: true, cache_timeout: 60 },
    });
    for (let i = 0; i < 4; i++) {
      const first = await call(port, 'GET', `/cache/count${i}`);
      assert.equal(first.headers['x-svc-cached-response'], undefined);
      const again = await call(port, 'GET', `/cache/count${i}`);
      assert.equal(again.headers['x-svc-cached-response'], '1', `repeat ${i}: ${again.body}`);
      assert.equal(again.body, first.body);
    }
  });
});
