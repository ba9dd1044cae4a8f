// The SQL connectors against the PostgreSQL of scripts/services.sh and a SQLite file. Benthos'
// core build has no SQL components (they are in Redpanda Connect, whose module the Go proxy here
// does not serve), so the Benthos peer is core v4.51 with sql_insert and sql_select written as
// Connect writes them, on its drivers (bench/peers/benthos-connect: database/sql, lib/pq,
// modernc.org/sqlite), running the same YAML; each row also gives the raw client library doing the
// same work the plain way. Engine and peer runs are whole CLI processes with start-up subtracted
// (lib.mjs's engineRate); all end by themselves.
//
// - generate → sql_insert (PostgreSQL), batches of 100 rows (one multi-row INSERT each, max_in_flight
//   64) against a raw pg loop of awaited 100-row INSERTs.
// - generate → sql_insert (MariaDB, mysql driver), the same against a raw mysql2 loop of awaited
//   100-row INSERTs (the Benthos peer has no MySQL driver: no peer cell).
// - sql_select (PostgreSQL, one query streamed, 100 rows a batch) → drop against the raw pg client's
//   one `SELECT` of the whole table (held whole in memory), 1M rows.
// - generate → sql_insert (SQLite file, WAL) against a raw better-sqlite3 loop of 100-row INSERTs
//   (one commit each; the engine groups the batches that wait into one commit), 1M rows.
// The select and SQLite rows alternate engine and raw runs, best of three each.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceAddress } from '@svc/engine/testing';
import { ROOT, config, engineRate, fmt } from './lib.mjs';
import { benthosRate, connectPeerBinary, peerCells } from './peers.mjs';

const require = createRequire(join(ROOT, 'plugins', 'package.json'));
const pg = require('pg');
const Database = require('better-sqlite3');
const mysql = require('mysql2/promise');
const PG_URL = serviceAddress('SVC_POSTGRES_URL');
// lib/pq (the Benthos peer's driver) asks for TLS unless told not to; pg does not use it either way.
const PG_DSN = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}sslmode=disable`;
const BODY = 'x'.repeat(100);
const MYSQL_DSN = serviceAddress('SVC_MYSQL_DSN');

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
${driver === 'sqlite' ? '    conn_max_open: 1\n' : ''}`,
  );
}

/** One statement on a connection of its own (table set-up and clean-up). */
async function rawMysqlQuery(sql) {
  const [, user, host, port, database] = /^(\w+)@tcp\(([^:]+):(\d+)\)\/(\w+)$/.exec(MYSQL_DSN);
  const conn = await mysql.createConnection({ user, host, port: Number(port), database });
  try {
    await conn.query(sql);
  } finally {
    await conn.end();
  }
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

/** The raw mysql2 loop: awaited 100-row INSERTs on one connection. */
async function rawMysqlInsert(table, count) {
  const [, user, host, port, database] = /^(\w+)@tcp\(([^:]+):(\d+)\)\/(\w+)$/.exec(MYSQL_DSN);
  const conn = await mysql.createConnection({ user, host, port: Number(port), database });
  try {
    await conn.query(`DELETE FROM ${table}`);
    const ph = Array.from({ length: 100 }, () => '(?,?)').join(',');
    const t0 = performance.now();
    for (let i = 0; i < count; i += 100) {
      const values = [];
      for (let j = 0; j < 100; j++) values.push(i + j, BODY);
      await conn.query(`INSERT INTO ${table} (id, body) VALUES ${ph}`, values);
    }
    return count / ((performance.now() - t0) / 1000);
  } finally {
    await conn.end();
  }
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
  // The select and SQLite rows move 5× as many: at 200k their runs were not much longer than start-up.
  const big = n * 5;
  const table = `svc_bench_sql_${process.pid}`;
  const source = `${table}_src`;
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-sql-'));
  const rows = [];
  try {
    await pool.query(`CREATE TABLE ${table} (id bigint, body text)`);
    await pool.query(`CREATE TABLE ${source} AS SELECT g AS id, '${BODY}'::text AS body FROM generate_series(1, ${big}) g`);

    const myTable = `svc_bench_mysql_${process.pid}`;
    await rawMysqlQuery(`CREATE TABLE ${myTable} (id bigint, body text)`);
    try {
      const myInsert = (c, s) => insertConfig(s ? 'sql-insert-mysql-startup' : 'sql-insert-mysql', c, 'mysql', MYSQL_DSN, myTable);
      // `big` rows: at 50k the run is shorter than the start-up it subtracts (a quick run read 7×).
      const engMy = engineRate(myInsert, big, { startupRuns: 3 });
      const rawMy = await rawMysqlInsert(myTable, big);
      rows.push({
        bench: `generate → sql_insert (MariaDB, mysql driver), batches of 100, ${big / 1000}k rows`,
        result: `${fmt(engMy)} rows/s`,
        baseline: `raw mysql2 awaited 100-row INSERTs ${fmt(rawMy)} rows/s`,
        ratio: engMy / rawMy,
        target: '≥ 1×',
        pass: engMy / rawMy >= 1,
      });
    } finally {
      await rawMysqlQuery(`DROP TABLE IF EXISTS ${myTable}`);
    }

    const bin = connectPeerBinary();
    const pgInsert = (c, s) => insertConfig(s ? 'sql-insert-pg-startup' : 'sql-insert-pg', c, 'postgres', PG_DSN, table);
    const eng = engineRate(pgInsert, n, { startupRuns: 2 });
    const peerIns = bin ? benthosRate(pgInsert, n, { startupRuns: 2 }, bin) : undefined;
    const raw = await rawPgInsert(pool, table, n);
    rows.push({
      bench: `generate → sql_insert (PostgreSQL), batches of 100, ${n / 1000}k rows`,
      result: `${fmt(eng)} rows/s`,
      baseline: `raw pg awaited 100-row INSERTs ${fmt(raw)} rows/s`,
      ratio: eng / raw,
      target: '≥ 1× Benthos',
      pass: peerIns === undefined ? undefined : eng >= peerIns,
      ...peerCells(eng, peerIns, 'rows/s'),
    });

    const select = (c, s) =>
      config(
        s ? 'sql-select-pg-startup' : 'sql-select-pg',
        `http: { enabled: false }
logger: { level: WARN }
input:
  sql_select: { driver: postgres, dsn: "${PG_DSN}", table: ${source}, columns: [ id, body ], suffix: "LIMIT ${c}" }
output:
  drop: {}
`,
      );
    // Engine and raw alternate, best of three each, so both see the same load on the shared machine.
    let engSel = 0;
    let rawSel = 0;
    let peerSel;
    for (let r = 0; r < 3; r++) {
      engSel = Math.max(engSel, engineRate(select, big, { startupRuns: 2, runs: 1 }));
      if (bin) peerSel = Math.max(peerSel ?? 0, benthosRate(select, big, { startupRuns: 2, runs: 1 }, bin));
      const t0 = performance.now();
      const res = await pool.query(`SELECT id, body FROM ${source}`);
      rawSel = Math.max(rawSel, res.rows.length / ((performance.now() - t0) / 1000));
    }
    rows.push({
      bench: `sql_select (PostgreSQL, one streamed query, 100 rows a batch) → drop, ${big / 1000}k rows`,
      result: `${fmt(engSel)} rows/s`,
      baseline: `raw pg one SELECT of the table ${fmt(rawSel)} rows/s`,
      ratio: engSel / rawSel,
      target: '≥ 1× Benthos',
      pass: peerSel === undefined ? undefined : engSel >= peerSel,
      ...peerCells(engSel, peerSel, 'rows/s'),
    });

    const file = join(dir, 'bench.db');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (id INTEGER, body TEXT)');
    db.close();
    const sqInsert = (c, s) => insertConfig(s ? 'sql-insert-sqlite-startup' : 'sql-insert-sqlite', c, 'sqlite', `file:${file}?_pragma=journal_mode(WAL)`, 't');
    let engSq = 0;
    let rawSq = 0;
    let peerSq;
    for (let r = 0; r < 3; r++) {
      engSq = Math.max(engSq, engineRate(sqInsert, big, { startupRuns: 2, runs: 1 }));
      // Benthos (modernc.org/sqlite) is far slower: a fifth of the rows keeps the run short.
      if (bin) peerSq = Math.max(peerSq ?? 0, benthosRate(sqInsert, big / 5, { startupRuns: 2, runs: 1 }, bin));
      rawSq = Math.max(rawSq, rawSqliteInsert(file, big));
    }
    rows.push({
      bench: `generate → sql_insert (SQLite file, WAL), batches of 100, ${big / 1000}k rows`,
      result: `${fmt(engSq)} rows/s`,
      baseline: `raw better-sqlite3 100-row INSERTs ${fmt(rawSq)} rows/s`,
      ratio: engSq / rawSq,
      target: '≥ 1× Benthos',
      pass: peerSq === undefined ? undefined : engSq >= peerSq,
      ...peerCells(engSq, peerSq, 'rows/s'),
    });
  } finally {
    await pool.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await pool.query(`DROP TABLE IF EXISTS ${source}`).catch(() => undefined);
    await pool.end();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
