/**
 * The parts of better-sqlite3 12 the SQL components use (the package ships no types, and
 * `@types/better-sqlite3` would be one more dependency for these few lines).
 */
declare module 'better-sqlite3' {
  export interface Statement {
    /** True when the statement returns rows. */
    readonly reader: boolean;
    safeIntegers(on: boolean): Statement;
    all(...args: unknown[]): Array<Record<string, unknown>>;
    run(...args: unknown[]): unknown;
    iterate(...args: unknown[]): IterableIterator<Record<string, unknown>>;
  }
  export interface Options {
    readonly?: boolean;
    fileMustExist?: boolean;
    /** Milliseconds to wait for a locked database. */
    timeout?: number;
  }
  export default class Database {
    constructor(file: string, options?: Options);
    readonly inTransaction: boolean;
    prepare(sql: string): Statement;
    exec(sql: string): this;
    pragma(text: string): unknown;
    close(): this;
  }
}
