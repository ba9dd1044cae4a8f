/** The `drop` output: discards every message (its writes succeed at once). */
import { f, registerOutput, type Batch, type Output } from '@svc/engine';

export const dropSpec = f.object({});

export class DropOutput implements Output {
  write(_batch: Batch): Promise<void> {
    return Promise.resolve();
  }

  /** Dropping batches together is dropping them one by one. */
  writeBatches(_batch: Batch): Promise<void> {
    return Promise.resolve();
  }
}

registerOutput('drop', {
  summary: 'Drops every message.',
  description: 'Every write succeeds at once and the messages are discarded: their transactions are acknowledged.',
  config: dropSpec,
  examples: [
    `output:
  drop: {}`,
  ],
  factory: () => new DropOutput(),
});
