/**
 * The `sql_insert` and `sql_raw` outputs (Redpanda Connect's). A write resolves only once the
 * database committed it, so a message is acknowledged at its input only after its row is stored:
 *
 * - `sql_insert`: a batch is one multi-row INSERT (split, in one transaction, only where PostgreSQL's
 *   65,535-parameter limit needs it). `suffix: ON CONFLICT ... DO NOTHING` makes redeliveries after
 *   a crash harmless.
 * - `sql_raw`: the query once per message, in order; a message whose query fails is the only one
 *   retried (a BatchError naming it).
 *
 * A database that cannot be reached is a NotConnectedError: the runtime waits and writes again.
 */
import {
  BatchError,
  NotConnectedError,
  batchPolicySpec,
  errorMessage,
  f,
  maxInFlightField,
  registerOutput,
  type Batch,
  type Infer,
  type Output,
} from '@svc/engine';
import { isConnectionError, openSqlConnection, sqlConnectionFields, sqlPoolFields, type SqlConnection } from './connection.js';
import { RawQuery, rawQueryFields } from './raw-query.js';
import { ArgsMapping, insertSql, rowsPerInsert } from './statements.js';

const insertSpec = f.object({
  driver: sqlConnectionFields.driver,
  dsn: sqlConnectionFields.dsn,
  table: f.string().describe('The table to insert to.'),
  columns: f.array(f.string()).describe('A list of columns to insert.'),
  args_mapping: f.mapping().describe('A Bloblang mapping which should evaluate to an array of values matching in size to the number of columns specified.'),
  prefix: f.string().optional().advanced().describe('An optional prefix to prepend to the insert query (before INSERT).'),
  suffix: f.string().optional().advanced().describe('An optional suffix to append to the insert query (`ON CONFLICT (name) DO NOTHING`).'),
  options: f.array(f.string()).optional().advanced().describe('A list of keyword options to add before the INTO clause of the query.'),
  max_in_flight: maxInFlightField(64, 'The maximum number of inserts to run in parallel.'),
  ...sqlPoolFields,
  batching: batchPolicySpec,
});

const rawSpec = f.object({
  ...rawQueryFields,
  max_in_flight: maxInFlightField(64, 'The maximum number of statements to execute in parallel.'),
  ...sqlPoolFields,
  batching: batchPolicySpec,
});

/** Runs `f`, a lost database becoming a NotConnectedError. */
async function guarded<T>(conn: SqlConnection, what: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof BatchError) throw err;
    if (isConnectionError(err)) throw new NotConnectedError(`${what}: cannot reach the database: ${conn.scrub(err)}`, { cause: err });
    throw new Error(`${what}: ${conn.scrub(err)}`, { cause: err });
  }
}

class SqlInsertOutput implements Output {
  private readonly args: ArgsMapping;
  private readonly perInsert: number;
  /** The INSERT for each row count met so far: built once, and the same string keys SQLite's prepared statement. */
  private readonly statements = new Map<number, string>();

  constructor(
    private readonly conf: Infer<typeof insertSpec>,
    private readonly conn: SqlConnection,
  ) {
    this.args = new ArgsMapping(conf.args_mapping, conn.dialect);
    this.perInsert = rowsPerInsert(conf.columns.length, conn.dialect);
  }

  async connect(): Promise<void> {
    await guarded(this.conn, 'sql_insert', () => this.conn.query('SELECT 1'));
  }

  private insert(rows: number): string {
    let sql = this.statements.get(rows);
    if (sql === undefined) {
      sql = insertSql(this.conf, rows, this.conn.dialect);
      // Batches come in a few sizes; a policy that makes every size still keeps this bounded.
      if (this.statements.size >= 64) this.statements.clear();
      this.statements.set(rows, sql);
    }
    return sql;
  }

  async write(batch: Batch): Promise<void> {
    const columns = this.conf.columns.length;
    // Every message's values in one flat list, row after row, as the placeholders number them.
    const values: unknown[] = new Array(batch.length * columns);
    for (let i = 0; i < batch.length; i++) {
      const a = this.args.of(batch, i);
      if (a.length !== columns) {
        throw new Error(`sql_insert: args_mapping gave ${a.length} value(s) for ${columns} column(s)`);
      }
      for (let c = 0; c < columns; c++) values[i * columns + c] = a[c];
    }
    await guarded(this.conn, 'sql_insert', async () => {
      if (batch.length <= this.perInsert) {
        await this.conn.write(this.insert(batch.length), values);
        return;
      }
      await this.conn.transaction(async (tx) => {
        for (let i = 0; i < batch.length; i += this.perInsert) {
          const rows = Math.min(this.perInsert, batch.length - i);
          await tx.query(this.insert(rows), values.slice(i * columns, (i + rows) * columns));
        }
      });
    });
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}

class SqlRawOutput implements Output {
  private readonly args: ArgsMapping;
  private readonly query: RawQuery;

  constructor(
    conf: Infer<typeof rawSpec>,
    private readonly conn: SqlConnection,
  ) {
    this.args = new ArgsMapping(conf.args_mapping, conn.dialect);
    this.query = new RawQuery(conf);
  }

  async connect(): Promise<void> {
    await guarded(this.conn, 'sql_raw', () => this.conn.query('SELECT 1'));
  }

  async write(batch: Batch): Promise<void> {
    let failed: BatchError | undefined;
    for (let i = 0; i < batch.length; i++) {
      try {
        const args = this.args.of(batch, i);
        const sql = this.query.text(batch, i);
        await guarded(this.conn, 'sql_raw', () => this.conn.query(sql, args));
      } catch (err) {
        if (err instanceof NotConnectedError) throw err;
        const e = err instanceof Error ? err : new Error(errorMessage(err));
        failed ??= new BatchError(batch.length, e);
        failed.failed(i, e);
      }
    }
    if (failed) throw failed;
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}

registerOutput('sql_insert', {
  summary: 'Inserts a row into an SQL database for each message.',
  description: [
    'A batch is inserted by one multi-row INSERT; the write is acknowledged once the database committed it (on SQLite,',
    'batches waiting at the same time share one commit; a batch that fails fails alone).',
    'Placeholders are generated (`$1`... for PostgreSQL, `?` for SQLite); `args_mapping` gives each message’s values',
    'in `columns` order. After a crash, messages in flight are delivered again: a `suffix` such as',
    '`ON CONFLICT (id) DO NOTHING` keeps them from being stored twice.',
  ].join('\n'),
  config: insertSpec,
  examples: [
    `output:
  sql_insert:
    driver: postgres
    dsn: postgres://foouser:foopass@localhost:5432/foodb?sslmode=disable
    table: footable
    columns: [ id, name, topic ]
    args_mapping: |
      root = [
        this.user.id,
        this.user.name,
        meta("kafka_topic"),
      ]
    suffix: ON CONFLICT (id) DO NOTHING
    init_statement: |
      CREATE TABLE IF NOT EXISTS footable (id bigint PRIMARY KEY, name text, topic text);
    batching:
      count: 500
      period: 100ms`,
  ],
  factory: async (conf, ctx) => new SqlInsertOutput(conf, await openSqlConnection(conf, 'sql_insert', ctx.logger)),
});

registerOutput('sql_raw', {
  summary: 'Executes an arbitrary SQL query for each message.',
  description: [
    'The query runs once per message, in batch order; the write is acknowledged once every message’s statement',
    'succeeded. A message whose statement fails is retried alone. With `unsafe_dynamic_query` the query is',
    'interpolated per message: defend against injection.',
  ].join('\n'),
  config: rawSpec,
  examples: [
    `output:
  sql_raw:
    driver: sqlite
    dsn: file:/var/lib/svc/events.db?_pragma=journal_mode(WAL)
    query: "INSERT INTO events (id, body) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body"
    args_mapping: 'root = [ this.id, content().string() ]'
    init_statement: CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, body TEXT)`,
  ],
  factory: async (conf, ctx) => new SqlRawOutput(conf, await openSqlConnection(conf, 'sql_raw', ctx.logger)),
});
