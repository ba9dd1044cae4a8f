/**
 * Test helpers for the sql family (the `*.test.ts` files only): the real PostgreSQL of
 * `scripts/services.sh up` through a pg pool of the test's own, table names no other test uses
 * (dropped when the file ends), SQLite databases in a temporary folder, components built from
 * config.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import pg from 'pg';
import type { Input, Output, Processor } from '@svc/engine';
import { buildComponent, serviceAddress, testContext } from '@svc/engine/testing';
import './index.js';

export const PG_URL = serviceAddress('SVC_POSTGRES_URL');

let pool: pg.Pool | undefined;
const tables = new Set<string>();
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
