/**
 * The connection fields every SQL component shares (Redpanda Connect's `driver`, `dsn`,
 * `init_files`, `init_statement`, `conn_max_*`) and one connection type over three databases (the
 * third, MySQL/MariaDB, in mysql-connection.ts):
 *
 * - PostgreSQL (`postgres`, `pgx`) through a pg pool: `conn_max_open` caps it (0: pg's 10),
 *   `conn_max_idle_time` and `conn_max_life_time` close idle and old connections, and
 *   `conn_max_idle: 0` keeps none idle. Rows are read with pg's text results, converted as the Go
 *   drivers give them (values.ts), and a select is one query whose rows are handed out as they arrive (the socket paused while
 *   1,000 wait unread).
 * - SQLite (`sqlite`) through better-sqlite3, an optional peer dependency installed by those who use
 *   it (native SQLite with its own file locking, so several
 *   processes may share a database; a process killed mid-write leaves it consistent, which a
 *   WebAssembly port with a lock directory would not). Calls are synchronous and short: they run
 *   on the main thread. A busy database is waited on for up to 5 s (`busy_timeout`).
 *
 * `init_files` then `init_statement` run once, on the first connection; a failure is a warning,
 * as in Benthos. Other drivers are refused at start, saying which are implemented.
 */
import { readFileSync } from 'node:fs';
import { ErrorCode, SvcError, errorMessage, f, parseDuration, scrubSecrets, type Infer, type Logger } from '@svc/engine';
import { MysqlConnection } from './mysql-connection.js';
import { exactInt, rfc3339, type Dialect } from './values.js';

const DRIVERS = ['mysql', 'postgres', 'pgx', 'clickhouse', 'mssql', 'sqlite', 'oracle', 'snowflake', 'trino', 'gocosmos', 'spanner', 'databricks'] as const;
const IMPLEMENTED = new Set(['mysql', 'postgres', 'pgx', 'sqlite']);

export const sqlConnectionFields = {
  driver: f
    .enum(DRIVERS)
    .describe(
      'A database driver to use (implemented here: `mysql` (MySQL and MariaDB), `postgres`, `pgx` and `sqlite`, the last with the `better-sqlite3` package installed beside @svc/plugins; the others are refused at start).',
    ),
  dsn: f
    .string()
    .describe(
      'A Data Source Name to identify the target database: `user:password@tcp(host:port)/dbname[?parseTime=true&...]` for `mysql`, `postgres://[user[:password]@][netloc][:port][/dbname][?param1=value1&...]` for `postgres` and `pgx`, `file:/path/to/filename.db[?_pragma=name(value)&mode=ro]` (or a plain path) for `sqlite`.',
    ),
  init_files: f
    .array(f.string())
    .optional()
    .advanced()
    .describe(
      'An optional list of file paths containing SQL statements to execute immediately upon the first connection to the target database. If both `init_statement` and `init_files` are specified the `init_statement` is executed _after_ the `init_files`. A failing statement is logged as a warning.',
    ),
  init_statement: f
    .string()
    .optional()
    .advanced()
    .describe(
      'An optional SQL statement to execute immediately upon the first connection to the target database. This is a useful way to initialise tables before processing data. Care should be taken to ensure that the statement is idempotent. A failure is logged as a warning.',
    ),
  conn_max_idle_time: f
    .duration()
    .optional()
    .advanced()
    .describe('An optional maximum amount of time a connection may be idle. If `value <= 0`, connections are not closed due to a connections idle time.'),
  conn_max_life_time: f
    .duration()
    .optional()
    .advanced()
    .describe('An optional maximum amount of time a connection may be reused. If `value <= 0`, connections are not closed due to a connections age.'),
  conn_max_idle: f
    .int()
    .default(2)
    .advanced()
    .describe('An optional maximum number of connections in the idle connection pool. If `value <= 0`, no idle connections are retained.'),
  conn_max_open: f
    .int()
    .optional()
    .advanced()
    .describe('An optional maximum number of open connections to the database. If `value <= 0`, then there is no limit (here: pg’s default of 10).'),
};

/** The fields after `driver` and `dsn` that every SQL output and processor takes as they are. */
export const sqlPoolFields = {
  init_files: sqlConnectionFields.init_files,
  init_statement: sqlConnectionFields.init_statement,
  conn_max_idle_time: sqlConnectionFields.conn_max_idle_time,
  conn_max_life_time: sqlConnectionFields.conn_max_life_time,
  conn_max_idle: sqlConnectionFields.conn_max_idle,
  conn_max_open: sqlConnectionFields.conn_max_open,
};

export type SqlConnectionConfig = Infer<ReturnType<typeof f.object<typeof sqlConnectionFields>>>;

export type Row = Record<string, unknown>;

/** What runs statements: a connection, or a transaction on one. */
export interface Queryable {
  /** Runs a statement; its rows (none for a statement that returns none). */
  query(sql: string, args?: unknown[]): Promise<Row[]>;
}

export interface SqlConnection extends Queryable {
  readonly dialect: Dialect;
  /** Runs a text of one or more statements without arguments (an init file). */
  script(sql: string): Promise<void>;
  /** Runs `f` in a transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(f: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs a statement that returns no rows, such as an INSERT; resolves once it is committed. It
   * may share its commit with other writes waiting at the same time; a write that fails fails
   * alone, the others still commit.
   */
  write(sql: string, args: unknown[]): Promise<void>;
  /** The rows of a select, `size` at a time, without holding the whole result. */
  pages(sql: string, args: unknown[], size: number): AsyncIterable<Row[]>;
  /** An error's text, the DSN's password taken out. */
  scrub(err: unknown): string;
  close(): Promise<void>;
}

/** The placeholder of the n-th argument (1-based) in the driver's style. */
export function placeholder(dialect: Dialect, n: number): string {
  return dialect === 'postgres' ? `$${n}` : '?';
}

/** `?` placeholders turned into `$1, $2, ...` for PostgreSQL (`??` is a literal `?`), as squirrel does. */
export function dollarPlaceholders(sql: string, dialect: Dialect, first = 1): string {
  if (dialect !== 'postgres') return sql.replace(/\?\?/g, '?');
  let n = first;
  return sql.replace(/\?\??/g, (m) => (m === '??' ? '?' : `$${n++}`));
}

function initStatements(conf: SqlConnectionConfig): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const file of conf.init_files ?? []) {
    try {
      out.push([`init_file '${file}'`, readFileSync(file, 'utf8')]);
    } catch (err) {
      throw new SvcError(ErrorCode.ConfigFile, `init_files: cannot read "${file}": ${errorMessage(err)}`, { cause: err });
    }
  }
  if (conf.init_statement) out.push(['init_statement', conf.init_statement]);
  return out;
}

// ---- PostgreSQL ----

type PgLib = (typeof import('pg'))['default'];

/** Pages of a streamed select that may wait unread before the socket is paused. */
const STREAM_PAGES = 10;

/** A pg Query emitting its rows one by one (no callback given). */
interface QueryEvents {
  on(event: 'row', f: (row: Row) => void): void;
  on(event: 'end', f: () => void): void;
  on(event: 'error', f: (err: unknown) => void): void;
}

/** pg's text-format parsers, set as the Go drivers convert (values.ts). */
function pgTypes(lib: PgLib): { getTypeParser: (oid: number, format?: string) => (v: string) => unknown } {
  const T = lib.types.builtins;
  const asText = (v: string) => v;
  const overrides = new Map<number, (v: string) => unknown>([
    [T.INT8, exactInt],
    [T.NUMERIC, asText],
    [T.JSON, asText],
    [T.JSONB, asText],
    [T.TIMESTAMP, rfc3339],
    [T.TIMESTAMPTZ, rfc3339],
    [T.DATE, rfc3339],
    [T.BYTEA, (v: string) => (lib.types.getTypeParser(T.BYTEA, 'text')(v) as Buffer).toString()],
  ]);
  return {
    getTypeParser: (oid, format) => overrides.get(oid) ?? (lib.types.getTypeParser(oid, (format ?? 'text') as 'text') as (v: string) => unknown),
  };
}

class PostgresConnection implements SqlConnection {
  readonly dialect = 'postgres' as const;
  private readonly pool;
  private readonly types;

  constructor(
    private readonly lib: PgLib,
    private readonly conf: SqlConnectionConfig,
  ) {
    this.types = pgTypes(lib);
    const idle = conf.conn_max_idle_time ? parseDuration(conf.conn_max_idle_time) : 0;
    const life = conf.conn_max_life_time ? parseDuration(conf.conn_max_life_time) : 0;
    this.pool = new lib.Pool({
      connectionString: conf.dsn,
      ...(conf.conn_max_open && conf.conn_max_open > 0 ? { max: conf.conn_max_open } : {}),
      // No idle connection kept (conn_max_idle <= 0), else until conn_max_idle_time (pg's 10 s when unset).
      ...(conf.conn_max_idle <= 0 ? { idleTimeoutMillis: 1 } : idle > 0 ? { idleTimeoutMillis: idle } : {}),
      ...(life > 0 ? { maxLifetimeSeconds: Math.max(1, Math.round(life / 1000)) } : {}),
      connectionTimeoutMillis: 10_000,
    });
    this.pool.on('error', () => undefined);
  }

  scrub(err: unknown): string {
    return scrubSecrets(errorMessage(err), [], [this.conf.dsn]);
  }

  async query(sql: string, args: unknown[] = []): Promise<Row[]> {
    const r = await this.pool.query({ text: sql, values: args, types: this.types });
    return lastRows(r);
  }

  async write(sql: string, args: unknown[]): Promise<void> {
    await this.query(sql, args);
  }

  async script(sql: string): Promise<void> {
    // Without values pg sends the simple query protocol, which runs several statements.
    await this.pool.query(sql);
  }

  async transaction<T>(f: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      const tx: Queryable = { query: async (sql, args = []) => lastRows(await client.query({ text: sql, values: args, types: this.types })) };
      const out = await f(tx);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => (broken = true));
      throw err;
    } finally {
      client.release(broken);
    }
  }

  /**
   * One query whose rows are handed out as they arrive, as Benthos' database/sql reads them
   * (`rows.Next()` over one result): no cursor, no round trip per page. pg hands each row over as
   * it is parsed; when STREAM_PAGES pages wait unread the socket is paused, so PostgreSQL blocks
   * on its send and a large table never sits in memory whole. Stopping early ends the query by
   * closing its connection.
   */
  async *pages(sql: string, args: unknown[], size: number): AsyncIterable<Row[]> {
    const client = await this.pool.connect();
    const socket = (client as unknown as { connection: { stream: { pause(): void; resume(): void } } }).connection.stream;
    const query = new this.lib.Query({ text: sql, values: args, types: this.types } as never) as unknown as QueryEvents;
    const ready: Row[][] = [];
    let page: Row[] = [];
    let done = false;
    let failure: unknown;
    let paused = false;
    let wake: (() => void) | undefined;
    const signal = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    query.on('row', (row: Row) => {
      page.push(row);
      if (page.length < size) return;
      ready.push(page);
      page = [];
      if (ready.length >= STREAM_PAGES && !paused) {
        paused = true;
        socket.pause();
      }
      signal();
    });
    query.on('end', () => {
      if (page.length > 0) ready.push(page);
      done = true;
      signal();
    });
    query.on('error', (err: unknown) => {
      failure = err;
      done = true;
      signal();
    });
    let finished = false;
    try {
      client.query(query as never);
      for (;;) {
        const next = ready.shift();
        if (next) {
          if (paused && ready.length < STREAM_PAGES / 2) {
            paused = false;
            socket.resume();
          }
          yield next;
        } else if (failure !== undefined) {
          throw failure;
        } else if (done) {
          break;
        } else {
          await new Promise<void>((r) => (wake = r));
        }
      }
      finished = true;
    } finally {
      if (paused) socket.resume();
      // A query still running (the input was closed) ends with its connection.
      client.release(!finished);
    }
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}

/** The rows of a result; of several statements' results (a multi-statement text), the last one's. */
function lastRows(r: unknown): Row[] {
  const last = Array.isArray(r) ? (r[r.length - 1] as { rows?: Row[] } | undefined) : (r as { rows?: Row[] });
  return last?.rows ?? [];
}

// ---- SQLite ----

type SqliteLib = typeof import('better-sqlite3');
type SqliteDatabase = InstanceType<SqliteLib['default']>;
type SqliteStatement = ReturnType<SqliteDatabase['prepare']>;

/** The file and options of a Go-style SQLite DSN (`file:/path.db?_pragma=journal_mode(WAL)&mode=ro`). */
function sqliteDsn(dsn: string): { file: string; readonly: boolean; mustExist: boolean; pragmas: string[] } {
  const noScheme = dsn.replace(/^file:(\/\/)?/, '');
  const q = noScheme.indexOf('?');
  const file = decodeURIComponent(q < 0 ? noScheme : noScheme.slice(0, q));
  const params = new URLSearchParams(q < 0 ? '' : noScheme.slice(q + 1));
  const pragmas: string[] = [];
  let readonly = false;
  let mustExist = false;
  for (const [k, v] of params) {
    if (k === '_pragma') {
      const m = /^(\w+)\((.*)\)$/.exec(v) ?? /^(\w+)=(.*)$/.exec(v);
      if (!m) throw new SvcError(ErrorCode.ConfigLint, `sqlite dsn: _pragma=${v}: write name(value)`);
      pragmas.push(`${m[1]} = ${m[2]}`);
    } else if (k === 'mode') {
      if (v === 'ro') readonly = true;
      else if (v === 'rw') mustExist = true;
      else if (v !== 'rwc' && v !== 'memory') throw new SvcError(ErrorCode.ConfigLint, `sqlite dsn: mode=${v}: use ro, rw, rwc or memory`);
    } else if (k === 'cache') {
      // shared or private: one connection per component, so either reads the same.
    } else if (k === '_journal_mode' || k === '_busy_timeout' || k === '_foreign_keys' || k === '_synchronous') {
      pragmas.push(`${k.slice(1)} = ${v}`);
    } else {
      throw new SvcError(
        ErrorCode.ConfigLint,
        `sqlite dsn: parameter ${k} is not implemented here: use _pragma=name(value), mode, cache, _journal_mode, _busy_timeout, _foreign_keys or _synchronous`,
      );
    }
  }
  return { file: file === '' ? ':memory:' : file, readonly, mustExist, pragmas };
}

/** A SQLite value as the Go driver gives it: integers exact, blobs as text. */
function sqliteValue(v: unknown): unknown {
  if (typeof v === 'bigint') return exactInt(v);
  if (Buffer.isBuffer(v)) return v.toString();
  return v;
}

function sqliteRow(r: Row): Row {
  for (const k of Object.keys(r)) r[k] = sqliteValue(r[k]);
  return r;
}

/** A write waiting for its commit. */
interface PendingWrite {
  sql: string;
  args: unknown[];
  resolve(): void;
  reject(err: unknown): void;
}

class SqliteConnection implements SqlConnection {
  readonly dialect = 'sqlite' as const;
  private readonly db: SqliteDatabase;
  private readonly statements = new Map<string, SqliteStatement>();
  /** Transactions wait their turn: SQLite has one per connection. */
  private turn: Promise<unknown> = Promise.resolve();
  /** Writes that will share the next commit. */
  private pending: PendingWrite[] = [];

  constructor(Database: SqliteLib['default'], dsn: string) {
    const d = sqliteDsn(dsn);
    this.db = new Database(d.file, { readonly: d.readonly, fileMustExist: d.mustExist, timeout: 5_000 });
    for (const p of d.pragmas) this.db.pragma(p);
  }

  scrub(err: unknown): string {
    return errorMessage(err);
  }

  private statement(sql: string): SqliteStatement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      if (s.reader) s.safeIntegers(true);
      // A bounded cache: statements built per message (unsafe_dynamic_query) must not pile up.
      if (this.statements.size >= 256) this.statements.clear();
      this.statements.set(sql, s);
    }
    return s;
  }

  private run(sql: string, args: unknown[]): Row[] {
    const s = this.statement(sql);
    if (s.reader) return s.all(...args).map(sqliteRow);
    s.run(...args);
    return [];
  }

  query(sql: string, args: unknown[] = []): Promise<Row[]> {
    return this.queued(() => this.run(sql, args));
  }

  script(sql: string): Promise<void> {
    return this.queued(() => void this.db.exec(sql));
  }

  write(sql: string, args: unknown[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ sql, args, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => void this.queued(() => this.commitPending()));
    });
  }

  /**
   * Runs the writes that queued up while the connection was busy in one transaction: a commit per
   * group rather than per write (SQLite rewrites the pages a commit touched, so 100-row INSERTs
   * grouped by 8-64 ran 1.3x as fast, raw better-sqlite3, WAL). A statement that fails is undone
   * alone (SQLite statements are atomic) and only its write is rejected; an error that ended the
   * whole transaction, or a failed COMMIT, rejects every write of the group: none was stored.
   */
  private commitPending(): void {
    const group = this.pending;
    this.pending = [];
    if (group.length === 1) {
      const w = group[0]!;
      try {
        this.run(w.sql, w.args);
        w.resolve();
      } catch (err) {
        w.reject(err);
      }
      return;
    }
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (err) {
      for (const w of group) w.reject(err);
      return;
    }
    let stored: PendingWrite[] = [];
    let lost: unknown;
    for (const w of group) {
      if (lost !== undefined) {
        w.reject(lost);
        continue;
      }
      try {
        this.run(w.sql, w.args);
        stored.push(w);
      } catch (err) {
        w.reject(err);
        if (!this.db.inTransaction) {
          lost = err;
          for (const s of stored) s.reject(err);
          stored = [];
        }
      }
    }
    if (lost !== undefined) return;
    try {
      this.db.exec('COMMIT');
    } catch (err) {
      try {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      } catch {
        // The COMMIT's error is the one to tell.
      }
      for (const s of stored) s.reject(err);
      return;
    }
    for (const s of stored) s.resolve();
  }

  private queued<T>(f: () => T | Promise<T>): Promise<T> {
    const next = this.turn.then(f);
    this.turn = next.catch(() => undefined);
    return next;
  }

  transaction<T>(f: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.queued(async () => {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const out = await f({ query: async (sql, args = []) => this.run(sql, args) });
        this.db.exec('COMMIT');
        return out;
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw err;
      }
    });
  }

  async *pages(sql: string, args: unknown[], size: number): AsyncIterable<Row[]> {
    const it = this.statement(sql).iterate(...args);
    let page: Row[] = [];
    for (const r of it) {
      page.push(sqliteRow(r));
      if (page.length >= size) {
        yield page;
        page = [];
      }
    }
    if (page.length > 0) yield page;
  }

  async close(): Promise<void> {
    await this.turn;
    this.db.close();
  }
}

/**
 * Opens a connection for a component (the database library loads only then) and runs the init
 * statements, warning on a failure. A driver not implemented here is refused, saying which are.
 */
export async function openSqlConnection(conf: SqlConnectionConfig, what: string, logger: Logger): Promise<SqlConnection> {
  if (!IMPLEMENTED.has(conf.driver)) {
    throw new SvcError(ErrorCode.ConfigLint, `${what}: driver ${conf.driver} is not implemented here: use mysql, postgres (or pgx) or sqlite`);
  }
  const inits = initStatements(conf);
  let conn: SqlConnection;
  if (conf.driver === 'sqlite') {
    const lib = await import('better-sqlite3').catch((err: unknown) => {
      throw new SvcError(
        ErrorCode.PluginLoad,
        `${what}: driver sqlite needs the better-sqlite3 package, an optional peer of @svc/plugins: npm install better-sqlite3@12 (it builds SQLite from source, a few minutes): ${errorMessage(err)}`,
        { cause: err },
      );
    });
    try {
      conn = new SqliteConnection(lib.default, conf.dsn);
    } catch (err) {
      if (err instanceof SvcError) throw new SvcError(err.code, `${what}: ${err.message}`);
      throw new SvcError(ErrorCode.ConfigLint, `${what}: cannot open the SQLite database of dsn "${conf.dsn}": ${errorMessage(err)}`, { cause: err });
    }
  } else if (conf.driver === 'mysql') {
    try {
      conn = new MysqlConnection(await import('mysql2/promise'), conf);
    } catch (err) {
      if (err instanceof SvcError) throw new SvcError(err.code, `${what}: ${err.message}`);
      throw err;
    }
  } else {
    conn = new PostgresConnection((await import('pg')).default, conf);
  }
  for (const [name, sql] of inits) {
    try {
      await conn.script(sql);
      logger.debug(`${what}: ran ${name}`);
    } catch (err) {
      logger.warn(`${what}: failed to execute ${name}: ${conn.scrub(err)}`);
    }
  }
  return conn;
}

/** True when `err` says the database could not be reached (retried as a reconnect), not that it refused a statement. */
export function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && (/^E(CONNREFUSED|CONNRESET|PIPE|TIMEDOUT|HOSTUNREACH|NOTFOUND|AI_AGAIN)$/.test(code) || /^(08|57P0)/.test(code))) return true;
  // mysql2's: the server went away mid-query, or refused a connection for lack of room.
  if (code === 'PROTOCOL_CONNECTION_LOST' || code === 'ER_CON_COUNT_ERROR') return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(errorMessage(err));
}
