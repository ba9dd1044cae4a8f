/**
 * The query of `sql_raw`, shared by its output and its processor: the fields that give it
 * (Redpanda Connect's `driver`, `dsn`, `query`, `unsafe_dynamic_query`, `args_mapping`) and the
 * text it has for a message (the query itself, or with `unsafe_dynamic_query` its interpolation).
 */
import { compileInterpolation, errorMessage, f, type Batch, type Interpolation } from '@svc/engine';
import { sqlConnectionFields } from './connection.js';

/** `args_mapping` for a statement whose placeholders are in the field `of`. */
export const argsMappingField = (of: string) =>
  f
    .mapping()
    .optional()
    .describe(
      `An optional Bloblang mapping which should evaluate to an array of values matching in size to the number of placeholder arguments in the field \`${of}\`.`,
    );

export const rawQueryFields = {
  driver: sqlConnectionFields.driver,
  dsn: sqlConnectionFields.dsn,
  query: f.string().describe('The query to execute. Placeholders: `$1`, `$2`, ... for `postgres` and `pgx`, `?` for `sqlite`.'),
  unsafe_dynamic_query: f
    .bool()
    .default(false)
    .advanced()
    .describe(
      'Whether to enable interpolation functions in the query. Great care should be made to ensure your queries are defended against injection attacks.',
    ),
  args_mapping: argsMappingField('query'),
};

export class RawQuery {
  private readonly dynamic: Interpolation | undefined;

  constructor(private readonly conf: { query: string; unsafe_dynamic_query: boolean }) {
    this.dynamic = conf.unsafe_dynamic_query ? compileInterpolation(conf.query) : undefined;
  }

  /** The query for the message at `index`; throws when its interpolation fails. */
  text(batch: Batch, index: number): string {
    if (!this.dynamic) return this.conf.query;
    try {
      return this.dynamic.value(batch[index]!, { batch, index });
    } catch (err) {
      throw new Error(`query interpolation error: ${errorMessage(err)}`);
    }
  }
}
