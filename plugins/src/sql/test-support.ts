/**
 * Test helpers for the sql family (the `*.test.ts` files only): the real PostgreSQL and MariaDB of
 * `scripts/services.sh up` through pools of the test's own (pg, mysql2), table names no other test uses
 * (dropped when the file ends), SQLite databases in a temporary folder, components built from
 * config.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import pg from 'pg';
import mysql from 'mysql2/promise';
import type { Input, Output, Processor } from '@svc/engine';
import { buildComponent, serviceAddress, testContext } from '@svc/engine/testing';
import './index.js';

export const PG_URL = serviceAddress('SVC_POSTGRES_URL');
/** MariaDB's DSN in the Go driver's form, as a config gives it. */
export const MYSQL_DSN = serviceAddress('SVC_MYSQL_DSN');

let pool: pg.Pool | undefined;
let mysqlPool: mysql.Pool | undefined;
const tables = new Set<string>();
const mysqlTables = new Set<string>();

/** Runs a statement on the test's own MariaDB connection; its rows. */
export async function mysqlQuery<T = Record<string, unknown>>(sql: string, args: unknown[] = []): Promise<T[]> {
  if (!mysqlPool) {
    const m = /^(\w+)@tcp\(([^:]+):(\d+)\)\/(\w+)$/.exec(MYSQL_DSN);
    if (!m) throw new Error(`SVC_MYSQL_DSN ${MYSQL_DSN}: expected user@tcp(host:port)/db`);
    mysqlPool = mysql.createPool({
      user: m[1],
      host: m[2],
      port: Number(m[3]),
      database: m[4],
      connectionLimit: 2,
      supportBigNumbers: true,
      bigNumberStrings: true,
    });
  }
  const [rows] = await mysqlPool.query(sql, args);
  return rows as T[];
}

/** A table name no other test uses; dropped (in MariaDB) when the file ends. */
export function mysqlTable(prefix: string): string {
  const t = `svc_test_${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  mysqlTables.add(t);
  return t;
}
const dir = mkdtempSync(join(tmpdir(), 'svc-sql-test-'));

/** Runs a statement on the test's own PostgreSQL connection; its rows. */
export async function pgQuery<T = Record<string, unknown>>(sql: string, args: unknown[] = []): Promise<T[]> {
  pool ??= new pg.Pool({ connectionString: PG_URL, max: 2 });
  return (await pool.query(sql, args)).rows as T[];
}

after(async () => {
  if (pool) {
    for (const t of tables) await pool.query(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined);
    await pool.end();
  }
  if (mysqlPool) {
    for (const t of mysqlTables) await mysqlPool.query(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined);
    await mysqlPool.end();
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A table name no other test uses; dropped (in PostgreSQL) when the file ends. */
export function tempTable(prefix: string): string {
  const t = `svc_test_${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  tables.add(t);
  return t;
}

/** A fresh SQLite database file in the test's temporary folder. */
export function sqliteFile(name: string): string {
  return join(dir, `${name}-${Math.random().toString(36).slice(2, 8)}.db`);
}

const ctx = (type: string, path: string) => testContext({ type, path });

export function buildInput(type: string, config: Record<string, unknown>): Promise<Input> {
  return buildComponent<Input>('input', type, config, ctx(type, 'root.input'));
}

export function buildOutput(type: string, config: Record<string, unknown>): Promise<Output> {
  return buildComponent<Output>('output', type, config, ctx(type, 'root.output'));
}

export function buildProcessor(type: string, config: Record<string, unknown>): Promise<Processor> {
  return buildComponent<Processor>('processor', type, config, ctx(type, 'root.pipeline.processors.0'));
}
