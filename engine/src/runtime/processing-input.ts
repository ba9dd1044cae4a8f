import { splitAck, END_OF_INPUT, type EndOfInput, type Transaction } from '../message/transaction.js';
import type { Input, Processor } from '../plugin/types.js';
import { runProcessors } from './processor-chain.js';
import { FLUSH } from './flush-hint.js';

/** An input's own `processors` (and a broker's), run right after it reads. */
export class ProcessingInput implements Input {
  private readonly queue: Transaction[] = [];

  constructor(
    private readonly inner: Input,
    private readonly processors: Processor[],
  ) {}

  connect(): Promise<void> {
    return this.inner.connect?.() ?? Promise.resolve();
  }

  async read(): Promise<Transaction | EndOfInput> {
    for (;;) {
      const queued = this.queue.shift();
      if (queued) return queued;
      const tx = await this.inner.read();
      if (tx === END_OF_INPUT || (tx as unknown) === FLUSH) return tx;
      const batches = await runProcessors(this.processors, tx.batch);
      if (batches.length === 0) {
        tx.ack();
        continue;
      }
      if (batches.length === 1) return { batch: batches[0]!, ack: tx.ack };
      const ack = splitAck(tx.ack, batches.length);
      for (const batch of batches) this.queue.push({ batch, ack });
    }
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }
}
