import type { Batch } from '../message/message.js';
import { splitAck, type Ack } from '../message/transaction.js';
import type { Batcher } from './batch-policy.js';

/**
 * Drives a Batcher for an input or an output: flushes when the policy says the batch is full or
 * when its period has passed, one flush at a time, and hands each flushed batch (with its share
 * of the joined ack) to `deliver`.
 */
export class BatchFlusher {
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly batcher: Batcher,
    private readonly deliver: (batch: Batch, ack: Ack) => Promise<void> | void,
  ) {}

  /** Adds a batch; resolves once a flush it triggered has delivered (back-pressure). */
  add(batch: Batch, ack: Ack): Promise<void> | void {
    if (this.batcher.add(batch, ack)) return this.flush();
    this.arm();
  }

  private arm(): void {
    if (this.timer !== undefined || this.batcher.periodMs <= 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.batcher.untilPeriod());
  }

  /** Flushes what is held (after any flush in progress); resolves once it is delivered. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = this.flushing.then(async () => {
      const r = await this.batcher.flush();
      if (!r) return;
      if (r.batches.length === 0) return r.ack();
      const ack = splitAck(r.ack, r.batches.length);
      for (const b of r.batches) await this.deliver(b, ack);
    });
    return this.flushing;
  }

  /** Resolves once the flushes already started have delivered. */
  idle(): Promise<void> {
    return this.flushing;
  }

  /** Stops the period timer (what is held stays held). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
