/**
 * A PostgreSQL that hangs without closing (hung-postgres-double: the real server behind a loopback
 * proxy that stops answering), on a real hub process: REST and login answer 503 with the reason
 * instead of waiting on it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort, serviceAddress } from '@svc/engine/testing';
import pg from 'pg';
import { adminKey } from '../testing/hub-client.js';
import { hungPostgresDouble } from '../testing/hung-postgres-double.js';
import { engine } from '../testing/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-hub-hung-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('the hub on a database that stops answering', () => {
  it('a PostgreSQL that hangs without closing: REST and login answer 503 instead of waiting on it', async () => {
    const admin = new pg.Client({ connectionString: serviceAddress('SVC_POSTGRES_URL') });
    await admin.connect();
    const db = `svc_hub_hung_${process.pid}_${Date.now()}`;
    await admin.query(`create database ${db}`);
    const url = new URL(serviceAddress('SVC_POSTGRES_URL'));
    url.pathname = `/${db}`;
    const postgres = await hungPostgresDouble(url.href);
    const [httpPort, grpcPort] = await Promise.all([freePort(), freePort()]);
    const file = join(dir, 'hub.yaml');
    writeFileSync(
      file,
      `http: { address: 127.0.0.1:${httpPort} }\ngrpc: { address: 127.0.0.1:${grpcPort} }\n` +
        `storage: { postgres: { url: "${postgres.url}", connect_timeout: 1s, statement_timeout: 2s } }\n`,
    );
    const hub = engine(['hub', '-c', file], { cwd: dir });
    const base = `http://127.0.0.1:${httpPort}`;
    const oneTime = (await hub.waitFor(/admin password \(shown once; change it at first login\): (\S+)/))[1]!;
    await hub.waitFor(/hub listening/);
    try {
      const key = await adminKey(base, oneTime);
      postgres.hang();
      // The client's own limit is a guard against a hub that waits forever, not the judgement.
      const call = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(60_000) });
      const listed = await call('/api/agents/', { headers: { 'x-api-key': key } });
      assert.equal(listed.status, 503);
      assert.match(((await listed.json()) as { message: string }).message, /database did not answer/);
      assert.ok(Number(listed.headers.get('retry-after')) > 0);
      const login = await call('/api/login/', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: 'a-long-new-password-1' }),
      });
      assert.equal(login.status, 503);
      await login.text();
      await hub.waitFor(/POST \/api\/login\/ failed: the database did not answer/);
    } finally {
      await hub.stop();
      await postgres.close();
      await admin.query(`drop database if exists ${db} with (force)`);
      await admin.end();
    }
  });
});
