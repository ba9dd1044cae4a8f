/**
 * The `sql_select`, `sql_insert` and `sql_raw` processors (Redpanda Connect's).
 *
 * - `sql_select`: per message, a select built from `table`, `columns` and `where`; the message
 *   becomes the array of rows.
 * - `sql_raw`: per message, `query`; the message becomes the array of rows, or stays as it was
 *   with `exec_only`.
 * - `sql_insert`: the batch as one multi-row INSERT; the messages stay as they were.
 *
 * A failure flags the message (every message of the batch for `sql_insert`) and it goes on. The
 * messages of a batch run in order. One connection pool for every pipeline thread (`mainThread`).
 */
import { f, registerProcessor, type Batch, type Infer, type Processor } from '@svc/engine';
import { openSqlConnection, sqlConnectionFields, sqlPoolFields, type SqlConnection } from './connection.js';
import { RawQuery, argsMappingField, rawQueryFields } from './raw-query.js';
import { ArgsMapping, insertSql, rowsPerInsert, selectSql } from './statements.js';

const selectSpec = f.object({
  driver: sqlConnectionFields.driver,
  dsn: sqlConnectionFields.dsn,
  table: f.string().describe('The table to query.'),
  columns: f.array(f.string()).describe('A list of columns to query.'),
  where: f
    .string()
    .optional()
    .describe(
      'An optional where clause to add. Placeholders should always be question marks (`$1`, ... for postgres is done for you), populated by `args_mapping`.',
    ),
  args_mapping: argsMappingField('where'),
  prefix: f.string().optional().advanced().describe('An optional prefix to prepend to the query (before SELECT).'),
  suffix: f.string().optional().advanced().describe('An optional suffix to append to the select query.'),
  ...sqlPoolFields,
});

const insertSpec = f.object({
  driver: sqlConnectionFields.driver,
  dsn: sqlConnectionFields.dsn,
  table: f.string().describe('The table to insert to.'),
  columns: f.array(f.string()).describe('A list of columns to insert.'),
  args_mapping: f.mapping().describe('A Bloblang mapping which should evaluate to an array of values matching in size to the number of columns specified.'),
  prefix: f.string().optional().advanced().describe('An optional prefix to prepend to the insert query (before INSERT).'),
  suffix: f.string().optional().advanced().describe('An optional suffix to append to the insert query.'),
  options: f.array(f.string()).optional().advanced().describe('A list of keyword options to add before the INTO clause of the query.'),
  ...sqlPoolFields,
});

const rawSpec = f.object({
  ...rawQueryFields,
  exec_only: f
    .bool()
    .optional()
    .describe(
      'Whether the query result should be discarded. When set to `true` the message contents will remain unchanged, which is useful in cases where you are executing inserts, updates, etc.',
    ),
  ...sqlPoolFields,
});

/** Runs `q` for each message in order; its rows replace the message unless `keep`. */
class PerMessageQuery implements Processor {
  constructor(
    private readonly conn: SqlConnection,
    private readonly args: ArgsMapping,
    private readonly sql: (batch: Batch, i: number) => string,
    private readonly keep: boolean,
  ) {}

  async process(batch: Batch): Promise<Batch[]> {
    for (let i = 0; i < batch.length; i++) {
      const m = batch[i]!;
      try {
        const rows = await this.conn.query(this.sql(batch, i), this.args.of(batch, i));
        if (!this.keep) m.setJson(rows);
      } catch (err) {
        m.setError(this.conn.scrub(err));
      }
    }
    return [batch];
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}

class InsertProcessor implements Processor {
  private readonly args: ArgsMapping;
  private readonly perInsert: number;

  constructor(
    private readonly conf: Infer<typeof insertSpec>,
    private readonly conn: SqlConnection,
  ) {
    this.args = new ArgsMapping(conf.args_mapping, conn.dialect);
    this.perInsert = rowsPerInsert(conf.columns.length, conn.dialect);
  }

  async process(batch: Batch): Promise<Batch[]> {
    try {
      const values = batch.map((_, i) => this.args.of(batch, i));
      await this.conn.transaction(async (tx) => {
        for (let i = 0; i < values.length; i += this.perInsert) {
          const part = values.slice(i, i + this.perInsert);
          await tx.query(insertSql(this.conf, part.length, this.conn.dialect), part.flat());
        }
      });
    } catch (err) {
      const text = this.conn.scrub(err);
      for (const m of batch) m.setError(text);
    }
    return [batch];
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}

registerProcessor('sql_select', {
  summary:
    'Runs an SQL select query against a database and returns the result as an array of objects, one for each row returned, containing a key for each column queried and its value.',
  description: 'If the query fails to execute then the message will remain unchanged and the error can be caught using error handling methods.',
  config: selectSpec,
  mainThread: true,
  examples: [
    `pipeline:
  processors:
    - branch:
        processors:
          - sql_select:
              driver: postgres
              dsn: postgres://foouser:foopass@localhost:5432/testdb?sslmode=disable
              table: footable
              columns: [ '*' ]
              where: user_id = ?
              args_mapping: '[ this.user.id ]'
        result_map: 'root.foo_rows = this'`,
  ],
  factory: async (conf, ctx) => {
    const conn = await openSqlConnection(conf, 'sql_select', ctx.logger);
    const sql = selectSql(conf, conn.dialect);
    return new PerMessageQuery(conn, new ArgsMapping(conf.args_mapping, conn.dialect), () => sql, false);
  },
});

registerProcessor('sql_insert', {
  summary: 'Inserts rows into an SQL database for each message, and leaves the message unchanged.',
  description: 'The batch is inserted in one transaction; if it fails every message of the batch is flagged with the error and left unchanged.',
  config: insertSpec,
  mainThread: true,
  examples: [
    `pipeline:
  processors:
    - sql_insert:
        driver: sqlite
        dsn: file:/tmp/audit.db
        table: audit
        columns: [ id, topic ]
        args_mapping: 'root = [ this.id, meta("kafka_topic") ]'
        init_statement: CREATE TABLE IF NOT EXISTS audit (id INTEGER, topic TEXT)`,
  ],
  factory: async (conf, ctx) => new InsertProcessor(conf, await openSqlConnection(conf, 'sql_insert', ctx.logger)),
});

registerProcessor('sql_raw', {
  summary: 'Runs an arbitrary SQL query against a database and (optionally) returns the result as an array of objects, one for each row returned.',
  description: 'If the query fails to execute then the message will remain unchanged and the error can be caught using error handling methods.',
  config: rawSpec,
  mainThread: true,
  examples: [
    `pipeline:
  processors:
    - branch:
        processors:
          - sql_raw:
              driver: postgres
              dsn: postgres://foouser:foopass@localhost:5432/testdb?sslmode=disable
              query: "SELECT * FROM footable WHERE user_id = $1;"
              args_mapping: '[ this.user.id ]'
        result_map: 'root.foo_rows = this'`,
  ],
  factory: async (conf, ctx) => {
    const conn = await openSqlConnection(conf, 'sql_raw', ctx.logger);
    const query = new RawQuery(conf);
    return new PerMessageQuery(conn, new ArgsMapping(conf.args_mapping, conn.dialect), (batch, i) => query.text(batch, i), conf.exec_only === true);
  },
});
