/**
 * The `sql_select` and `sql_raw` inputs (Redpanda Connect's): run a query once, a message per row,
 * then end (so a `sequence` goes on to its next input, or the stream stops). A PostgreSQL select is
 * one query whose rows are handed out as they arrive, reading paused while 1,000 wait, so a large
 * table never sits in memory whole.
 */
import { f, registerInput, type Infer } from '@svc/engine';
import { openSqlConnection, sqlConnectionFields, sqlPoolFields } from './connection.js';
import { PAGE_ROWS, RowsInput } from './rows-input.js';
import { ArgsMapping, selectSql } from './statements.js';

const autoReplayNacks = f
  .bool()
  .default(true)
  .describe(
    'Whether messages that are rejected (nacked) at the output level should be automatically replayed indefinitely, eventually resulting in back pressure if the cause of the rejections is persistent. If set to `false` these messages will instead be deleted.',
  );

const selectSpec = f.object({
  driver: sqlConnectionFields.driver,
  dsn: sqlConnectionFields.dsn,
  table: f.string().describe('The table to select from.'),
  columns: f.array(f.string()).describe('A list of columns to select.'),
  where: f
    .string()
    .optional()
    .describe(
      'An optional where clause to add. Placeholder arguments are populated with the `args_mapping` field. Placeholders should always be question marks, and will automatically be converted to dollar syntax when the postgres driver is used.',
    ),
  args_mapping: f
    .mapping()
    .optional()
    .describe(
      'An optional Bloblang mapping which should evaluate to an array of values matching in size to the number of placeholder arguments in the field `where`.',
    ),
  prefix: f.string().optional().advanced().describe('An optional prefix to prepend to the select query (before SELECT).'),
  suffix: f.string().optional().advanced().describe('An optional suffix to append to the select query.'),
  auto_replay_nacks: autoReplayNacks,
  ...sqlPoolFields,
});

const rawSpec = f.object({
  driver: sqlConnectionFields.driver,
  dsn: sqlConnectionFields.dsn,
  query: f
    .string()
    .describe('The query to execute. The style of placeholder to use depends on the driver: `$1`, `$2`, ... for `postgres` and `pgx`, `?` for `sqlite`.'),
  args_mapping: f
    .mapping()
    .optional()
    .describe(
      'An optional Bloblang mapping which should evaluate to an array of values matching in size to the number of placeholder arguments in the field `query`.',
    ),
  auto_replay_nacks: autoReplayNacks,
  ...sqlPoolFields,
});

type SelectConf = Infer<typeof selectSpec>;
type RawConf = Infer<typeof rawSpec>;

const ENDS = [
  'Once the rows from the query are exhausted this input shuts down, allowing the pipeline to gracefully terminate (or the next input in a `sequence` to execute).',
  '',
  'Each row is a message: a JSON object of its columns. Integers keep all 64 bits; numeric and json columns are',
  'their text; timestamps RFC 3339 text; NULL is null. Rows come 100 to a batch.',
].join('\n');

registerInput('sql_select', {
  summary: 'Executes a select query and creates a message for each row received.',
  description: ENDS,
  config: selectSpec,
  examples: [
    `input:
  sql_select:
    driver: postgres
    dsn: postgres://foouser:foopass@localhost:5432/testdb?sslmode=disable
    table: footable
    columns: [ '*' ]
    where: created_at >= ?
    args_mapping: |
      root = [
        now().ts_unix() - 3600
      ]`,
  ],
  factory: async (conf: SelectConf, ctx) => {
    const conn = await openSqlConnection(conf, 'sql_select', ctx.logger);
    const sql = selectSql(conf, conn.dialect);
    const args = new ArgsMapping(conf.args_mapping, conn.dialect);
    return new RowsInput(conn, 'sql_select', () => conn.pages(sql, args.alone(), PAGE_ROWS), ctx.logger);
  },
});

/** A statement whose rows are streamed (others are read whole: the last result of several is the one kept). */
const SELECTS = /^\s*(select|with|values|table)\b/i;

registerInput('sql_raw', {
  summary: 'Executes a select query and creates a message for each row received.',
  description: `${ENDS}\n\nA query that is not a SELECT (say an \`INSERT ... RETURNING\`) is read whole before its rows are handed out.`,
  config: rawSpec,
  examples: [
    `input:
  sql_raw:
    driver: postgres
    dsn: postgres://foouser:foopass@localhost:5432/testdb?sslmode=disable
    query: "SELECT name, count(*) FROM person WHERE last_updated < $1 GROUP BY name;"
    args_mapping: |
      root = [
        now().ts_unix() - 3600
      ]`,
  ],
  factory: async (conf: RawConf, ctx) => {
    const conn = await openSqlConnection(conf, 'sql_raw', ctx.logger);
    const args = new ArgsMapping(conf.args_mapping, conn.dialect);
    const query = conf.query.replace(/;\s*$/, '');
    const run = SELECTS.test(query)
      ? () => conn.pages(query, args.alone(), PAGE_ROWS)
      : async function* () {
          const rows = await conn.query(query, args.alone());
          for (let i = 0; i < rows.length; i += PAGE_ROWS) yield rows.slice(i, i + PAGE_ROWS);
        };
    return new RowsInput(conn, 'sql_raw', run, ctx.logger);
  },
});
