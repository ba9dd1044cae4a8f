import { END_OF_INPUT, batchesOf, splitAck, type Transaction } from '../message/transaction.js';
import type { Logger } from '../observability/logger.js';
import type { Batcher } from './batch-policy.js';
import { BatchFlusher } from './batch-flusher.js';
import { Channel } from './channel.js';
import { InputFailedError, errorMessage } from '../errors.js';
import { FLUSH, endingWith, type Flush, type Source, type SourceRead } from './source.js';

/**
 * An input's `batching`: reads transactions from the input and groups them by the batch
 * policy; a flushed batch acks every transaction it was built from. When the input fails,
 * what is held is flushed and the failure is thrown after the last batch.
 */
export class BatchingInput implements Source {
  private readonly out = new Channel<Transaction | Flush>(1);
  private pump: Promise<void> | undefined;
  private readonly flusher: BatchFlusher;
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly inner: Source,
    batcher: Batcher,
    private readonly log: Logger,
  ) {
    this.flusher = new BatchFlusher(batcher, (batch, ack) => this.out.push({ batch, ack }));
  }

  connect(): Promise<void> {
    return this.inner.connect();
  }

  read(): Promise<SourceRead> | SourceRead {
    this.pump ??= this.run();
    return endingWith(this.out.pop(), () => this.failure);
  }

  private async run(): Promise<void> {
    try {
      for (;;) {
        const tx = await this.inner.read();
        if (tx === END_OF_INPUT) break;
        if (tx === FLUSH) {
          await this.flusher.flush();
          await this.out.push(FLUSH);
          continue;
        }
        if (!tx.parts) {
          await this.flusher.add(tx.batch, tx.ack);
          continue;
        }
        // Batch by batch, as they would have come one at a time: the policy may flush between them.
        const batches = batchesOf(tx.batch, tx.parts);
        const ack = splitAck(tx.ack, batches.length);
        for (const b of batches) await this.flusher.add(b, ack);
      }
      await this.flusher.flush();
    } catch (err) {
      if (err instanceof InputFailedError) {
        this.failure = { error: err };
        await this.flusher.flush();
      } else {
        this.log.error(`Batching input stopped: ${errorMessage(err)}`);
      }
    } finally {
      this.flusher.stop();
      await this.flusher.idle();
      this.out.close();
    }
  }

  async close(): Promise<void> {
    await this.inner.close();
  }
}
