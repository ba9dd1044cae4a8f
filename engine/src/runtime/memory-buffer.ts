/**
 * The `memory` buffer (Benthos' memory buffer): the input's batches are stored in memory and the
 * input's transaction is acked as soon as it is taken, before the pipeline sees it, so a crash
 * loses what is stored (at-most-once across a crash, as Benthos documents). The stored batches
 * count against `limit` (content bytes): at the limit the buffer stops reading the input
 * (back-pressure). A batch larger than the limit is dropped, as Benthos drops it. Batches go out
 * in order, each as it came in, or grouped by `batch_policy` when enabled; an output's nack puts
 * a batch back at the front; the bytes are released when the output acks. At the input's end
 * (or a shutdown) what is stored is still delivered before the stream ends; a nack that comes
 * after the end finds no reader and is logged.
 */
import { copyBatch, type Batch } from '../message/message.js';
import { END_OF_INPUT, type Transaction } from '../message/transaction.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import { sleep } from './backoff.js';
import { Signal, pumpInput } from './buffer.js';
import type { Source, SourceRead } from './source.js';

interface Stored {
  batch: Batch;
  bytes: number;
  /** Nacks so far: a batch put back is given out again after a back-off (up to 1 s), as replays are. */
  nacks: number;
}

export class MemoryBufferSource implements Source {
  private readonly queue: Stored[] = [];
  /** Bytes stored and not yet acked by the output (given out included). */
  private bytes = 0;
  private ended = false;
  private failure: { error: unknown } | undefined;
  private pump: Promise<void> | undefined;
  /** Wakes readers (a batch stored, the end) and the pump (bytes released). */
  private readonly changed = new Signal();

  constructor(
    private readonly inner: Source,
    private readonly limit: number,
    private readonly log: Logger,
  ) {}

  async connect(): Promise<void> {
    await this.inner.connect();
    this.pump ??= this.run();
  }

  private async run(): Promise<void> {
    try {
      this.failure = await pumpInput(this.inner, (tx) => this.store(tx), this.log, 'Memory buffer');
    } finally {
      this.ended = true;
      this.changed.notify();
    }
  }

  private async store(tx: Transaction): Promise<void> {
    const batch = copyBatch(tx.batch);
    // Benthos acks first, then waits for room: once taken, the input has let go of it.
    tx.ack();
    let bytes = 0;
    for (const m of batch) bytes += m.byteLength;
    if (bytes > this.limit) {
      this.log.error(`A batch of ${bytes} bytes is larger than the buffer limit (${this.limit} bytes): dropped`);
      return;
    }
    while (this.bytes + bytes > this.limit) await this.changed.wait();
    this.queue.push({ batch, bytes, nacks: 0 });
    this.bytes += bytes;
    this.changed.notify();
  }

  async read(): Promise<SourceRead> {
    this.pump ??= this.run();
    for (;;) {
      const item = this.queue.shift();
      if (item) {
        if (item.nacks > 0) await sleep(Math.min(1000, 2 ** Math.min(item.nacks, 10)));
        return this.giveOut(item);
      }
      // The end once nothing is stored (Benthos' ErrEndOfBuffer): what is given out is the stream's
      // to deliver before it closes, and a batch policy holding some flushes them at this end.
      if (this.ended) {
        if (this.failure) throw this.failure.error;
        return END_OF_INPUT;
      }
      await this.changed.wait();
    }
  }

  private giveOut(item: Stored): Transaction {
    let settled = false;
    return {
      batch: copyBatch(item.batch),
      ack: (err) => {
        if (settled) return;
        settled = true;
        if (err && this.ended && this.queue.length === 0)
          this.log.error(`${item.batch.length} message(s) rejected after the end of input are dropped: ${errorMessage(err)}`);
        if (err) {
          item.nacks++;
          this.queue.unshift(item);
        } else this.bytes -= item.bytes;
        this.changed.notify();
      },
    };
  }

  /** Stops reading the input; what is stored is still delivered. */
  close(): Promise<void> {
    return this.inner.close();
  }
}
