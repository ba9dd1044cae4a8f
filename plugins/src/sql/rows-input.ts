/**
 * What the `sql_select` and `sql_raw` inputs share: run one query when connected, hand out its rows
 * as messages (each row a JSON object, column names as keys), a page of up to 100 rows per batch,
 * and end once the rows are exhausted. A query that fails is a connection error: the runtime tries
 * again with back-off, and nothing was handed out yet. A failure part way through the rows ends
 * the input with the error, as in Benthos.
 */
import { END_OF_INPUT, InputFailedError, Message, NotConnectedError, type EndOfInput, type Input, type Logger, type Transaction } from '@svc/engine';
import type { Row, SqlConnection } from './connection.js';

/** Rows per batch. */
export const PAGE_ROWS = 100;

export class RowsInput implements Input {
  private pages: AsyncIterator<Row[]> | undefined;
  private first: Row[] | undefined;
  private done = false;
  private closed = false;

  constructor(
    private readonly conn: SqlConnection,
    private readonly what: string,
    private readonly run: () => AsyncIterable<Row[]>,
    private readonly log: Logger,
  ) {}

  async connect(): Promise<void> {
    if (this.pages || this.done || this.closed) return;
    const pages = this.run()[Symbol.asyncIterator]();
    let r: IteratorResult<Row[]>;
    try {
      r = await pages.next();
    } catch (err) {
      throw new NotConnectedError(`${this.what}: ${this.conn.scrub(err)}`, { cause: err });
    }
    this.pages = pages;
    if (r.done) this.done = true;
    else this.first = r.value;
  }

  async read(): Promise<Transaction | EndOfInput> {
    if (this.closed || this.done) return END_OF_INPUT;
    if (!this.pages) throw new NotConnectedError(`${this.what}: not connected`);
    let rows = this.first;
    this.first = undefined;
    if (!rows) {
      let r: IteratorResult<Row[]>;
      try {
        r = await this.pages.next();
      } catch (err) {
        this.done = true;
        throw new InputFailedError(`${this.what}: reading rows: ${this.conn.scrub(err)}`, { cause: err });
      }
      if (r.done) {
        this.done = true;
        this.log.debug(`${this.what}: all rows read`);
        return END_OF_INPUT;
      }
      rows = r.value;
    }
    const batch = rows.map((row) => {
      const m = new Message('');
      m.setJson(row);
      return m;
    });
    return { batch, ack: () => undefined };
  }

  async close(): Promise<void> {
    this.closed = true;
    // Ends the query (its connection is closed when rows were still coming) before the pool closes.
    await this.pages?.return?.().catch(() => undefined);
    await this.conn.close();
  }
}
