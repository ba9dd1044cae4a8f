/**
 * The hub's numbered migrations, on PGlite and on the real PostgreSQL: a database made by the
 * hub before migrations were numbered (test-fixtures/hub-before-migrations.sql, dumped from one
 * that hub version created) is opened by this hub: migrated to the latest version, every row
 * kept, and the new parts (API ids, history, changes) work on the old rows. A second start
 * migrates nothing; a database from a newer hub is refused.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { serviceAddress } from '@svc/engine/testing';
import { HubStore } from './hub-store.js';
import { MIGRATIONS, SchemaTooNewError } from './migrations.js';
import { openPglite, openPostgres, type Sql } from './sql.js';

const FIXTURE = readFileSync(fileURLToPath(new URL('../../test-fixtures/hub-before-migrations.sql', import.meta.url)), 'utf8');
const LATEST = MIGRATIONS[MIGRATIONS.length - 1]!.version;
const LEGACY_AGENT = 'a0d4a6d9-7d0f-43f6-94e1-eb71d39896ae';
const dir = mkdtempSync(join(tmpdir(), 'svc-hub-migrations-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function loadFixture(sql: Sql): Promise<void> {
  for (const statement of FIXTURE.split(/;\n/)) {
    const text = statement.replace(/^--.*$/gm, '').trim();
    if (text !== '') await sql.query(text);
  }
}

const adminUrl = serviceAddress('SVC_POSTGRES_URL');
const databases: string[] = [];
after(async () => {
  if (databases.length === 0) return;
  const admin = await openPostgres(adminUrl);
  for (const d of databases) await admin.query(`drop database if exists ${d} with (force)`);
  await admin.close();
});

const backends: Array<{ name: string; open(fresh: string): Promise<Sql> }> = [
  { name: 'PGlite (embedded)', open: (fresh) => openPglite(join(dir, fresh)) },
  {
    name: 'PostgreSQL',
    async open(fresh) {
      const database = `svc_hub_mig_${fresh}_${randomUUID().replace(/-/g, '')}`;
      const admin = await openPostgres(adminUrl);
      await admin.query(`create database ${database}`);
      await admin.close();
      databases.push(database);
      const u = new URL(adminUrl);
      u.pathname = `/${database}`;
      return openPostgres(u.toString());
    },
  },
];

for (const backend of backends) {
  describe(`hub migrations on ${backend.name}`, () => {
    it('opens a database made by the hub before numbered migrations: migrated, every row kept, the new parts working on the old rows', async () => {
      const sql = await backend.open('legacy');
      try {
        await loadFixture(sql);
        const store = new HubStore(sql);
        assert.deepEqual(await store.migrate(), { from: 0, to: LATEST });
        assert.deepEqual(
          (await sql.query<{ version: number }>('select version from schema_migrations order by version')).map((r) => r.version),
          MIGRATIONS.map((m) => m.version),
        );
        // Every row as that hub wrote it.
        assert.equal(await store.setting('license_issuer_key'), 'fixture-issuer-key');
        assert.equal((await store.agentOfToken('svcagent.legacy.token'))?.name, 'legacy-agent');
        assert.equal((await store.user('admin'))?.must_change, true);
        const apis = await store.apis({ limit: 10, offset: 0 });
        assert.deepEqual(
          apis.map((a) => [a.api_id, a.name, a.base_path]),
          [
            ['policy:gold', 'Gold tier', ''],
            ['payments', 'payments API', '/payments/'],
          ],
        );
        // The old rows got their ids; a sync links its changes to them.
        const payments = apis.find((a) => a.api_id === 'payments')!;
        assert.match(payments.id, /^[0-9a-f]{32}$/);
        assert.equal(JSON.parse((await store.api(payments.id))!.definition).proxy.target_url, 'http://user:pw@127.0.0.1:9/');
        const agent = { id: LEGACY_AGENT, name: 'legacy-agent' };
        const out = await store.applySync(
          agent,
          [
            {
              provider_name: 'gw',
              provider_type: 'svc',
              api_id: 'payments',
              name: 'payments API',
              kind: 'classic',
              version: '',
              base_path: '/payments/',
              definition: JSON.stringify({ api_id: 'payments', proxy: { listen_path: '/payments/', target_url: 'http://127.0.0.1:10/' } }),
              updated_at: null,
            },
          ],
          ['gw'],
          { syncId: 'after-upgrade', trigger: 'resync', startedAt: new Date(), errors: [] },
        );
        assert.deepEqual([out.added, out.changed, out.removed], [0, 1, 1]);
        assert.equal((await store.apis({ limit: 10, offset: 0 }))[0]!.id, payments.id, 'the id is the same when computed anew');
        assert.deepEqual(
          (await store.apiChanges(payments.id, 10)).map((c) => [c.change, c.fields]),
          [['changed', [{ path: 'proxy.target_url', op: 'changed' }]]],
        );
        // A second start migrates nothing.
        assert.deepEqual(await store.migrate(), { from: LATEST, to: LATEST });
        // A database a newer hub migrated is refused, untouched.
        await sql.query("insert into schema_migrations (version, name) values ($1, 'from the future')", [LATEST + 1]);
        await assert.rejects(store.migrate(), (err: Error) => err instanceof SchemaTooNewError && /newer hub/.test(err.message));
      } finally {
        await sql.close();
      }
    });

    it('makes a fresh database from nothing', async () => {
      const sql = await backend.open('fresh');
      try {
        assert.deepEqual(await new HubStore(sql).migrate(), { from: 0, to: LATEST });
      } finally {
        await sql.close();
      }
    });
  });
}
