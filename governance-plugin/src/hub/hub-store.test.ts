/**
 * The hub's store, one suite run on both databases it supports: PGlite (embedded, in a folder)
 * and the real PostgreSQL that scripts/services.sh starts (a database of this run's own, two
 * stores on it as two hub replicas would be).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { serviceAddress } from '@svc/engine/testing';
import { DataDirBusyError } from './data-dir-lock.js';
import type { StoredApi } from '../wire/api-record.js';
import { HubStore } from './hub-store.js';
import { openPglite, openPostgres, type Sql } from './sql.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-hub-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const api = (provider: string, id: string, name = `${id} API`): StoredApi => ({
  provider_name: provider,
  provider_type: 'svc',
  api_id: id,
  name,
  kind: 'classic',
  version: '',
  base_path: `/${id}/`,
  definition: JSON.stringify({ api_id: id }),
  updated_at: null,
});

interface Backend {
  name: string;
  open(): Promise<Sql>;
  done(): Promise<void>;
}

const pgliteDir = join(dir, 'pglite');
const database = `svc_hub_test_${randomUUID().replace(/-/g, '')}`;
const adminUrl = serviceAddress('SVC_POSTGRES_URL');
const dbUrl = (() => {
  const u = new URL(adminUrl);
  u.pathname = `/${database}`;
  return u.toString();
})();

const backends: Backend[] = [
  { name: 'PGlite (embedded)', open: () => openPglite(pgliteDir), done: async () => undefined },
  {
    name: 'PostgreSQL',
    async open() {
      const admin = await openPostgres(adminUrl);
      await admin.query(`create database ${database}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // already made by the first open
      });
      await admin.close();
      return openPostgres(dbUrl);
    },
    async done() {
      const admin = await openPostgres(adminUrl);
      await admin.query(`drop database if exists ${database} with (force)`);
      await admin.close();
    },
  },
];

const meta = (syncId: string = randomUUID()) => ({ syncId, trigger: 'resync', startedAt: new Date(), errors: [] });

for (const backend of backends) {
  describe(`hub store on ${backend.name}`, () => {
    let store: HubStore;
    after(async () => {
      await store?.sql.close();
      await backend.done();
    });

    it('migrates (twice is harmless) and keeps settings first-writer-wins', async () => {
      store = new HubStore(await backend.open());
      await store.migrate();
      await store.migrate();
      assert.equal(await store.setting('k'), undefined);
      assert.equal(await store.settingOnce('k', 'first'), 'first');
      assert.equal(await store.settingOnce('k', 'second'), 'first');
    });

    it('keeps agents, finds an agent by its token, and forgets the token with the agent', async () => {
      const a = await store.createAgent('edge');
      const b = await store.createAgent('core');
      assert.equal(a.last_heartbeat, null);
      assert.deepEqual(
        (await store.agents()).map((x) => x.name),
        ['edge', 'core'],
      );
      await store.addToken(a.id, 'token-a');
      assert.equal((await store.agentOfToken('token-a'))?.id, a.id);
      assert.equal(await store.agentOfToken('token-b'), undefined);
      assert.equal(await store.agent('not-a-uuid'), undefined);
      await store.heartbeats([{ agentId: b.id, at: new Date('2026-01-02T03:04:05.000Z'), providers: [{ name: 'gw', type: 'svc' }] }]);
      const beat = (await store.agent(b.id))!;
      assert.equal(new Date(beat.last_heartbeat!).toISOString(), '2026-01-02T03:04:05.000Z');
      assert.deepEqual(beat.providers, [{ name: 'gw', type: 'svc' }]);
      assert.equal(await store.deleteAgent(a.id), true);
      assert.equal(await store.deleteAgent(a.id), false);
      assert.equal(await store.agentOfToken('token-a'), undefined);
    });

    it('applies a sync whole: a provider that synced is replaced, one that failed keeps its APIs, a failing write applies nothing', async () => {
      const agent = await store.createAgent('syncer');
      const sync = async (apis: StoredApi[], ok: string[]) => (await store.applySync(agent, apis, ok, meta())).stored;
      assert.equal(await sync([api('gw', 'a'), api('gw', 'b'), api('aws', 'x')], ['gw', 'aws']), 3);
      // gw synced again with one API; aws failed this time: its API stays.
      assert.equal(await sync([api('gw', 'b', 'b renamed')], ['gw']), 1);
      const rows = await store.apis({ agentId: agent.id, limit: 100, offset: 0 });
      assert.deepEqual(
        rows.map((r) => `${r.provider_name}/${r.api_id}:${r.name}`),
        ['gw/b:b renamed', 'aws/x:x API'],
      );
      // The same API twice in one sync: the last one counts.
      assert.equal(await sync([api('gw', 'b', 'first'), api('gw', 'b', 'b renamed')], ['gw']), 1);
      // A write that fails half-way (a name the schema refuses) leaves the repository as it was.
      const broken = { ...api('gw', 'c'), name: null as unknown as string };
      await assert.rejects(sync([api('gw', 'new'), broken], ['gw']));
      assert.deepEqual(
        (await store.apis({ agentId: agent.id, limit: 100, offset: 0 })).map((r) => r.api_id),
        ['b', 'x'],
      );
    });

    it('records each sync in the history with what it added, changed and removed, and per API which fields changed', async () => {
      const agent = await store.createAgent('history');
      const def = (id: string, target: string, extra: Record<string, unknown> = {}) => ({
        ...api('gw', id),
        definition: `{"big":12345678901234567890,${JSON.stringify({ api_id: id, proxy: { target_url: target }, ...extra }).slice(1)}`,
      });
      const first = await store.applySync(agent, [def('a', 'http://one/'), def('b', 'http://one/')], ['gw'], { ...meta('s1'), trigger: 'schedule' });
      assert.deepEqual([first.stored, first.added, first.changed, first.removed], [2, 2, 0, 0]);
      // b's target changes, a is gone, c is new; the 64-bit number is unchanged (compared as written).
      const second = await store.applySync(agent, [def('b', 'http://two/', { tags: ['x'] }), def('c', 'http://one/')], ['gw'], {
        ...meta('s2'),
        errors: [{ provider: 'aws', error: 'aws: unreachable' }],
      });
      assert.deepEqual([second.stored, second.added, second.changed, second.removed], [2, 1, 1, 1]);
      // Nothing changed: only seen.
      const third = await store.applySync(agent, [def('b', 'http://two/', { tags: ['x'] }), def('c', 'http://one/')], ['gw'], meta('s3'));
      assert.deepEqual([third.added, third.changed, third.removed], [0, 0, 0]);
      await store.syncFailed(agent, meta('s4'), 'the agent lost its providers');

      const history = await store.syncHistory({ agentId: agent.id, limit: 10, offset: 0 });
      assert.deepEqual(
        history.map((h) => [h.sync_id, h.trigger, h.status, h.api_count, h.added, h.changed, h.removed, h.agent_name]),
        [
          ['s4', 'resync', 'failed', 0, 0, 0, 0, 'history'],
          ['s3', 'resync', 'complete', 2, 0, 0, 0, 'history'],
          ['s2', 'resync', 'complete', 2, 1, 1, 1, 'history'],
          ['s1', 'schedule', 'complete', 2, 2, 0, 0, 'history'],
        ],
      );
      assert.deepEqual(history[2]!.errors, [{ provider: 'aws', error: 'aws: unreachable' }]);
      assert.deepEqual(history[0]!.errors, [{ provider: '', error: 'the agent lost its providers' }]);

      const rows = await store.apis({ agentId: agent.id, limit: 10, offset: 0 });
      const b = rows.find((r) => r.api_id === 'b')!;
      assert.match(b.id, /^[0-9a-f]{32}$/);
      const detail = (await store.api(b.id))!;
      assert.equal(JSON.parse(detail.definition).proxy.target_url, 'http://two/');
      assert.deepEqual(
        (await store.apiChanges(b.id, 10)).map((c) => [c.sync_id, c.change, c.fields]),
        [
          [
            's2',
            'changed',
            [
              { path: 'proxy.target_url', op: 'changed' },
              { path: 'tags', op: 'added' },
            ],
          ],
          ['s1', 'added', []],
        ],
      );
      // A removed API keeps its id and its changes, and gets them back when it returns.
      const aId = (await store.apis({ agentId: agent.id, limit: 10, offset: 0, q: 'a API' })).length;
      assert.equal(aId, 0);
      await store.applySync(agent, [def('a', 'http://one/'), def('b', 'http://two/', { tags: ['x'] }), def('c', 'http://one/')], ['gw'], meta('s5'));
      const a = (await store.apis({ agentId: agent.id, limit: 10, offset: 0 })).find((r) => r.api_id === 'a')!;
      assert.deepEqual(
        (await store.apiChanges(a.id, 10)).map((c) => `${c.sync_id}:${c.change}`),
        ['s5:added', 's2:removed', 's1:added'],
      );
      assert.equal(await store.api('not-an-id'), undefined);
    });

    it('searches the repository by text (wildcards literal), provider and agent, with paging', async () => {
      const agent = await store.createAgent('search');
      await store.applySync(agent, [api('p1', 'orders'), api('p1', 'billing'), api('p2', 'odd_100%', 'Odd 100%')], ['p1', 'p2'], meta());
      const names = async (f: { q?: string; provider?: string; limit?: number; offset?: number }) =>
        (await store.apis({ agentId: agent.id, limit: 100, offset: 0, ...f })).map((r) => r.name);
      assert.deepEqual(await names({ q: 'ORD' }), ['orders API']);
      assert.deepEqual(await names({ q: '100%' }), ['Odd 100%']);
      assert.deepEqual(await names({ q: '_' }), ['Odd 100%']);
      assert.deepEqual(await names({ provider: 'p1' }), ['billing API', 'orders API']);
      const all = await names({ provider: 'svc' });
      assert.equal(all.length, 3);
      assert.deepEqual(await names({ provider: 'svc', limit: 2, offset: 1 }), all.slice(1));
    });

    it('makes the admin once; an access key works only after the first password change, until revoked', async () => {
      assert.equal(await store.createUserOnce('admin', 'hash-1'), true);
      assert.equal(await store.createUserOnce('admin', 'hash-2'), false);
      assert.deepEqual(await store.user('admin'), { username: 'admin', password_hash: 'hash-1', must_change: true });
      await store.addAccessKey('admin', 'svckey_one', 'ci');
      assert.equal(await store.userOfAccessKey('svckey_one'), undefined);
      await store.setPassword('admin', 'hash-3');
      assert.equal(await store.userOfAccessKey('svckey_one'), 'admin');
      const [key] = await store.accessKeys('admin');
      assert.equal(key!.name, 'ci');
      assert.equal(await store.revokeAccessKey('admin', key!.id), true);
      assert.equal(await store.userOfAccessKey('svckey_one'), undefined);
    });

    it('has everything again when opened anew (a second hub replica, or the hub restarted)', async () => {
      const before = (await store.agents()).length;
      if (backend.name.startsWith('PGlite')) {
        // The folder is one hub's: a second process (or opener) is refused while it is open.
        await assert.rejects(openPglite(pgliteDir), DataDirBusyError);
        await store.sql.close();
        store = new HubStore(await backend.open());
      } else {
        // Replicas share the database: both see each other's writes at once.
        const replica = new HubStore(await backend.open());
        await replica.migrate();
        await replica.createAgent('from-replica');
        assert.equal((await store.agents()).length, before + 1);
        await replica.sql.close();
        return;
      }
      assert.equal((await store.agents()).length, before);
      assert.equal(await store.userOfAccessKey('svckey_one'), undefined);
      assert.equal((await store.user('admin'))?.must_change, false);
    });
  });
}
