import { END_OF_INPUT, splitAck, type EndOfInput, type Transaction } from '../message/transaction.js';
import type { Logger } from '../observability/logger.js';
import type { Input } from '../plugin/types.js';
import type { Batcher } from './batch-policy.js';
import { Channel } from './channel.js';
import { errorMessage } from '../errors.js';
import { FLUSH, type Flush } from './flush-hint.js';

/**
 * An input's `batching`: reads transactions from the input and groups them by the batch
 * policy; a flushed batch acks every transaction it was built from.
 */
export class BatchingInput implements Input {
  private readonly out = new Channel<Transaction | Flush>(1);
  private pump: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly inner: Input,
    private readonly batcher: Batcher,
    private readonly log: Logger,
  ) {}

  connect(): Promise<void> {
    return this.inner.connect?.() ?? Promise.resolve();
  }

  read(): Promise<Transaction | EndOfInput> | Transaction | EndOfInput {
    // May also return FLUSH (typed away: internal layers check for it).
    this.pump ??= this.run();
    return this.out.pop() as Promise<Transaction | EndOfInput> | Transaction | EndOfInput;
  }

  private async run(): Promise<void> {
    try {
      for (;;) {
        const tx = await this.inner.read();
        if (tx === END_OF_INPUT) break;
        if ((tx as unknown) === FLUSH) {
          await this.flush();
          await this.flushing;
          await this.out.push(FLUSH);
          continue;
        }
        if (this.batcher.add((tx as Transaction).batch, (tx as Transaction).ack)) await this.flush();
        else this.arm();
      }
      await this.flush();
    } catch (err) {
      this.log.error(`Batching input stopped: ${errorMessage(err)}`);
    } finally {
      clearTimeout(this.timer);
      await this.flushing;
      this.out.close();
    }
  }

  private arm(): void {
    if (this.timer !== undefined || this.batcher.periodMs <= 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.batcher.untilPeriod());
  }

  private flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = this.flushing.then(async () => {
      const r = await this.batcher.flush();
      if (!r) return;
      if (r.batches.length === 0) return r.ack();
      const ack = splitAck(r.ack, r.batches.length);
      for (const batch of r.batches) await this.out.push({ batch, ack });
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }
}
