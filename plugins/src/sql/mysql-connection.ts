/**
 * The `mysql` driver of the SQL components: MySQL and MariaDB through a mysql2 pool, taking the
 * Go driver's DSN (`user:password@tcp(host:port)/dbname?param=value`, Benthos' go-sql-driver/mysql).
 *
 * Rows come as go-sql-driver/mysql (1.8+) gives them to Redpanda Connect: integers as numbers (64-bit
 * ones exact), floats as numbers, DECIMAL, JSON, dates and times as their text (with `parseTime=true`,
 * DATETIME and TIMESTAMP as RFC 3339 text, Go's time.Time in JSON), bytes as text, NULL as null.
 * Arguments are escaped by mysql2 (values are data, never SQL). A select streams its rows, the
 * socket paused while pages wait unread; stopping early ends the query with its connection.
 * `conn_max_open` caps the pool (0: 10), `conn_max_idle` and `conn_max_idle_time` the idle ones.
 */
import type { Readable } from 'node:stream';
import type { Pool, PoolConnection, PoolOptions, TypeCastField, TypeCastNext } from 'mysql2/promise';
import { ErrorCode, SvcError, errorMessage, parseDuration, scrubSecrets } from '@svc/engine';
import type { Queryable, Row, SqlConnection, SqlConnectionConfig } from './connection.js';
import { exactInt, rfc3339 } from './values.js';

type MysqlLib = typeof import('mysql2/promise');

/** Pages of a streamed select that may wait unread before the socket is paused. */
const STREAM_PAGES = 10;

/** The DSN parameters taken here; any other is refused rather than ignored. */
const PARAMS = new Set(['parseTime', 'charset', 'timeout', 'interpolateParams', 'allowNativePasswords', 'multiStatements', 'loc']);

/** mysql2's options for a Go-style DSN; throws a config error for what it cannot honour. */
export function mysqlOptions(dsn: string): { options: PoolOptions; parseTime: boolean } {
  const m = /^(?:([^:@]*)(?::(.*))?@)?(?:(tcp|unix)\(([^)]*)\))?\/([^?]*)(?:\?(.*))?$/.exec(dsn);
  if (!m) throw new SvcError(ErrorCode.ConfigLint, 'mysql dsn: write user:password@tcp(host:port)/dbname[?param=value&...]');
  const [, user, password, net, addr, database, query] = m;
  const options: PoolOptions = { user: user ?? '', password: password ?? '', database: database || undefined };
  if (net === 'unix') options.socketPath = addr;
  else {
    const [host, port] = (addr || '127.0.0.1:3306').split(/:(?=\d+$)/);
    options.host = host || '127.0.0.1';
    options.port = port ? Number(port) : 3306;
  }
  let parseTime = false;
  for (const [k, v] of new URLSearchParams(query ?? '')) {
    if (!PARAMS.has(k)) {
      throw new SvcError(ErrorCode.ConfigLint, `mysql dsn: parameter ${k} is not implemented here: use ${[...PARAMS].join(', ')}`);
    }
    if (k === 'parseTime') parseTime = v === 'true' || v === '1';
    else if (k === 'charset') options.charset = v.split(',')[0];
    else if (k === 'timeout') options.connectTimeout = parseDuration(v);
    else if (k === 'loc' && v !== 'UTC') throw new SvcError(ErrorCode.ConfigLint, `mysql dsn: loc=${v}: only UTC is implemented here`);
  }
  return { options, parseTime };
}

/** A column value as the Go driver gives it. */
function typeCast(parseTime: boolean) {
  return (field: TypeCastField, next: TypeCastNext): unknown => {
    switch (field.type) {
      case 'LONGLONG': {
        const s = field.string();
        return s === null ? null : exactInt(s);
      }
      case 'NEWDECIMAL':
      case 'DECIMAL':
      case 'JSON':
      case 'DATE':
      case 'TIME':
      case 'YEAR':
        return field.string();
      case 'DATETIME':
      case 'TIMESTAMP': {
        const s = field.string();
        return s !== null && parseTime ? rfc3339(s) : s;
      }
      case 'TINY_BLOB':
      case 'MEDIUM_BLOB':
      case 'LONG_BLOB':
      case 'BLOB':
      case 'BIT':
      case 'GEOMETRY': {
        const b = field.buffer();
        return b === null ? null : b.toString();
      }
      default:
        return next();
    }
  };
}

export class MysqlConnection implements SqlConnection {
  readonly dialect = 'mysql' as const;
  private readonly pool: Pool;
  private readonly options: PoolOptions;

  constructor(
    private readonly lib: MysqlLib,
    private readonly conf: SqlConnectionConfig,
  ) {
    const { options, parseTime } = mysqlOptions(conf.dsn);
    const idle = conf.conn_max_idle_time ? parseDuration(conf.conn_max_idle_time) : 0;
    this.options = { ...options, typeCast: typeCast(parseTime) as PoolOptions['typeCast'], supportBigNumbers: true, bigNumberStrings: true, timezone: 'Z' };
    this.pool = lib.createPool({
      ...this.options,
      connectTimeout: options.connectTimeout ?? 10_000,
      connectionLimit: conf.conn_max_open && conf.conn_max_open > 0 ? conf.conn_max_open : 10,
      maxIdle: Math.max(0, conf.conn_max_idle),
      ...(idle > 0 ? { idleTimeout: idle } : {}),
    });
    this.pool.on('connection', () => undefined);
  }

  scrub(err: unknown): string {
    const password = this.options.password;
    return scrubSecrets(errorMessage(err), password ? [password] : [], [this.conf.dsn]);
  }

  async query(sql: string, args: unknown[] = []): Promise<Row[]> {
    const [rows] = await this.pool.query(sql, args);
    return Array.isArray(rows) ? (rows as Row[]) : [];
  }

  async write(sql: string, args: unknown[]): Promise<void> {
    await this.pool.query(sql, args);
  }

  /** Several statements in one text: on a connection of its own that allows them (arguments never go through it). */
  async script(sql: string): Promise<void> {
    const conn = await this.lib.createConnection({ ...this.options, multipleStatements: true });
    try {
      await conn.query(sql);
    } finally {
      await conn.end().catch(() => conn.destroy());
    }
  }

  async transaction<T>(f: (tx: Queryable) => Promise<T>): Promise<T> {
    const conn = await this.pool.getConnection();
    let broken = false;
    try {
      await conn.beginTransaction();
      const tx: Queryable = {
        query: async (sql, args = []) => {
          const [rows] = await conn.query(sql, args);
          return Array.isArray(rows) ? (rows as Row[]) : [];
        },
      };
      const out = await f(tx);
      await conn.commit();
      return out;
    } catch (err) {
      await conn.rollback().catch(() => (broken = true));
      throw err;
    } finally {
      if (broken) conn.destroy();
      else conn.release();
    }
  }

  async *pages(sql: string, args: unknown[], size: number): AsyncIterable<Row[]> {
    const conn: PoolConnection = await this.pool.getConnection();
    // The callback connection's query as a stream: reading stops (and the socket pauses) while it is full.
    const callbackConn = conn.connection as unknown as { query(sql: string, args: unknown[]): { stream(o: { highWaterMark: number }): Readable } };
    const rows = callbackConn.query(sql, args).stream({ highWaterMark: size * STREAM_PAGES });
    let finished = false;
    try {
      let page: Row[] = [];
      for await (const row of rows) {
        page.push(row as Row);
        if (page.length >= size) {
          yield page;
          page = [];
        }
      }
      if (page.length > 0) yield page;
      finished = true;
    } finally {
      // A query still running (the input was closed) ends with its connection.
      if (finished) conn.release();
      else {
        rows.destroy();
        conn.destroy();
      }
    }
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}
