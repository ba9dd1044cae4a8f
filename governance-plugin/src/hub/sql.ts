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

/**
 * The database did not answer: no connection within the connect timeout, no answer to a statement
 * within the statement timeout, or the connection broke. Callers answer 503 (agents: UNAVAILABLE)
 * instead of waiting on a database that hangs.
 */
export class DatabaseUnavailableError extends Error {
  readonly code = 'DATABASE_UNAVAILABLE';
  constructor(cause: unknown) {
    super(`the database did not answer: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** How long the hub waits for PostgreSQL. */
export interface PostgresTimeouts {
  connectTimeoutMs: number;
  statementTimeoutMs: number;
}

export async function openPostgres(url: string, timeouts: PostgresTimeouts = { connectTimeoutMs: 5000, statementTimeoutMs: 10_000 }): Promise<Sql> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: url,
    max: 8,
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    // PostgreSQL cancels a statement that runs too long; the client stops waiting for one that hangs.
    statement_timeout: timeouts.statementTimeoutMs,
    query_timeout: timeouts.statementTimeoutMs,
  });
  // A broken connection is reported to the query that used it; an idle one failing must not crash the hub.
  pool.on('error', () => undefined);
  // Anything but an answer from the server (a timeout, a refused or broken connection) is the database being unavailable.
  const answered = <T>(p: Promise<T>): Promise<T> =>
    p.catch((err: unknown) => Promise.reject(err instanceof pg.DatabaseError ? err : new DatabaseUnavailableError(err)));
  return {
    query: async <T>(text: string, params?: unknown[]) => (await answered(pool.query(text, params))).rows as T[],
    transaction: async (fn) => {
      const client = await answered(pool.connect());
      let broken: Error | undefined;
      try {
        await answered(client.query('BEGIN'));
        const out = await fn({ query: async <T>(text: string, params?: unknown[]) => (await answered(client.query(text, params))).rows as T[] });
        await answered(client.query('COMMIT'));
        return out;
      } catch (err) {
        // A connection that did not answer is dropped, not rolled back (that would wait again) nor reused.
        if (err instanceof DatabaseUnavailableError) broken = err;
        else await client.query('ROLLBACK').catch((e: Error) => (broken = e));
        throw err;
      } finally {
        client.release(broken);
      }
    },
    // Closing waits for the server to say goodbye; a hung one never does.
    close: () => Promise.race([pool.end(), new Promise<void>((r) => setTimeout(r, timeouts.connectTimeoutMs).unref())]),
  };
}
