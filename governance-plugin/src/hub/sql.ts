/**
 * The hub's database, reached through one small interface so the same SQL runs on both: PGlite
 * (PostgreSQL compiled to WASM, in a folder of the hub's: the embedded default, which installs
 * from npm alone and survives `kill -9` with nothing lost) and PostgreSQL through `pg` (several
 * hub replicas sharing one database).
 */
import { lockDataDir } from './data-dir-lock.js';

export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Runs `fn` in one transaction: all of it is applied or none. */
  transaction<T>(fn: (tx: Pick<Sql, 'query'>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function openPglite(dir: string): Promise<Sql> {
  const unlock = lockDataDir(dir);
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(dir).catch((err: unknown) => {
    unlock();
    throw err;
  });
  const query = async <T>(text: string, params?: unknown[]) => (await db.query<T>(text, params)).rows;
  return {
    query,
    transaction: (fn) => db.transaction((tx) => fn({ query: async <T>(text: string, params?: unknown[]) => (await tx.query<T>(text, params)).rows })),
    close: async () => {
      try {
        await db.close();
      } finally {
        unlock();
      }
    },
  };
}

export async function openPostgres(url: string): Promise<Sql> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  // A broken connection is reported to the query that used it; an idle one failing must not crash the hub.
  pool.on('error', () => undefined);
  return {
    query: async <T>(text: string, params?: unknown[]) => (await pool.query(text, params)).rows as T[],
    transaction: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn({ query: async <T>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as T[] });
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
