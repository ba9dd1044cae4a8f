import { parseDuration } from '../config/duration.js';
import { f, type Infer } from '../config/spec.js';
import type { Batch, Message } from '../message/message.js';
import { joinAcks, type Ack } from '../message/transaction.js';
import type { Processor } from '../plugin/types.js';
import { runProcessors } from './processor-chain.js';
import { compileQuery, type Query } from '../interp/index.js';

/** The shared `batching` field of inputs and outputs that batch. */
/** The fields of a batch policy, for a spec that adds its own beside them (the memory buffer's `enabled`). */
export const batchPolicyFields = {
  count: f.int().default(0).describe('Flush at this many messages; 0 disables.'),
  byte_size: f.int().default(0).describe('Flush at this many bytes (metadata excluded); 0 disables.'),
  period: f.duration().default('').describe('Flush an incomplete batch after this period.'),
  check: f.query().default('').describe('Flush when this expression is true for a message (e.g. `this.type == "end_of_transaction"`).'),
  processors: f.array(f.component('processor')).default([]).describe('Applied to a batch as it is flushed.'),
};

export const batchPolicySpec = f.object(batchPolicyFields).describe('Groups messages into batches: a batch is flushed when any of its conditions is met.');
export type BatchPolicyConfig = Infer<typeof batchPolicySpec>;

/** True when the policy has any flush condition (an all-zero policy does nothing). */
export function batchingEnabled(conf: BatchPolicyConfig | undefined): conf is BatchPolicyConfig {
  // A policy with no condition at all does nothing (count 1 is the usual way to say "no batching").
  return conf !== undefined && (conf.count > 0 || conf.byte_size > 0 || parseDuration(conf.period) > 0 || conf.check !== '');
}

/**
 * Accumulates messages (and the acks of the transactions they came from) until Benthos'
 * flush rule says so: `count` reached, `byte_size` reached, or `period` since the last flush.
 * A batch policy groups, never splits: a batch added whole may overshoot the thresholds.
 */
export class Batcher {
  private messages: Message[] = [];
  private acks: Ack[] = [];
  private bytes = 0;
  private lastFlush = Date.now();
  private checked = false;
  readonly periodMs: number;
  private readonly check: Query | undefined;

  constructor(
    private readonly conf: BatchPolicyConfig,
    private readonly processors: Processor[],
  ) {
    this.periodMs = parseDuration(conf.period);
    this.check = conf.check ? compileQuery(conf.check) : undefined;
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
      if (this.check && !this.checked) this.checked = this.passes(m);
    }
    this.acks.push(ack);
    return this.full();
  }

  /** A check that fails to evaluate (a missing field, say) does not flush: Benthos does the same. */
  private passes(m: Message): boolean {
    try {
      return this.check!.eval(m, { batch: this.messages, index: this.messages.length - 1 }) === true;
    } catch {
      return false;
    }
  }

  full(): boolean {
    return this.checked || (this.conf.count > 0 && this.messages.length >= this.conf.count) || (this.conf.byte_size > 0 && this.bytes >= this.conf.byte_size);
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
    this.checked = false;
    if (this.processors.length === 0) return { batches: [batch], ack };
    return { batches: await runProcessors(this.processors, batch), ack };
  }
}
