import type { Batch } from '../message/message.js';
import type { Ack } from '../message/transaction.js';
import type { Processor } from '../plugin/types.js';
import { BatchFlusher } from './batch-flusher.js';
import type { Batcher } from './batch-policy.js';
import { processThen } from './processor-chain.js';
import type { Sink } from './sink.js';

/**
 * A runtime sink's own `processors` and `batching` (an output broker's), run before it routes.
 * The sink below does its own retries and back-pressure; close() flushes, waits until what was
 * handed down is settled, then closes it.
 */
export class ProcessingSink implements Sink {
  private readonly flusher: BatchFlusher | undefined;
  private pending = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly inner: Sink,
    private readonly processors: Processor[],
    batcher: Batcher | undefined,
  ) {
    this.flusher = batcher && new BatchFlusher(batcher, (batch, done) => this.forward(batch, done));
  }

  send(batch: Batch, done: Ack): Promise<void> | void {
    if (this.processors.length > 0) return processThen(this.processors, batch, done, (b, d) => this.accept(b, d));
    return this.accept(batch, done);
  }

  private accept(batch: Batch, done: Ack): Promise<void> | void {
    return this.flusher ? this.flusher.add(batch, done) : this.forward(batch, done);
  }

  private forward(batch: Batch, done: Ack): Promise<void> | void {
    this.pending++;
    return this.inner.send(batch, (err) => {
      if (--this.pending === 0) for (const w of this.idleWaiters.splice(0)) w();
      done(err);
    });
  }

  async close(): Promise<void> {
    if (this.flusher) {
      await this.flusher.flush();
      this.flusher.stop();
    }
    if (this.pending > 0) await new Promise<void>((r) => this.idleWaiters.push(r));
    await this.inner.close();
  }
}
