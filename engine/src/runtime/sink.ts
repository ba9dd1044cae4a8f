import type { Batch } from '../message/message.js';
import type { Ack } from '../message/transaction.js';

/**
 * The runtime's view of an output: `send` hands a batch over and resolves as soon as the sink
 * can take more (back-pressure); `done` is called once the batch was delivered (or not, with
 * the error). Separating the two lets a batching output gather many transactions at once.
 * A plugin `Output` becomes one in `OutputSink`; plugin code given a nested output gets a plain
 * `Output` (`outputView`).
 */
export interface Sink {
  send(batch: Batch, done: Ack): Promise<void> | void;
  /**
   * Optional: hands over several batches under one `done`, as a Transaction holds them (`batch`
   * cut at `parts`), written together where that cannot be told from `send` for each (see
   * `Output.writeBatches`).
   */
  sendAll?(batch: Batch, parts: readonly number[], done: Ack): Promise<void> | void;
  /** Flushes what is buffered and waits for in-flight writes, then closes. */
  close(): Promise<void>;
}
