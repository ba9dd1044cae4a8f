import { END_OF_INPUT, batchesOf, joinBatches } from '../message/transaction.js';
import type { Processor } from '../plugin/types.js';
import { runOver } from './processor-chain.js';
import { FLUSH, type Source, type SourceRead } from './source.js';

/**
 * An input's own `processors` (and a broker's), run right after it reads, over each batch of the
 * transaction; what they give is one transaction again (its batches as `parts`).
 */
export class ProcessingInput implements Source {
  constructor(
    private readonly inner: Source,
    private readonly processors: Processor[],
  ) {}

  connect(): Promise<void> {
    return this.inner.connect();
  }

  async read(): Promise<SourceRead> {
    for (;;) {
      const tx = await this.inner.read();
      if (tx === END_OF_INPUT || tx === FLUSH) return tx;
      const batches = await runOver(this.processors, batchesOf(tx.batch, tx.parts));
      if (batches.length === 0) {
        tx.ack();
        continue;
      }
      const { batch, parts } = joinBatches(batches);
      return parts ? { batch, ack: tx.ack, parts } : { batch, ack: tx.ack };
    }
  }

  async close(): Promise<void> {
    await this.inner.close();
  }
}
