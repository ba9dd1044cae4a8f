import { parseDuration } from '../config/duration.js';
import { f, type Infer } from '../config/spec.js';
import type { Batch, Message } from '../message/message.js';
import { joinAcks, type Ack } from '../message/transaction.js';
import type { Processor } from '../plugin/types.js';
import { runProcessors } from './processor-chain.js';

/** The shared `batching` field of inputs and outputs that batch. */
export const batchPolicySpec = f
  .object({
    count: f.int().default(0).describe('Flush at this many messages; 0 disables.'),
    byte_size: f.int().default(0).describe('Flush at this many bytes (metadata excluded); 0 disables.'),
    period: f.duration().default('').describe('Flush an incomplete batch after this period.'),
    check: f
      .string()
      .default('')
      .describe('Flush when this expression is true for a message.')
      .validate((s) => (s === '' ? undefined : 'batching.check needs the expression language, which this build does not have yet')),
    processors: f.array(f.component('processor')).default([]).describe('Applied to a batch as it is flushed.'),
  })
  .describe('Groups messages into batches: a batch is flushed when any of its conditions is met.');
export type BatchPolicyConfig = Infer<typeof batchPolicySpec>;

/** True when the policy has any flush condition (an all-zero policy does nothing). */
export function batchingEnabled(conf: BatchPolicyConfig | undefined): conf is BatchPolicyConfig {
  return conf !== undefined && (conf.count > 0 || conf.byte_size > 0 || parseDuration(conf.period) > 0 || conf.check !== '');
}

/**
 * Accumulates messages (and the acks of the transactions they came from) until the seed's
 * flush rule says so: `count` reached, `byte_size` reached, or `period` since the last flush.
 * A batch policy groups, never splits: a batch added whole may overshoot the thresholds.
 */
export class Batcher {
  private messages: Message[] = [];
  private acks: Ack[] = [];
  private bytes = 0;
  private lastFlush = Date.now();
  readonly periodMs: number;

  constructor(
    private readonly conf: BatchPolicyConfig,
    private readonly processors: Processor[],
  ) {
    this.periodMs = parseDuration(conf.period);
  }

  get size(): number {
    return this.messages.length;
  }

  /** Adds a batch; returns true when the policy says flush now. */
  add(batch: Batch, ack: Ack): boolean {
    for (let i = 0; i < batch.length; i++) {
      const m = batch[i]!;
      this.messages.push(m);
      if (this.conf.byte_size > 0) this.bytes += m.byteLength;
    }
    this.acks.push(ack);
    return this.full();
  }

  full(): boolean {
    return (
      (this.conf.count > 0 && this.messages.length >= this.conf.count) ||
      (this.conf.byte_size > 0 && this.bytes >= this.conf.byte_size)
    );
  }

  /** Milliseconds until the period elapses (Infinity without a period). */
  untilPeriod(now = Date.now()): number {
    if (this.periodMs <= 0) return Infinity;
    return Math.max(0, this.lastFlush + this.periodMs - now);
  }

  /**
   * Takes the accumulated batch and its joined ack, after the policy's processors.
   * Returns the resulting batches (processors may filter or split) and one ack for them all.
   */
  async flush(): Promise<{ batches: Batch[]; ack: Ack } | undefined> {
    this.lastFlush = Date.now();
    if (this.messages.length === 0) return undefined;
    const batch = this.messages;
    const ack = joinAcks(this.acks);
    this.messages = [];
    this.acks = [];
    this.bytes = 0;
    if (this.processors.length === 0) return { batches: [batch], ack };
    return { batches: await runProcessors(this.processors, batch), ack };
  }
}
