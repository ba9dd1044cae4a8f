/**
 * 1,000 rows copied by the `engine` CLI from one table to another (sql_select → sql_insert), the
 * engine SIGKILLed in the middle and run again: the restarted run selects every row again, and
 * `ON CONFLICT DO NOTHING` (MySQL: `ON DUPLICATE KEY UPDATE`) on the primary key keeps the rows
 * stored before the kill from being stored twice. Each row must arrive exactly once. On PostgreSQL,
 * on MariaDB and on a SQLite file.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitFor, EngineProcess } from '@svc/engine/testing';
import Database from 'better-sqlite3';
import { MYSQL_DSN, PG_URL, mysqlQuery, mysqlTable, pgQuery, sqliteFile, tempTable } from './test-support.js';

const TOTAL = 1_000;

function copy(driver: string, dsn: string, source: string, sink: string, suffix = 'ON CONFLICT (id) DO NOTHING'): string {
  return `http: { enabled: false }
logger: { level: INFO, format: logfmt }
input:
  sql_select:
    driver: ${driver}
    dsn: "${dsn}"
    table: ${source}
    columns: [ id, body ]
    suffix: ORDER BY id
pipeline:
  threads: 1
  processors:
    - sleep: { duration: 50ms }
output:
  sql_insert:
    driver: ${driver}
    dsn: "${dsn}"
    table: ${sink}
    columns: [ id, body ]
    args_mapping: 'root = [ this.id, this.body ]'
    suffix: ${suffix}
    init_statement: CREATE TABLE IF NOT EXISTS ${sink} (id INTEGER PRIMARY KEY, body TEXT)
`;
}

/** Runs the copy, SIGKILLs it once `atLeast` rows are stored, runs it again to its end; rows stored at the kill. */
async function killAndRerun(yaml: string, count: () => Promise<number>): Promise<number> {
  const first = new EngineProcess(yaml);
  try {
    await waitFor(
      'some rows copied',
      async () => {
        if (first.done) throw new Error(`the engine exited: ${first.output().slice(-2000)}`);
        return (await count()) >= 200 ? true : undefined;
      },
      60_000,
      20,
    );
    await first.kill();
  } finally {
    if (!first.done) await first.kill();
  }
  const atKill = await count();
  assert.ok(atKill < TOTAL, `killed mid-run (${atKill} of ${TOTAL} copied)`);
  const second = new EngineProcess(yaml);
  const code = await Promise.race([second.exited, new Promise((r) => setTimeout(() => r('timeout'), 90_000))]);
  if (!second.done) await second.kill();
  assert.equal(code, 0, second.output().slice(-2000));
  return atKill;
}

describe('sql reliability: 1,000 rows across a SIGKILL of the engine', () => {
  it('PostgreSQL: each row exactly once', async (t) => {
    const source = tempTable('relsrc');
    const sink = tempTable('relsink');
    await pgQuery(`CREATE TABLE ${source} (id int PRIMARY KEY, body text)`);
    await pgQuery(`INSERT INTO ${source} SELECT g, 'row ' || g FROM generate_series(1, ${TOTAL}) g`);
    const count = async () => {
      try {
        return (await pgQuery<{ n: number }>(`SELECT count(*)::int AS n FROM ${sink}`))[0]!.n;
      } catch {
        return 0; // not created yet
      }
    };
    const atKill = await killAndRerun(copy('postgres', PG_URL, source, sink), count);
    const rows = await pgQuery<{ n: number; d: number }>(`SELECT count(*)::int AS n, count(DISTINCT body)::int AS d FROM ${sink}`);
    assert.deepEqual(rows, [{ n: TOTAL, d: TOTAL }]);
    t.diagnostic(`killed with ${atKill} rows stored`);
  });

  it('MariaDB (mysql driver): each row exactly once', async (t) => {
    const source = mysqlTable('relsrc');
    const sink = mysqlTable('relsink');
    await mysqlQuery(`CREATE TABLE ${source} (id int PRIMARY KEY, body text)`);
    await mysqlQuery(
      `INSERT INTO ${source} WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ${TOTAL}) SELECT i, CONCAT('row ', i) FROM g`,
    );
    const count = async () => {
      try {
        return Number((await mysqlQuery<{ n: string }>(`SELECT COUNT(*) AS n FROM ${sink}`))[0]!.n);
      } catch {
        return 0; // not created yet
      }
    };
    const atKill = await killAndRerun(copy('mysql', MYSQL_DSN, source, sink, 'ON DUPLICATE KEY UPDATE id = id'), count);
    const rows = await mysqlQuery<{ n: string; d: string }>(`SELECT COUNT(*) AS n, COUNT(DISTINCT body) AS d FROM ${sink}`);
    assert.deepEqual(rows, [{ n: String(TOTAL), d: String(TOTAL) }]);
    t.diagnostic(`killed with ${atKill} rows stored`);
  });

  it('SQLite: each row exactly once', async (t) => {
    const file = sqliteFile('rel');
    const db = new Database(file);
    db.exec('CREATE TABLE src (id INTEGER PRIMARY KEY, body TEXT)');
    db.exec(`INSERT INTO src WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ${TOTAL}) SELECT i, 'row ' || i FROM g`);
    const count = async () => {
      try {
        return (db.prepare('SELECT count(*) AS n FROM sink').all()[0] as { n: number }).n;
      } catch {
        return 0;
      }
    };
    try {
      const atKill = await killAndRerun(copy('sqlite', `file:${file}?_pragma=journal_mode(WAL)`, 'src', 'sink'), count);
      assert.deepEqual(db.prepare('SELECT count(*) AS n, count(DISTINCT body) AS d FROM sink').all(), [{ n: TOTAL, d: TOTAL }]);
      t.diagnostic(`killed with ${atKill} rows stored`);
    } finally {
      db.close();
    }
  });
});
