// The SQL connectors against the PostgreSQL of scripts/services.sh and a SQLite file. Benthos'
// core build here has no SQL components (they are in Redpanda Connect), so each row compares with
// the raw client library doing the same work the plain way, in the same run. Engine runs are whole
// CLI processes with start-up subtracted (lib.mjs's engineRate); both end by themselves.
//
// - generate → sql_insert (PostgreSQL), batches of 100 rows (one multi-row INSERT each, max_in_flight
//   64) against a raw pg loop of awaited 100-row INSERTs.
// - sql_select (PostgreSQL, a cursor read 100 rows at a time) → drop against the raw pg client's
//   one `SELECT` of the whole table.
// - generate → sql_insert (SQLite file, WAL) against a raw better-sqlite3 loop of 100-row INSERTs.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceAddress } from '@svc/engine/testing';
import { ROOT, config, engineRate, fmt } from './lib.mjs';

const require = createRequire(join(ROOT, 'plugins', 'package.json'));
const pg = require('pg');
const Database = require('better-sqlite3');
const PG_URL = serviceAddress('SVC_POSTGRES_URL');
const BODY = 'x'.repeat(100);
const NOTE = 'not in this Benthos build (core: io + pure, no sql)';

function insertConfig(name, n, driver, dsn, table) {
  return config(
    name,
    `http: { enabled: false }
logger: { level: WARN }
input:
  generate: { mapping: 'root = {"id": counter(), "body": "${BODY}"}', interval: '', count: ${n}, batch_size: 100 }
output:
  sql_insert:
    driver: ${driver}
    dsn: "${dsn}"
    table: ${table}
    columns: [ id, body ]
    args_mapping: 'root = [ this.id, this.body ]'
    init_statement: DELETE FROM ${table}
`,
  );
}

async function rawPgInsert(pool, table, count) {
  await pool.query(`DELETE FROM ${table}`);
  const t0 = performance.now();
  for (let i = 0; i < count; i += 100) {
    const values = [];
    const ph = [];
    for (let j = 0; j < 100; j++) {
      values.push(i + j, BODY);
      ph.push(`($${2 * j + 1},$${2 * j + 2})`);
    }
    await pool.query(`INSERT INTO ${table} (id, body) VALUES ${ph.join(',')}`, values);
  }
  return count / ((performance.now() - t0) / 1000);
}

function rawSqliteInsert(file, count) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('DELETE FROM t');
  const ph = Array.from({ length: 100 }, () => '(?,?)').join(',');
  const stmt = db.prepare(`INSERT INTO t (id, body) VALUES ${ph}`);
  const t0 = performance.now();
  for (let i = 0; i < count; i += 100) {
    const values = [];
    for (let j = 0; j < 100; j++) values.push(i + j, BODY);
    stmt.run(...values);
  }
  const rate = count / ((performance.now() - t0) / 1000);
  db.close();
  return rate;
}

export async function run({ quick = false } = {}) {
  const n = quick ? 50_000 : 200_000;
  const table = `svc_bench_sql_${process.pid}`;
  const source = `${table}_src`;
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-sql-'));
  const rows = [];
  try {
    await pool.query(`CREATE TABLE ${table} (id bigint, body text)`);
    await pool.query(`CREATE TABLE ${source} AS SELECT g AS id, '${BODY}'::text AS body FROM generate_series(1, ${n}) g`);

    const eng = engineRate((c, s) => insertConfig(s ? 'sql-insert-pg-startup' : 'sql-insert-pg', c, 'postgres', PG_URL, table), n, { startupRuns: 2 });
    const raw = await rawPgInsert(pool, table, n);
    rows.push({
      bench: `generate → sql_insert (PostgreSQL), batches of 100, ${n / 1000}k rows`,
      result: `${fmt(eng)} rows/s`,
      baseline: `raw pg awaited 100-row INSERTs ${fmt(raw)} rows/s`,
      ratio: eng / raw,
      target: '≥ 1× the raw client',
      pass: eng >= raw,
      peer: NOTE,
    });

    const select = (c, s) =>
      config(
        s ? 'sql-select-pg-startup' : 'sql-select-pg',
        `http: { enabled: false }
logger: { level: WARN }
input:
  sql_select: { driver: postgres, dsn: "${PG_URL}", table: ${source}, columns: [ id, body ], suffix: "LIMIT ${c}" }
output:
  drop: {}
`,
      );
    const engSel = engineRate(select, n, { startupRuns: 2 });
    let rawSel = 0;
    for (let r = 0; r < 2; r++) {
      const t0 = performance.now();
      const res = await pool.query(`SELECT id, body FROM ${source}`);
      rawSel = Math.max(rawSel, res.rows.length / ((performance.now() - t0) / 1000));
    }
    rows.push({
      bench: `sql_select (PostgreSQL, a cursor, 100 rows a batch) → drop, ${n / 1000}k rows`,
      result: `${fmt(engSel)} rows/s`,
      baseline: `raw pg one SELECT of the table ${fmt(rawSel)} rows/s`,
      ratio: engSel / rawSel,
      target: '≥ 1× the raw client',
      pass: engSel >= rawSel,
      peer: NOTE,
    });

    const file = join(dir, 'bench.db');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (id INTEGER, body TEXT)');
    db.close();
    const engSq = engineRate(
      (c, s) => insertConfig(s ? 'sql-insert-sqlite-startup' : 'sql-insert-sqlite', c, 'sqlite', `file:${file}?_pragma=journal_mode(WAL)`, 't'),
      n,
      {
        startupRuns: 2,
      },
    );
    const rawSq = rawSqliteInsert(file, n);
    rows.push({
      bench: `generate → sql_insert (SQLite file, WAL), batches of 100, ${n / 1000}k rows`,
      result: `${fmt(engSq)} rows/s`,
      baseline: `raw better-sqlite3 100-row INSERTs ${fmt(rawSq)} rows/s`,
      ratio: engSq / rawSq,
      target: '≥ 1× the raw client',
      pass: engSq >= rawSq,
      peer: NOTE,
    });
  } finally {
    await pool.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await pool.query(`DROP TABLE IF EXISTS ${source}`).catch(() => undefined);
    await pool.end();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
