/**
 * The hub under hostile or broken conditions, on real hub processes: input PostgreSQL cannot
 * store is 400 (not 500), the page and state-changing calls are locked down, logins are throttled by address, a SIGKILLed hub's lock
 * is taken over, unfinished syncs are bounded, and a failing database is logged and answered
 * UNAVAILABLE to agents (a PostgreSQL database of the test's own, closed to connections).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort, serviceAddress } from '@svc/engine/testing';
import pg from 'pg';
import { adminKey, rest } from '../testing/hub-client.js';
import { ENGINE, engine } from '../testing/processes.js';
import { agentCredentials, syncStream, until } from '../testing/agent-stand-in.js';
import { grpc } from '../wire/governance-wire.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-hub-hard-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function hubYaml(name: string, httpAddress: string, grpcPort: number, extra = ''): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `http: { address: ${httpAddress} }\ngrpc: { address: 127.0.0.1:${grpcPort} }\n${extra || `storage: { embedded: { dir: ./${name}-data } }\n`}`,
  );
  return file;
}

async function startHub(name: string, extra = '', host = '127.0.0.1') {
  const [httpPort, grpcPort] = await Promise.all([freePort(), freePort()]);
  const hub = engine(['hub', '-c', hubYaml(name, `${host}:${httpPort}`, grpcPort, extra)], { cwd: dir });
  const oneTime = (await hub.waitFor(/admin password \(shown once; change it at first login\): (\S+)/))[1]!;
  await hub.waitFor(/hub listening/);
  return { hub, base: `http://127.0.0.1:${httpPort}`, grpcPort, oneTime };
}

describe('the hub under hostile input and broken parts', () => {
  it('answers 400 to what PostgreSQL cannot store, locks the page and state-changing calls down, and throttles logins by address', async () => {
    const { hub, base, oneTime } = await startHub('hostile');
    try {
      const key = await adminKey(base, oneTime);
      for (const path of ['/api/apis/?offset=1e308', '/api/apis/?limit=abc', '/api/apis/?q=a%00b', '/api/agents/%00/', '/api/agents/%E0%A4/']) {
        const r = await rest(base, 'GET', path, { key });
        assert.equal(r.status, 400, `${path}: ${JSON.stringify(r.body)}`);
      }
      assert.equal((await rest(base, 'GET', '/api/apis/?offset=0&limit=10', { key })).status, 200);
      assert.equal((await rest(base, 'POST', '/api/agents/', { key, body: { name: 'a\u0000b' } })).status, 400);

      const page = await fetch(`${base}/`);
      await page.text();
      assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
      assert.equal(page.headers.get('x-frame-options'), 'DENY');
      assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
      const login = await rest(base, 'POST', '/api/login/', { body: { username: 'admin', password: 'a-long-new-password-1' } });
      assert.equal(login.status, 200);
      assert.doesNotMatch(String(login.headers.get('set-cookie')), /Secure/, 'on loopback the cookie works over plain HTTP');

      const cookie = String(login.headers.get('set-cookie')).split(';')[0]!;

      // Another site's page, riding the admin's session: refused before anything is done.
      const agents = async () => ((await rest<unknown[]>(base, 'GET', '/api/agents/', { key })).body as unknown[]).length;
      const before = await agents();
      const forged: Array<{ headers: Record<string, string>; body?: unknown; text?: string }> = [
        { headers: { origin: 'http://evil.example' }, body: { name: 'forged' } },
        { headers: { origin: 'null' }, body: { name: 'forged' } },
        { headers: { 'sec-fetch-site': 'cross-site' }, body: { name: 'forged' } },
        { headers: { 'content-type': 'text/plain' }, text: '{"name":"forged"}' },
        { headers: { 'content-type': 'application/x-www-form-urlencoded' }, text: 'name=forged' },
      ];
      const statuses = [];
      for (const f of forged) statuses.push((await rest(base, 'POST', '/api/agents/', { cookie, ...f })).status);
      assert.deepEqual(statuses, [403, 403, 403, 415, 415]);
      assert.equal((await rest(base, 'POST', '/api/sync/', { cookie, headers: { origin: 'http://evil.example' } })).status, 403);
      assert.equal(
        (await rest(base, 'POST', '/api/login/', { headers: { 'content-type': 'text/plain' }, text: '{"username":"admin","password":"x"}' })).status,
        415,
      );
      assert.equal(await agents(), before, 'no agent was made');
      // The hub's own page (its origin) and clients that are no browser page work.
      assert.equal(
        (await rest(base, 'POST', '/api/agents/', { cookie, headers: { origin: base, 'sec-fetch-site': 'same-origin' }, body: { name: 'mine' } })).status,
        201,
      );
      assert.equal((await rest(base, 'POST', '/api/agents/', { key, body: { name: 'scripted' } })).status, 201);

      // Ten wrong passwords from one address: that address waits, even with the right password...
      for (let i = 0; i < 10; i++) assert.equal((await rest(base, 'POST', '/api/login/', { body: { username: 'admin', password: `wrong-${i}` } })).status, 401);
      const held = await rest(base, 'POST', '/api/login/', { body: { username: 'admin', password: 'a-long-new-password-1' } });
      assert.equal(held.status, 429);
      assert.ok(Number(held.headers.get('retry-after')) > 0);
      assert.equal((await rest(base, 'POST', '/api/login/', { body: { username: 'someone-else', password: 'x' } })).status, 429, 'whatever the name');
      // ...and the admin is not locked out: from another address the right password works, and a wrong one there counts for that address alone.
      assert.equal(
        (await rest(base, 'POST', '/api/login/', { from: '127.0.0.2', body: { username: 'admin', password: 'a-long-new-password-1' } })).status,
        200,
      );
      assert.equal((await rest(base, 'POST', '/api/login/', { from: '127.0.0.3', body: { username: 'admin', password: 'wrong' } })).status, 401);
      assert.equal(
        (await rest(base, 'POST', '/api/login/', { from: '127.0.0.3', body: { username: 'admin', password: 'a-long-new-password-1' } })).status,
        200,
      );
    } finally {
      await hub.stop();
    }
  });

  it('sets the session cookie Secure when the hub listens beyond loopback', async () => {
    const { hub, base, oneTime } = await startHub('wide', '', '0.0.0.0');
    try {
      const login = await rest(base, 'POST', '/api/login/', { body: { username: 'admin', password: oneTime } });
      assert.equal(login.status, 200);
      assert.match(String(login.headers.get('set-cookie')), /; Secure;/);
    } finally {
      await hub.stop();
    }
  });

  it('takes over the data folder of a SIGKILLed hub at once, even while it is an unreaped zombie', async () => {
    const [httpPort, grpcPort] = await Promise.all([freePort(), freePort()]);
    const file = hubYaml('zombie', `127.0.0.1:${httpPort}`, grpcPort);
    // A parent that never reaps its child (as a container's init that does not): the killed hub stays a zombie.
    const parent = spawn('sh', ['-c', `"${ENGINE}" hub -c "${file}" & exec sleep 120`], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    parent.stdout.on('data', (d: Buffer) => (out += d));
    parent.stderr.on('data', (d: Buffer) => (out += d));
    try {
      await until(() => out.includes('hub listening'), 'the first hub', 90_000);
      const pid = Number(readFileSync(join(dir, 'zombie-data.lock'), 'utf8').split(' ')[0]);
      process.kill(pid, 'SIGKILL');
      const zombie = () => {
        try {
          return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z');
        } catch {
          return false;
        }
      };
      await until(zombie, 'the killed hub to be a zombie');
      const second = engine(['hub', '-c', file], { cwd: dir });
      try {
        await second.waitFor(/hub listening/);
        // Taken over while the holder is still an unreaped zombie: the hub decided it was gone, it did not wait for it to go.
        assert.ok(zombie(), 'the first hub is still a zombie');
        assert.match(readFileSync(join(dir, 'zombie-data.lock'), 'utf8'), new RegExp(`^${second.child.pid} `));
      } finally {
        await second.stop();
      }
    } finally {
      // The whole group: the sleeping parent and, should the test fail early, the first hub.
      process.kill(-parent.pid!, 'SIGKILL');
    }
  });

  it('bounds what an unfinished sync holds: too large or idle, it is dropped and its completion refused', async () => {
    const { hub, base, grpcPort, oneTime } = await startHub(
      'staging',
      'storage: { embedded: { dir: ./staging-data } }\nagents: { sync_max_bytes: 65536, sync_idle_timeout: 1s }\n',
    );
    const key = await adminKey(base, oneTime);
    const { token, license } = await agentCredentials(base, key, 'greedy');
    let s = syncStream(grpcPort, token, license);
    try {
      s.call.write({ register: { agent_version: 'test', providers: [] } });
      await until(() => s.got.some((m) => m.registered), 'registered');
      const sync = await rest<{ id: string }>(base, 'POST', '/api/sync/', { key });
      await until(() => s.got.some((m) => m.sync_request?.sync_id === sync.body.id), 'the sync request');
      const api = (i: number, syncId: string) => ({
        api: {
          sync_id: syncId,
          provider_name: 'gw',
          provider_type: 'svc',
          api_id: `a${i}`,
          name: `a${i}`,
          kind: 'classic',
          version: '',
          base_path: '/',
          definition_json: JSON.stringify({ pad: 'x'.repeat(10_000) }),
          updated_at_unix_ms: 0,
        },
      });
      for (let i = 0; i < 10; i++) s.call.write(api(i, sync.body.id));
      const progress = async (id: string) =>
        (await rest<{ agents: Record<string, { state: string; error?: string }> }>(base, 'GET', `/api/sync/${id}/`, { key })).body;
      const oversized = await s.ended;
      assert.equal(oversized?.code, grpc.status.RESOURCE_EXHAUSTED, String(oversized?.message));
      assert.equal(Object.values((await progress(sync.body.id)).agents)[0]?.state, 'failed');
      assert.match(Object.values((await progress(sync.body.id)).agents)[0]!.error!, /sync_max_bytes/);
      assert.deepEqual((await rest(base, 'GET', '/api/apis/', { key })).body, [], 'nothing of the dropped sync was applied');
      s.close();

      // The agent comes back: asked for the sync again; it sends one API and stalls.
      s = syncStream(grpcPort, token, license);
      s.call.write({ register: { agent_version: 'test', providers: [] } });
      await until(() => s.got.some((m) => m.sync_request?.sync_id === sync.body.id), 'the owed sync asked again');
      s.call.write(api(0, sync.body.id));
      const stalled = await s.ended;
      assert.equal(stalled?.code, grpc.status.DEADLINE_EXCEEDED, String(stalled?.message));
      assert.match(Object.values((await progress(sync.body.id)).agents)[0]!.error!, /sync_idle_timeout/);
      assert.match(hub.out(), /dropped unfinished: nothing arrived for 1 s/);
    } finally {
      s.close();
      await hub.stop();
    }
  });

  it('a sync the database cannot store: recorded as failed, the stream ends UNAVAILABLE, and it is asked for again once the agent is back', async () => {
    const admin = new pg.Client({ connectionString: serviceAddress('SVC_POSTGRES_URL') });
    await admin.connect();
    const db = `svc_hub_store_${process.pid}_${Date.now()}`;
    await admin.query(`create database ${db}`);
    const url = new URL(serviceAddress('SVC_POSTGRES_URL'));
    url.pathname = `/${db}`;
    const { hub, base, grpcPort, oneTime } = await startHub('pgstore', `storage: { postgres: { url: "${url.href}" } }\n`);
    const owner = new pg.Client({ connectionString: url.href });
    await owner.connect();
    try {
      const key = await adminKey(base, oneTime);
      const { token, license } = await agentCredentials(base, key, 'stored-later');
      // A column the hub does not fill: every insert into apis fails.
      await owner.query('alter table apis add column blocker text not null');
      const s = syncStream(grpcPort, token, license);
      s.call.write({ register: { agent_version: 't', providers: [] } });
      await until(() => s.got.some((m) => m.registered), 'registered');
      const sync = await rest<{ id: string }>(base, 'POST', '/api/sync/', { key });
      await until(() => s.got.some((m) => m.sync_request), 'the sync request');
      s.call.write({
        api: {
          sync_id: sync.body.id,
          provider_name: 'gw',
          provider_type: 'svc',
          api_id: 'a',
          name: 'A',
          kind: 'classic',
          version: '',
          base_path: '/a/',
          definition_json: '{}',
          updated_at_unix_ms: 0,
        },
      });
      s.call.write({ complete: { sync_id: sync.body.id, api_count: 1, providers: [{ provider_name: 'gw', api_count: 1, error: '' }], trigger: 'resync' } });
      const err = await s.ended;
      s.close();
      assert.equal(err?.code, grpc.status.UNAVAILABLE, String(err?.message));
      assert.match(err!.details, /could not be stored .* runs again once the agent reconnects/);
      const history = (await rest<Array<{ sync_id: string; status: string; errors: Array<{ error: string }> }>>(base, 'GET', '/api/syncs/', { key })).body;
      assert.deepEqual(
        history.map((h) => [h.sync_id, h.status]),
        [[sync.body.id, 'failed']],
      );
      assert.match(history[0]!.errors[0]!.error, /the hub could not store the sync: .*blocker/);
      // The database is fixed; the agent comes back and is asked for the same sync.
      await owner.query('alter table apis drop column blocker');
      const again = syncStream(grpcPort, token, license);
      again.call.write({ register: { agent_version: 't', providers: [] } });
      await until(() => again.got.some((m) => m.sync_request?.sync_id === sync.body.id), 'the same sync asked again');
      again.close();
    } finally {
      await owner.end();
      await hub.stop();
      await admin.query(`drop database if exists ${db} with (force)`);
      await admin.end();
    }
  });

  it('a database that fails: the REST 500 and the agent refusal are logged with the cause, and agents are told UNAVAILABLE', async () => {
    const admin = new pg.Client({ connectionString: serviceAddress('SVC_POSTGRES_URL') });
    await admin.connect();
    const db = `svc_hub_fail_${process.pid}_${Date.now()}`;
    // A role of its own: a connection limit binds it (a superuser would pass it).
    await admin.query(`create role ${db} login password 'HUBDBSECRET'`);
    await admin.query(`create database ${db} owner ${db}`);
    const url = new URL(serviceAddress('SVC_POSTGRES_URL'));
    url.pathname = `/${db}`;
    url.username = db;
    url.password = 'HUBDBSECRET';
    const { hub, base, grpcPort, oneTime } = await startHub('pgfail', `storage: { postgres: { url: "${url.href}" } }\n`);
    try {
      const key = await adminKey(base, oneTime);
      const { token, license } = await agentCredentials(base, key, 'patient');
      // The database stops taking connections and drops the hub's.
      await admin.query(`alter role ${db} with connection limit 0`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [db]);
      const r = await rest(base, 'GET', '/api/agents/', { key });
      assert.equal(r.status, 500);
      await hub.waitFor(/GET \/api\/agents\/ failed: .*(connection|terminat)/i);
      const s = syncStream(grpcPort, token, license);
      const err = await s.ended;
      s.close();
      assert.equal(err?.code, grpc.status.UNAVAILABLE, String(err?.message));
      await hub.waitFor(/cannot check an agent's token: the database failed/);
      assert.ok(!hub.out().includes(token) && !hub.out().includes(key) && !hub.out().includes('HUBDBSECRET'), 'no credential in the log');
    } finally {
      await hub.stop();
      await admin.query(`drop database if exists ${db} with (force)`);
      await admin.query(`drop role if exists ${db}`);
      await admin.end();
    }
  });
});
