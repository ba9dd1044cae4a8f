/**
 * The `logbus` input (also registered as `kafka`): consumes topics of a Kafka cluster through a
 * consumer group, and commits offsets only for acknowledged messages.
 *
 * `read()` goes round the assigned partitions and hands out, from the next one that has records
 * and checkpoint room, one transaction: up to a quarter of `checkpoint_limit` of its buffered
 * records (so several transactions of a partition can be in flight), or, with `batching`, the
 * partition's next policy batch. Each transaction is one contiguous run of one partition's
 * offsets, tracked by that partition's checkpoint; its ack moves the commit point.
 */
import {
  END_OF_INPUT,
  NotConnectedError,
  compileMapping,
  errorMessage,
  extractTracingMap,
  parseDuration,
  registerInput,
  registry,
  splitAck,
  type Ack,
  type Batch,
  type ComponentContext,
  type EndOfInput,
  type Input,
  type Logger,
  type Mapping,
  type Message,
  type Transaction,
} from '@svc/engine';
import type { KafkaMessage } from 'kafkajs';
import type { CheckpointRange } from './checkpoint.js';
import { kafkaOptions } from './client.js';
import { GroupConsumer } from './consumer.js';
import type { PartitionFeed } from './consumer-partition.js';
import { BatchRule, batchingEnabled, runBatchProcessors } from './input-batching.js';
import { recordMessage } from './input-message.js';
import { inputSpec, type InputConfig } from './input-spec.js';
import { parseTopics } from './input-topics.js';
import { lagGauge } from './lag.js';
import { StallWatch } from './stall.js';
import { loadKafkajs } from './kafkajs.js';

/** The most records one transaction carries without `batching`. */
const MAX_CHUNK = 4096;

/** A policy with no condition: how the runtime is told not to batch this input itself. */

export class LogbusInput implements Input {
  /** `batching` is applied here, per partition: the runtime's one batcher would mix partitions. */
  readonly batchesItself = true;
  private readonly consumer: GroupConsumer;
  private readonly stalls: StallWatch;
  private readonly log: Logger;
  private readonly chunkCap: number;
  private readonly multiHeader: boolean;
  private readonly dropNacks: boolean;
  private readonly tracing: Mapping | undefined;
  private readonly rule: BatchRule | undefined;
  private readonly closeWaitMs: number;
  /** Policy batches ready to hand out (flushed by a timer, or split by the policy's processors). */
  private readonly ready: Transaction[] = [];
  private next = 0;
  /** The pending read's wake-up (the runtime reads one transaction at a time). */
  private waiting: (() => void) | undefined;
  private closed = false;
  private nacksDropped = 0;

  constructor(conf: InputConfig, ctx: ComponentContext, rule?: BatchRule) {
    this.log = ctx.logger;
    this.rule = rule;
    this.chunkCap = Math.min(MAX_CHUNK, Math.max(1, Math.ceil(conf.checkpoint_limit / 4)));
    this.multiHeader = conf.multi_header;
    this.dropNacks = !conf.auto_replay_nacks;
    this.tracing = conf.extract_tracing_map ? compileMapping(conf.extract_tracing_map) : undefined;
    this.closeWaitMs = parseDuration(conf.group.session_timeout);
    this.stalls = new StallWatch(ctx);
    this.consumer = new GroupConsumer(
      {
        conf,
        topics: parseTopics(conf.topics),
        log: ctx.logger,
        who: `${ctx.type} input ${ctx.path}`,
        lag: lagGauge(ctx),
        stalls: this.stalls,
        wake: () => this.wake(),
      },
      rule !== undefined,
    );
  }

  connect(): Promise<void> {
    return this.consumer.connect();
  }

  stalled(): string | undefined {
    return this.stalls.reason();
  }

  read(): Promise<Transaction | EndOfInput> | Transaction | EndOfInput {
    if (this.closed) return END_OF_INPUT;
    if (this.consumer.failure === undefined) {
      const tx = this.take();
      if (tx !== undefined) return tx;
    }
    return this.wait();
  }

  private async wait(): Promise<Transaction | EndOfInput> {
    for (;;) {
      if (this.closed) return END_OF_INPUT;
      const failure = this.consumer.failure;
      if (failure !== undefined) throw new NotConnectedError(`the consumer stopped: ${errorMessage(failure)}`, { cause: failure });
      const tx = this.take();
      if (tx !== undefined) return tx;
      await new Promise<void>((resolve) => (this.waiting = resolve));
      this.waiting = undefined;
    }
  }

  private wake(): void {
    this.waiting?.();
  }

  /** The next transaction, going round the partitions; undefined when none can be handed out now. */
  private take(): Transaction | undefined {
    if (this.ready.length > 0) return this.ready.shift();
    const feeds = this.consumer.active;
    const n = feeds.length;
    for (let i = 0; i < n; i++) {
      const f = feeds[(this.next + i) % n]!;
      const tx = this.rule === undefined ? this.chunk(f) : this.gather(f, this.rule);
      if (tx !== undefined) {
        this.next = (this.next + i + 1) % n;
        return tx;
      }
    }
    return undefined;
  }

  /** Up to `chunkCap` buffered records of `f` as one transaction. */
  private chunk(f: PartitionFeed): Transaction | undefined {
    if (f.buffered === 0 || !f.checkpoint.open) return undefined;
    const records = f.take(Math.min(f.checkpoint.room, this.chunkCap));
    this.consumer.spaceFreed(f);
    const batch: Batch = new Array(records.length);
    let offset = 0;
    for (let i = 0; i < records.length; i++) {
      offset = Number(records[i]!.offset);
      batch[i] = this.message(f, records[i]!, offset);
    }
    f.lag.set(Math.max(0, f.highWatermark - offset - 1));
    return { batch, ack: this.ackFor(f, f.checkpoint.track(offset, batch.length)) };
  }

  /**
   * Moves `f`'s buffered records into its batch until the policy says flush. A batch starts only
   * while the checkpoint has room; once started it may outgrow the limit (as in Benthos), and the
   * next one waits for its delivery.
   */
  private gather(f: PartitionFeed, rule: BatchRule): Transaction | undefined {
    const b = f.batch!;
    if (b.messages.length === 0 && !f.checkpoint.open) return undefined;
    let full = false;
    while (!full && f.buffered > 0) {
      const rec = f.shift()!;
      const offset = Number(rec.offset);
      full = rule.add(b, this.message(f, rec, offset));
      f.lastGathered = offset;
    }
    this.consumer.spaceFreed(f);
    if (full) return this.flush(f, rule);
    if (b.messages.length > 0 && b.timer === undefined && rule.periodMs > 0) {
      b.timer = setTimeout(() => {
        b.timer = undefined;
        if (f.revoked || b.messages.length === 0) return;
        const tx = this.flush(f, rule);
        if (tx !== undefined) this.ready.push(tx);
        this.wake();
      }, rule.untilPeriod(b));
    }
    return undefined;
  }

  /** `f`'s gathered batch as a transaction (later, through `ready`, when the policy has processors). */
  private flush(f: PartitionFeed, rule: BatchRule): Transaction | undefined {
    const messages = f.batch!.take();
    const last = f.lastGathered;
    f.lag.set(Math.max(0, f.highWatermark - last - 1));
    const ack = this.ackFor(f, f.checkpoint.track(last, messages.length));
    if (rule.processors.length === 0) return { batch: messages, ack };
    void runBatchProcessors(rule.processors, messages).then((batches) => {
      if (batches.length === 0) return ack();
      const part = splitAck(ack, batches.length);
      for (const batch of batches) this.ready.push({ batch, ack: part });
      this.wake();
    });
    return undefined;
  }

  private message(f: PartitionFeed, rec: KafkaMessage, offset: number): Message {
    const m = recordMessage(rec, f.topic, f.partition, offset, f.highWatermark, this.multiHeader);
    if (this.tracing !== undefined) {
      try {
        extractTracingMap(m, this.tracing);
      } catch (err) {
        this.log.debug(`extract_tracing_map failed on ${f.topic}/${f.partition}@${offset}: ${errorMessage(err)}`);
      }
    }
    return m;
  }

  private ackFor(f: PartitionFeed, range: CheckpointRange): Ack {
    return (err?: Error) => {
      if (err !== undefined) {
        // With auto_replay_nacks the runtime replays a nack and acks once it is delivered; a nack
        // that reaches this input anyway keeps its offsets uncommitted until a later ack.
        if (!this.dropNacks) return;
        // auto_replay_nacks: false: a rejected message is dropped and its offset committed (Benthos' rule).
        if (this.nacksDropped++ % 1000 === 0)
          this.log.warn(`Dropping rejected messages of ${f.topic}/${f.partition} (auto_replay_nacks is false): ${errorMessage(err)}`);
      }
      f.ack(range);
      this.wake();
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wake();
    await this.consumer.close(this.closeWaitMs);
  }
}

/**
 * The factory. The policy in `batching` is applied by the input, per partition (`batchesItself`).
 */
async function create(conf: InputConfig, ctx: ComponentContext): Promise<Input> {
  await loadKafkajs();
  // What only the client options can tell (TLS files, sasl.token_cache) fails the build, not each connect.
  kafkaOptions(conf, ctx.logger);
  const policy = conf.batching;
  let rule: BatchRule | undefined;
  if (batchingEnabled(policy)) rule = new BatchRule(policy, policy.processors.length > 0 ? await ctx.buildProcessors(policy.processors) : []);
  return new LogbusInput(conf, ctx, rule);
}

registerInput('logbus', {
  summary: 'Consumes topics of a Kafka cluster in a consumer group, committing only acknowledged offsets.',
  description: [
    'Offsets are committed under `consumer_group`, and partitions are balanced across the members of the group.',
    "A partition's offset is committed only up to the first message not yet acknowledged, every `commit_period`,",
    'when partitions are revoked in a rebalance, and on shutdown: every message is delivered at least once.',
    '',
    'Messages of different partitions are processed in parallel; up to `checkpoint_limit` messages of one',
    'partition are in flight at once. `checkpoint_limit: 1` processes each partition in lock-step order: a',
    'message is handed out only once the one before it was delivered.',
    '',
    '`topics` items may be comma lists. `foo:0` consumes partition 0 of foo, `foo:0-3` partitions 0 to 3: such',
    'partitions are assigned to this input directly (no balancing); with an empty `consumer_group` no offsets are',
    'stored and every start begins where `start_from_oldest` says. Balanced and explicit topics cannot be mixed.',
    '',
    '`batching` is applied per partition: every batch comes from one partition. Without it, each transaction',
    'holds consecutive messages of one partition, up to a quarter of `checkpoint_limit`.',
    '',
    "Metadata: `logbus_key`, `logbus_topic`, `logbus_partition`, `logbus_offset`, `logbus_lag` (the partition's",
    'high watermark - offset - 1), `logbus_timestamp_unix` (seconds), `logbus_tombstone_message` (true for a null',
    "value), the same under Benthos' names (`kafka_key`, `kafka_topic`, `kafka_partition`, `kafka_offset`, `kafka_lag`,",
    '`kafka_timestamp_unix`, `kafka_tombstone_message`) with `kafka_timestamp_ms` (milliseconds), so a mapping written',
    'for Benthos reads them unchanged, and every header as a string (a list of strings with `multi_header`). The gauge `logbus_lag` (labels',
    '`topic`, `partition`) holds the lag of the last message handed out.',
    '',
    'A partition that has records to read while its fetches deliver none, across two `stall_check_period` checks in',
    'a row, is stalled: the gauge `logbus_stalled` (same labels) is 1 and `/ready` answers 503 naming the partition',
    'and offset. Records fetched and waiting for the pipeline are back-pressure, not a stall.',
  ].join('\n'),
  config: inputSpec,
  examples: [
    `input:
  kafka:
    addresses: [ localhost:9092 ]
    topics: [ orders, payments ]
    consumer_group: billing`,
    `input:
  logbus:
    addresses: [ localhost:9092 ]
    topics: [ "orders:0-3" ]
    consumer_group: ""
    checkpoint_limit: 1
    batching:
      count: 100
      period: 500ms`,
  ],
  factory: create,
});
registry().alias('input', 'kafka', 'logbus');
