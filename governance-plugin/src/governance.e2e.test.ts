/**
 * The whole governance flow on one machine, every part a real process: a hub (`engine hub`,
 * embedded database), a running svc gateway, moto's AWS server with 3 REST and 2 HTTP APIs, and
 * two agents (`engine agent`), one per provider. Agents and tokens are made over REST; a ReSync
 * brings every API into the repository; a stopped agent goes INACTIVE; the hub killed with
 * SIGKILL and started again still has everything.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort, waitFor } from '@svc/engine/testing';
import { startGateway, svcInstance, writeAgentYaml, writeHubYaml } from './testing/fixtures.js';
import { adminKey, rest } from './testing/hub-client.js';
import { cloudgwInstance, motoAccount, motoUrl, seedMoto } from './testing/moto.js';
import { engine, type Proc } from './testing/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-governance-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const MOTO = motoUrl();
const ACCOUNT = motoAccount();

describe('governance end to end: hub, an svc agent and a cloudgw agent', () => {
  it('syncs every API into the repository, tracks agent status, and survives kill -9 of the hub', { timeout: 240_000 }, async () => {
    const [httpPort, grpcPort, gwPort, probeA, probeB] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    const base = `http://127.0.0.1:${httpPort}`;
    const hubFile = writeHubYaml(dir, httpPort, grpcPort);
    const gateway = await startGateway(dir, gwPort);
    const seeded = await seedMoto(ACCOUNT, { rest: ['orders', 'billing', 'inventory'], http: ['events', 'webhooks'] });

    let hub: Proc = engine(['hub', '-c', hubFile], { cwd: dir });
    const oneTime = (await hub.waitFor(/admin password \(shown once; change it at first login\): (\S+)/))[1]!;
    await hub.waitFor(/hub listening/);
    const key = await adminKey(base, oneTime);

    // The embedded database is the running hub's alone: the CLI says so, and the hub issues the license.
    const cli = engine(['hub', 'license', '--sub', 'e2e', '--days', '1', '-c', hubFile], { cwd: dir });
    assert.equal(await cli.exited, 1);
    assert.match(cli.out(), /is in use by process \d+ \(a running hub\): ask the running hub instead: POST \/api\/licenses\//);
    const issued = await rest<{ license: string }>(base, 'POST', '/api/licenses/', { key, body: { sub: 'e2e', days: 1 } });
    assert.equal(issued.status, 201);
    const license = issued.body.license;

    const agents: Record<string, { id: string; token: string }> = {};
    for (const name of ['gateway-agent', 'aws-agent']) {
      const created = await rest<{ id: string; name: string; last_heartbeat: string; status: string; providers: null }>(base, 'POST', '/api/agents/', {
        key,
        body: { name },
      });
      assert.equal(created.status, 201);
      assert.deepEqual(
        { ...created.body, id: undefined },
        { id: undefined, name, last_heartbeat: '0001-01-01T00:00:00Z', status: 'INACTIVE', providers: null },
      );
      const token = await rest<{ token: string }>(base, 'POST', '/api/auth/token/', { key, body: { agent_id: created.body.id } });
      agents[name] = { id: created.body.id, token: token.body.token };
    }

    const agent = (name: string, probePort: number, instance: string, env?: NodeJS.ProcessEnv) =>
      engine(['agent', '-c', writeAgentYaml(dir, name, { grpcPort, token: agents[name]!.token, license, probePort, instance })], { cwd: dir, env });
    const a = agent('gateway-agent', probeA, svcInstance('local-gateway', gwPort));
    const b = agent('aws-agent', probeB, cloudgwInstance('aws', ACCOUNT), {
      SVC_CLOUDGW_ENDPOINT: MOTO,
    });
    for (const agent of [a, b]) await agent.waitFor(/waiting for sync requests/);
    // The governance spec's healthy start, in its order.
    const order = [
      'license validated',
      'agent started',
      'health probe server started',
      'health stream established',
      'agent registered with sync stream established',
      'waiting for sync requests',
    ];
    const at = order.map((line) => a.out().indexOf(line));
    assert.ok(
      at.every((i, n) => i >= 0 && (n === 0 || i > at[n - 1]!)),
      `start log in the governance spec's order:\n${a.out()}`,
    );
    assert.equal((await fetch(`http://127.0.0.1:${probeA}/live`)).status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${probeA}/health`)).status, 200);

    const sync = await rest<{ id: string; agents: number }>(base, 'POST', '/api/sync/', { key });
    assert.equal(sync.body.agents, 2);
    await waitFor('both agents to complete the sync', async () => {
      const p = await rest<{ agents: Record<string, { state: string }> }>(base, 'GET', `/api/sync/${sync.body.id}/`, { key });
      const states = Object.values(p.body.agents).map((s) => s.state);
      return states.length === 2 && states.every((s) => s === 'complete') ? true : undefined;
    });
    type Row = { api_id: string; provider_type: string; kind: string; agent_id: string; name: string };
    const apis = (await rest<Row[]>(base, 'GET', '/api/apis/?limit=1000', { key })).body;
    const ids = (type: string) =>
      apis
        .filter((r) => r.provider_type === type)
        .map((r) => r.api_id)
        .sort();
    assert.deepEqual(ids('svc'), ['catalog', 'payments', 'policy:gold']);
    // moto is shared by every test run on this machine: this run's APIs are among what it lists.
    const mine = new Set([...seeded.rest, ...seeded.http]);
    assert.deepEqual(
      ids('cloudgw').filter((id) => mine.has(id)),
      [...mine].sort(),
    );
    assert.deepEqual(
      apis
        .filter((r) => mine.has(r.api_id))
        .map((r) => r.kind)
        .sort(),
      ['http', 'http', 'rest', 'rest', 'rest'],
    );
    const searched = (await rest<Row[]>(base, 'GET', '/api/apis/?q=catalog', { key })).body;
    assert.deepEqual(
      searched.map((r) => r.name),
      ['catalog API'],
    );
    const byAgent = (await rest<Row[]>(base, 'GET', `/api/apis/?agent_id=${agents['gateway-agent']!.id}`, { key })).body;
    assert.equal(byAgent.length, 3);

    // Heartbeats are written in batches, once a second: both agents show ACTIVE within a few.
    const listed = await waitFor(
      'both agents ACTIVE',
      async () => {
        const rows = (await rest<Array<{ id: string; status: string; providers: unknown[] }>>(base, 'GET', '/api/agents/', { key })).body;
        return rows.every((x) => x.status === 'ACTIVE') ? rows : undefined;
      },
      10_000,
    );
    assert.ok(listed.every((x) => Array.isArray(x.providers) && x.providers.length === 1));

    // One agent stops: INACTIVE after the missed heartbeats; the other stays ACTIVE.
    assert.equal(await b.stop(), 0, b.out());
    await waitFor(
      'the stopped agent to go INACTIVE',
      async () => {
        const row = (await rest<{ status: string }>(base, 'GET', `/api/agents/${agents['aws-agent']!.id}/`, { key })).body;
        return row.status === 'INACTIVE' ? true : undefined;
      },
      20_000,
    );
    assert.equal((await rest<{ status: string }>(base, 'GET', `/api/agents/${agents['gateway-agent']!.id}/`, { key })).body.status, 'ACTIVE');

    // kill -9 the hub and start it again: nothing lost; the running agent reconnects.
    await hub.stop('SIGKILL');
    await a.waitFor(/waiting for the hub at/);
    assert.equal((await fetch(`http://127.0.0.1:${probeA}/live`)).status, 503, 'not ready while the hub is away');
    hub = engine(['hub', '-c', hubFile], { cwd: dir });
    await hub.waitFor(/hub listening/);
    assert.doesNotMatch(hub.out(), /admin password/, 'the one-time password is printed at the first start only');
    const after = (await rest<Row[]>(base, 'GET', '/api/apis/?limit=1000', { key })).body;
    assert.equal(after.length, apis.length);
    assert.equal((await rest<unknown[]>(base, 'GET', '/api/agents/', { key })).body.length, 2);
    await waitFor('the agent to reconnect', async () => ((await fetch(`http://127.0.0.1:${probeA}/live`)).status === 200 ? true : undefined), 60_000);

    // A deleted agent's token stops working at once.
    assert.equal((await rest(base, 'DELETE', `/api/agents/${agents['gateway-agent']!.id}/`, { key })).status, 200);
    await a.waitFor(/the hub refused the agent token/, 20_000);
    assert.equal((await rest(base, 'GET', '/api/agents/', { key: 'wrong' })).status, 401);

    for (const p of [a, hub, gateway]) assert.equal(await p.stop(), 0, p.out());
  });
});
