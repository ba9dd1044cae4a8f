import type { Transaction } from '../message/transaction.js';

/**
 * Counts the messages a stream's inputs have read and not yet settled at their source.
 *
 * The invariant shutdown relies on: a message leaves the ledger only when the input that read
 * it has been told its fate (delivered, or handed back with a nack). A message waiting for a
 * replay, in a retry back-off or buffered in a batch is still owed, so a drain that waits for
 * `idle()` never reports success while something read could still be lost.
 */
export class DeliveryLedger {
  private owed = 0;
  private waiters: Array<() => void> = [];

  /** Messages read and not yet settled at their input. */
  get messages(): number {
    return this.owed;
  }

  /** Records a transaction an input gave; its ack (either outcome) settles it. */
  track(tx: Transaction): Transaction {
    const n = tx.batch.length;
    this.owed += n;
    const ack = tx.ack;
    let settled = false;
    const tracked: Transaction = {
      batch: tx.batch,
      ack: (err?: Error) => {
        if (!settled) {
          settled = true;
          this.owed -= n;
          if (this.owed === 0) for (const w of this.waiters.splice(0)) w();
        }
        ack(err);
      },
    };
    if (tx.parts) tracked.parts = tx.parts;
    return tracked;
  }

  /** Resolves once nothing is owed. */
  idle(): Promise<void> {
    if (this.owed === 0) return Promise.resolve();
    return new Promise((r) => this.waiters.push(r));
  }
}
