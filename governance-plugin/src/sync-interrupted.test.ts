/**
 * A hub that goes away mid-sync: the agent is listing its provider when the hub is killed with
 * SIGKILL and started again. The agent says what it waits for, reconnects, runs the cut-short
 * sync again on its own (the new hub process never asked for it), and the APIs land whole.
 * The provider is a slow gateway double: a local HTTP server answering the svc management API's
 * `GET /svc/apis` only when the test lets it, so the kill falls inside the sync.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort, waitFor } from '@svc/engine/testing';
import { svcInstance, writeAgentYaml, writeHubYaml } from './testing/fixtures.js';
import { adminKey, rest } from './testing/hub-client.js';
import { engine } from './testing/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-governance-cut-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('a sync cut short by the hub going away', () => {
  it('is run again by the agent once the hub is back, and stored whole', { timeout: 120_000 }, async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let listings = 0;
    const gateway = createServer((req, res) => {
      if (req.headers['x-svc-authorization'] !== 'gw-secret') return void res.writeHead(403).end();
      const answer = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/svc/policies') return answer([]);
      listings++;
      void released.then(() => answer(['one', 'two', 'three'].map((id) => ({ api_id: id, name: `${id} API`, proxy: { listen_path: `/${id}/` } }))));
    });
    const gwPort = await freePort();
    await new Promise<void>((r) => gateway.listen(gwPort, '127.0.0.1', r));
    try {
      const [httpPort, grpcPort, probePort] = await Promise.all([freePort(), freePort(), freePort()]);
      const base = `http://127.0.0.1:${httpPort}`;
      const hubFile = writeHubYaml(dir, httpPort, grpcPort);
      let hub = engine(['hub', '-c', hubFile], { cwd: dir });
      const oneTime = (await hub.waitFor(/first login\): (\S+)/))[1]!;
      await hub.waitFor(/hub listening/);
      const key = await adminKey(base, oneTime);
      const license = (await rest<{ license: string }>(base, 'POST', '/api/licenses/', { key, body: { sub: 'cut', days: 1 } })).body.license;
      const { id } = (await rest<{ id: string }>(base, 'POST', '/api/agents/', { key, body: { name: 'cut-agent' } })).body;
      const { token } = (await rest<{ token: string }>(base, 'POST', '/api/auth/token/', { key, body: { agent_id: id } })).body;
      const agent = engine(
        ['agent', '-c', writeAgentYaml(dir, 'cut-agent', { grpcPort, token, license, probePort, instance: svcInstance('slow-gw', gwPort) })],
        {
          cwd: dir,
        },
      );
      await agent.waitFor(/waiting for sync requests/);

      await rest(base, 'POST', '/api/sync/', { key });
      await waitFor('the agent to be listing its provider', async () => (listings === 1 ? true : undefined), 20_000);
      await hub.stop('SIGKILL');
      await agent.waitFor(/waiting for the hub at/);
      hub = engine(['hub', '-c', hubFile], { cwd: dir });
      await hub.waitFor(/hub listening/);
      release();

      await agent.waitFor(/was cut short when the hub went away: running it again/, 60_000);
      const apis = await waitFor(
        'the APIs in the restarted hub',
        async () => {
          const rows = (await rest<Array<{ api_id: string }>>(base, 'GET', `/api/apis/?agent_id=${id}`, { key })).body;
          return rows.length === 3 ? rows : undefined;
        },
        30_000,
      );
      assert.deepEqual(apis.map((r) => r.api_id).sort(), ['one', 'three', 'two']);
      assert.equal(listings, 2, 'listed once, cut short, and once more');
      await agent.waitFor(/sync \S+: 3 API\(s\) synced to the hub/);
      for (const p of [agent, hub]) assert.equal(await p.stop(), 0, p.out());
    } finally {
      gateway.close();
    }
  });
});
