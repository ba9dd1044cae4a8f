import { splitAck, END_OF_INPUT, type Transaction } from '../message/transaction.js';
import type { Processor } from '../plugin/types.js';
import { runProcessors } from './processor-chain.js';
import { FLUSH, type Source, type SourceRead } from './source.js';

/** An input's own `processors` (and a broker's), run right after it reads. */
export class ProcessingInput implements Source {
  private readonly queue: Transaction[] = [];

  constructor(
    private readonly inner: Source,
    private readonly processors: Processor[],
  ) {}

  connect(): Promise<void> {
    return this.inner.connect();
  }

  async read(): Promise<SourceRead> {
    for (;;) {
      const queued = this.queue.shift();
      if (queued) return queued;
      const tx = await this.inner.read();
      if (tx === END_OF_INPUT || tx === FLUSH) return tx;
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
    await this.inner.close();
  }
}
