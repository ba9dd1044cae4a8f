/**
 * `batching` of the `logbus` input, per partition: each partition gathers its own batch, so a
 * batch never mixes partitions and its ack covers one contiguous run of offsets. The flush rule
 * is Benthos' (count, byte_size, period since the last batch, check), as the runtime's.
 */
import { compileQuery, errorMessage, parseDuration, type Batch, type BatchPolicyConfig, type Message, type Processor, type Query } from '@svc/engine';

/** True when the policy has a flush condition (an all-zero policy means no batching). */
export function batchingEnabled(conf: BatchPolicyConfig): boolean {
  return conf.count > 0 || conf.byte_size > 0 || parseDuration(conf.period) > 0 || conf.check !== '';
}

/** The flush rule, shared by every partition's batch. */
export class BatchRule {
  readonly periodMs: number;
  private readonly check: Query | undefined;

  constructor(
    private readonly conf: BatchPolicyConfig,
    readonly processors: readonly Processor[],
  ) {
    this.periodMs = parseDuration(conf.period);
    this.check = conf.check ? compileQuery(conf.check) : undefined;
  }

  /** Adds a message to `b`; true when the batch must be flushed now. */
  add(b: PartitionBatch, m: Message): boolean {
    b.messages.push(m);
    if (this.conf.byte_size > 0) b.bytes += m.byteLength;
    if (this.check && !b.checked) {
      try {
        b.checked = this.check.eval(m, { batch: b.messages, index: b.messages.length - 1 }) === true;
      } catch {
        // A check that cannot be evaluated (a missing field) does not flush, as in Benthos.
      }
    }
    return b.checked || (this.conf.count > 0 && b.messages.length >= this.conf.count) || (this.conf.byte_size > 0 && b.bytes >= this.conf.byte_size);
  }

  /** Milliseconds until `b`'s period is up (Infinity without a period). */
  untilPeriod(b: PartitionBatch, now = Date.now()): number {
    return this.periodMs > 0 ? Math.max(0, b.lastFlush + this.periodMs - now) : Infinity;
  }
}

/** One partition's batch being gathered. */
export class PartitionBatch {
  messages: Message[] = [];
  bytes = 0;
  checked = false;
  lastFlush = Date.now();
  /** The period timer, armed while the batch holds messages. */
  timer: NodeJS.Timeout | undefined;

  /** Takes the gathered messages and starts the next batch. */
  take(): Message[] {
    const out = this.messages;
    this.messages = [];
    this.bytes = 0;
    this.checked = false;
    this.lastFlush = Date.now();
    clearTimeout(this.timer);
    this.timer = undefined;
    return out;
  }

  /** Drops what was gathered (the partition was revoked: the new owner reads it again). */
  discard(): void {
    this.take();
  }
}

/**
 * The policy's `processors` on a flushed batch; a processor that throws flags the messages with
 * its error and passes them on, as everywhere in the pipeline.
 */
export async function runBatchProcessors(processors: readonly Processor[], batch: Batch): Promise<Batch[]> {
  let batches: Batch[] = [batch];
  for (const p of processors) {
    const next: Batch[] = [];
    for (const b of batches) {
      try {
        const r = p.process(b);
        for (const out of r instanceof Promise ? await r : r) if (out.length > 0) next.push(out);
      } catch (err) {
        const text = errorMessage(err);
        for (const m of b) m.error = text;
        next.push(b);
      }
    }
    batches = next;
    if (batches.length === 0) break;
  }
  return batches;
}
