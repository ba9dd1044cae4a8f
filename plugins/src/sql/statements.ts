/**
 * The statements the SQL components build, as Redpanda Connect builds them with squirrel:
 *
 *   [prefix ]SELECT columns FROM table[ WHERE where][ suffix]
 *   [prefix ]INSERT [options ]INTO table (columns) VALUES (...),(...)[ suffix]
 *
 * `where` takes `?` placeholders, numbered `$1, $2, ...` for PostgreSQL; a batch becomes one
 * multi-row INSERT. And the arguments each message gives through `args_mapping`.
 */
import { Message, compileMapping, errorMessage, type Batch, type Mapping } from '@svc/engine';
import { dollarPlaceholders, placeholder } from './connection.js';
import { sqlArgs, type Dialect } from './values.js';

export interface SelectParts {
  table: string;
  columns: string[];
  where?: string;
  prefix?: string;
  suffix?: string;
}

export function selectSql(p: SelectParts, dialect: Dialect): string {
  let sql = `SELECT ${p.columns.join(', ')} FROM ${p.table}`;
  if (p.where) sql += ` WHERE ${dollarPlaceholders(p.where, dialect)}`;
  if (p.prefix) sql = `${p.prefix} ${sql}`;
  if (p.suffix) sql += ` ${p.suffix}`;
  return sql;
}

export interface InsertParts {
  table: string;
  columns: string[];
  prefix?: string;
  suffix?: string;
  options?: string[];
}

/** PostgreSQL takes at most 65,535 parameters in one statement, */
const MAX_PG_PARAMS = 65_535;
/** SQLite (3.32 on) at most 32,766. */
const MAX_SQLITE_PARAMS = 32_766;

/** The rows per INSERT: a whole batch, unless PostgreSQL's parameter limit needs it split. */
export function rowsPerInsert(columns: number, dialect: Dialect): number {
  return Math.max(1, Math.floor((dialect === 'postgres' ? MAX_PG_PARAMS : MAX_SQLITE_PARAMS) / Math.max(1, columns)));
}

export function insertSql(p: InsertParts, rows: number, dialect: Dialect): string {
  const values: string[] = [];
  let n = 1;
  for (let r = 0; r < rows; r++) {
    const ph: string[] = [];
    for (let c = 0; c < p.columns.length; c++) ph.push(placeholder(dialect, n++));
    values.push(`(${ph.join(',')})`);
  }
  let sql = `INSERT ${p.options?.length ? `${p.options.join(' ')} ` : ''}INTO ${p.table} (${p.columns.join(',')}) VALUES ${values.join(',')}`;
  if (p.prefix) sql = `${p.prefix} ${sql}`;
  if (p.suffix) sql += ` ${p.suffix}`;
  return sql;
}

/** `args_mapping` compiled once: each message's arguments, converted for the database. */
export class ArgsMapping {
  private readonly mapping: Mapping | undefined;

  constructor(
    source: string | undefined,
    private readonly dialect: Dialect,
  ) {
    this.mapping = source === undefined ? undefined : compileMapping(source);
  }

  /** The arguments for the message at `index` (none without a mapping); throws with Benthos' words. */
  of(batch: Batch, index: number): unknown[] {
    if (!this.mapping) return [];
    let root: unknown;
    try {
      root = this.mapping.exec(batch[index]!, { batch, index }).root;
    } catch (err) {
      throw new Error(`arguments mapping failed: ${errorMessage(err)}`);
    }
    if (!Array.isArray(root)) throw new Error(`mapping returned non-array result: ${root === undefined ? 'nothing' : typeof root}`);
    return sqlArgs(root, this.dialect);
  }

  /** The arguments when there is no message (an input's query). */
  alone(): unknown[] {
    return this.of([new Message('')], 0);
  }
}
