/**
 * The `aws_kinesis` input: consumes the shards of Kinesis data streams, storing in a DynamoDB table
 * (kinesis-checkpointer.ts) the sequence of each shard up to which every record was acked.
 *
 * At least once: a shard's sequence is stored only once every record before it was acked (the
 * longest acked prefix, as a Kafka offset: kafka/checkpoint.ts), every `commit_period` and when the
 * shard is given up. A process killed mid-stream leaves its lease to run out (`lease_period`); the
 * client that takes the shard then starts after the stored sequence, so nothing is lost and only what
 * was in flight, or acked since the last checkpoint, comes again. `checkpoint_limit` bounds the
 * records of a shard handed out and not yet acked.
 *
 * Shards are balanced through the table: every `rebalance_period` a client claims the shards of its
 * streams that nobody holds or whose holder's lease ran out. Taking a live shard from a client that
 * holds more than its share (Benthos' stealing) is not done here: shards move when a client stops.
 * `foo:0` consumes shard `0` of `foo` explicitly, as in Benthos.
 *
 * Each record is a transaction of its own (one message, metadata `kinesis_stream`, `kinesis_shard`,
 * `kinesis_partition_key`, `kinesis_sequence_number`); `batching` groups them after the input.
 */
import { randomUUID } from 'node:crypto';
import type { KinesisClient, _Record as KinesisRecord } from '@aws-sdk/client-kinesis';
import {
  ErrorCode,
  Message,
  NotConnectedError,
  SvcError,
  batchPolicySpec,
  f,
  parseDuration,
  registerInput,
  type ComponentContext,
  type Infer,
  type Logger,
  type Transaction,
} from '@svc/engine';
import { PullInput, ThrottledLog, sleep } from '@svc/engine/kit';
import { Checkpoint, type CheckpointRange } from '../kafka/checkpoint.js';
import { KinesisCheckpointer, checkpointTableFields } from './kinesis-checkpointer.js';
import { kinesisClient, loadKinesis, streamRef, type KinesisSdk } from './kinesis-output.js';
import { awsError, clientOptions, requestError, sessionFields, type ClientOptions } from './session.js';

export const kinesisInputSpec = f.object({
  streams: f
    .array(f.string())
    .describe(
      "One or more Kinesis data streams to consume from. Streams can either be specified by their name or full ARN. Shards of a stream are automatically balanced across consumers by coordinating through the provided DynamoDB table. Multiple comma separated streams can be listed in a single element. Alternatively, it's possible to specify an explicit shard to consume from with a colon after the stream name, e.g. `foo:0` would consume the shard `0` of the stream `foo`.",
    ),
  dynamodb: f
    .object({ ...checkpointTableFields, ...sessionFields })
    .describe(
      'Determines the table used for storing and accessing the latest consumed sequence for shards, and for coordinating balanced consumers of streams. Its `region`, `endpoint` and `credentials` default to those of the input.',
    ),
  checkpoint_limit: f
    .int()
    .default(1024)
    .validate((n) => (n >= 1 ? undefined : 'checkpoint_limit must be at least 1'))
    .describe(
      'The maximum gap between the in flight sequence versus the latest acknowledged sequence at a given time. Increasing this limit enables parallel processing and batching at the output level to work on individual shards. Any given sequence will not be committed unless all messages under that offset are delivered in order to preserve at least once delivery guarantees.',
    ),
  auto_replay_nacks: f
    .bool()
    .default(true)
    .describe(
      'Whether messages that are rejected (nacked) at the output level should be automatically replayed indefinitely, eventually resulting in back pressure if the cause of the rejections is persistent. If set to `false` these messages will instead be deleted.',
    ),
  commit_period: f.duration().default('5s').describe('The period of time between each update to the checkpoint table.'),
  steal_grace_period: f
    .duration()
    .default('2s')
    .describe(
      'Determines how long beyond the next commit period a client will wait when stealing a shard for the current owner to store a checkpoint. Shards are not stolen from live clients here (see above): accepted for compatibility.',
    ),
  rebalance_period: f.duration().default('30s').advanced().describe('The period of time between each attempt to rebalance shards across clients.'),
  lease_period: f
    .duration()
    .default('30s')
    .advanced()
    .describe('The period of time after which a client that has failed to update a shard checkpoint is assumed to be inactive.'),
  start_from_oldest: f.bool().default(true).describe('Whether to consume from the oldest message when a sequence does not yet exist for the stream.'),
  ...sessionFields,
  batching: batchPolicySpec,
});

export type KinesisInputConfig = Infer<typeof kinesisInputSpec>;

/** GetRecords' most records per request. */
const RECORDS_LIMIT = 10_000;
/** The wait after an empty or failed GetRecords: 300 ms growing to 5 s, as Benthos. */
const IDLE_MS = 300;
const IDLE_MAX_MS = 5_000;
/** How long `close()` waits for transactions in flight to be acked before giving the shards up. */
const CLOSE_DRAIN_MS = 10_000;

/** A stream as configured: its id in the table (the name or ARN given), and the shards named explicitly. */
interface StreamInfo {
  id: string;
  explicit: string[];
}

/** One record handed out, with the shard it came from. */
interface Item {
  shard: ShardReader;
  record: KinesisRecord;
  range: CheckpointRange;
}

/** Parses `streams`: comma-separated entries, each a name or ARN, with an optional `:shard`. */
export function parseStreams(entries: string[]): StreamInfo[] {
  const byId = new Map<string, string[]>();
  for (const entry of entries) {
    for (const raw of entry.split(',')) {
      const t = raw.trim();
      if (t === '') continue;
      const slash = t.lastIndexOf('/');
      const head = slash > 0 ? t.slice(0, slash) : '';
      const parts = t.slice(Math.max(0, slash)).split(':');
      if (parts.length > 2) {
        throw new SvcError(ErrorCode.ConfigLint, `aws_kinesis input: stream '${t}' is invalid: name one shard per entry (foo:0,foo:1, not foo:0:1)`);
      }
      const id = head + parts[0]!.trim();
      const shards = byId.get(id) ?? [];
      if (parts.length === 2) shards.push(parts[1]!.trim());
      byId.set(id, shards);
    }
  }
  const infos = [...byId].map(([id, explicit]) => ({ id, explicit }));
  if (infos.length === 0) throw new SvcError(ErrorCode.ConfigLint, 'aws_kinesis input: streams names no stream');
  const explicit = infos.filter((s) => s.explicit.length > 0).length;
  if (explicit > 0 && explicit < infos.length) {
    throw new SvcError(ErrorCode.ConfigLint, 'aws_kinesis input: balanced and explicit shard streams cannot be mixed in one input');
  }
  return infos;
}

export class KinesisInput extends PullInput<Item> {
  private readonly log: Logger;
  private readonly failures: ThrottledLog;
  private readonly component: string;
  private readonly streams: StreamInfo[];
  private readonly opts: ClientOptions;
  private readonly dbOpts: ClientOptions;
  private readonly commitMs: number;
  private readonly rebalanceMs: number;
  private readonly leaseMs: number;
  private readonly clientId = randomUUID();
  private client: KinesisClient | undefined;
  private sdk: KinesisSdk | undefined;
  private table: KinesisCheckpointer | undefined;
  /** The shards consumed here, by `stream/shard`. */
  private readonly readers = new Map<string, ShardReader>();
  /** Shards read to their end (closed by a reshard), not claimed again. */
  private readonly finished = new Set<string>();
  private readonly stop = new AbortController();
  private balancing: Promise<void> | undefined;

  constructor(
    private readonly conf: KinesisInputConfig,
    ctx: ComponentContext,
  ) {
    super();
    this.log = ctx.logger;
    this.failures = new ThrottledLog(ctx.logger, 30_000);
    this.component = `${ctx.type} input`;
    this.streams = parseStreams(conf.streams);
    if (conf.dynamodb.table === '')
      throw new SvcError(ErrorCode.ConfigLint, `${this.component}: dynamodb.table is required: the table that keeps each shard's checkpoint`);
    this.opts = clientOptions(conf, this.component);
    const d = conf.dynamodb;
    const ownSession = d.region !== '' || d.endpoint !== '' || d.credentials.id !== '' || d.credentials.profile !== '';
    this.dbOpts = ownSession ? clientOptions(d, `${this.component} dynamodb`) : this.opts;
    this.commitMs = parseDuration(conf.commit_period);
    this.rebalanceMs = parseDuration(conf.rebalance_period);
    this.leaseMs = parseDuration(conf.lease_period);
  }

  async connect(): Promise<void> {
    if (this.closed || this.client) return;
    const sdk = (this.sdk ??= await loadKinesis());
    const client = kinesisClient(sdk, this.opts);
    let table: KinesisCheckpointer;
    try {
      for (const s of this.streams) await client.send(new sdk.DescribeStreamSummaryCommand(streamRef(s.id)));
      table = await KinesisCheckpointer.open(this.dbOpts, this.conf.dynamodb, this.clientId, this.leaseMs);
    } catch (err) {
      client.destroy();
      throw requestError(`${this.component}: cannot reach streams ${this.streams.map((s) => s.id).join(', ')} or table ${this.conf.dynamodb.table}`, err);
    }
    this.client = client;
    this.table = table;
    this.balancing = this.balance(client, sdk, table);
    this.log.info(`Receiving Amazon Kinesis messages from streams: ${this.streams.map((s) => s.id).join(', ')} as client ${this.clientId}`);
  }

  /** Claims the free shards of every stream now and every `rebalance_period`, until closed. */
  private async balance(client: KinesisClient, sdk: typeof import('@aws-sdk/client-kinesis'), table: KinesisCheckpointer): Promise<void> {
    while (!this.closed) {
      for (const s of this.streams) {
        try {
          const shards = s.explicit.length > 0 ? s.explicit : await this.shardIds(client, sdk, s.id);
          const claims = new Map((await table.claims(s.id)).map((c) => [c.shardId, c]));
          for (const shardId of shards) {
            const key = `${s.id}/${shardId}`;
            if (this.closed || this.readers.has(key) || this.finished.has(key)) continue;
            const c = claims.get(shardId);
            // A holder whose lease ran out is taken from; a live one keeps its shard.
            const from = c?.clientId === undefined ? undefined : c.leaseTimeout < Date.now() ? c.clientId : null;
            if (from === null) continue;
            const after = await table.claim(s.id, shardId, from);
            if (after === undefined) continue;
            this.start(client, sdk, table, s.id, shardId, after);
          }
        } catch (err) {
          if (this.closed) return;
          this.failures.error(`${this.component}: cannot balance the shards of stream ${s.id}: ${awsError(err)}`);
        }
      }
      await sleep(this.rebalanceMs, this.stop.signal);
    }
  }

  private async shardIds(client: KinesisClient, sdk: typeof import('@aws-sdk/client-kinesis'), stream: string): Promise<string[]> {
    const ids: string[] = [];
    let token: string | undefined;
    do {
      const res = await client.send(new sdk.ListShardsCommand(token ? { NextToken: token } : streamRef(stream)));
      for (const sh of res.Shards ?? []) if (sh.ShardId) ids.push(sh.ShardId);
      token = res.NextToken;
    } while (token);
    return ids;
  }

  private start(
    client: KinesisClient,
    sdk: typeof import('@aws-sdk/client-kinesis'),
    table: KinesisCheckpointer,
    stream: string,
    shard: string,
    after: string,
  ): void {
    const key = `${stream}/${shard}`;
    const reader = new ShardReader(stream, shard, after, this.conf.checkpoint_limit);
    this.readers.set(key, reader);
    this.log.debug(`${this.component}: consuming stream ${stream} shard ${shard} as client ${this.clientId}`);
    // A reader that stopped because the input closes stays listed: shutDown() gives its shard up.
    void this.consume(client, sdk, table, reader).finally(() => {
      if (!this.closed) this.readers.delete(key);
    });
  }

  /** Reads a shard while it is held here: records into the queue (within `checkpoint_limit`), checkpoints every `commit_period`. */
  private async consume(client: KinesisClient, sdk: typeof import('@aws-sdk/client-kinesis'), table: KinesisCheckpointer, r: ShardReader): Promise<void> {
    let iterator: string | undefined;
    let idle = IDLE_MS;
    // One timer per commit period, which every wait below races (not a timer per wait).
    let due = false;
    const period = () => sleep(this.commitMs, this.stop.signal).then(() => void (due = true));
    let commitDue = period();
    let ended = false;
    while (!this.closed) {
      if (due) {
        due = false;
        commitDue = period();
        try {
          if (!(await table.checkpoint(r.stream, r.shard, r.committed(), false))) {
            this.log.info(`${this.component}: stream ${r.stream} shard ${r.shard} is held by another client now: giving it up`);
            r.lost = true;
            return;
          }
        } catch (err) {
          this.failures.error(`${this.component}: cannot store the checkpoint of stream ${r.stream} shard ${r.shard}: ${awsError(err)}`);
        }
      }
      if (ended) {
        if (r.checkpoint.inFlight === 0) break;
        await Promise.race([this.room(), commitDue]);
        continue;
      }
      // Fetch once half the limit is free: fetching on every ack would ask for a record or two a request.
      if (r.checkpoint.room < Math.ceil(this.conf.checkpoint_limit / 2)) {
        await Promise.race([this.room(), commitDue]);
        continue;
      }
      try {
        iterator ??= await this.iterator(client, sdk, r);
        const res = await client.send(new sdk.GetRecordsCommand({ ShardIterator: iterator, Limit: Math.min(RECORDS_LIMIT, r.checkpoint.room) }));
        iterator = res.NextShardIterator;
        const records = res.Records ?? [];
        if (records.length > 0) this.offer(...records.map((record) => ({ shard: r, record, range: r.handOut(record) })));
        if (!iterator) ended = true;
        if (records.length > 0 || ended) {
          idle = IDLE_MS;
          continue;
        }
      } catch (err) {
        if (this.closed) break;
        // An expired iterator is asked for again, after what was handed out.
        if ((err as Error).name === 'ExpiredIteratorException') iterator = undefined;
        else this.failures.error(`${this.component}: failed to pull records of stream ${r.stream} shard ${r.shard}: ${awsError(err)}`);
      }
      await sleep(idle, this.stop.signal);
      idle = Math.min(IDLE_MAX_MS, idle * 2);
    }
    if (ended) {
      this.finished.add(`${r.stream}/${r.shard}`);
      await this.release(table, r);
    }
  }

  /** The iterator after the last record handed out (or the checkpoint), else at the start or end of the shard. */
  private async iterator(client: KinesisClient, sdk: typeof import('@aws-sdk/client-kinesis'), r: ShardReader): Promise<string> {
    const after = r.lastHandedOut;
    const res = await client.send(
      new sdk.GetShardIteratorCommand({
        ...streamRef(r.stream),
        ShardId: r.shard,
        ...(after !== ''
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', StartingSequenceNumber: after }
          : { ShardIteratorType: this.conf.start_from_oldest ? 'TRIM_HORIZON' : 'LATEST' }),
      }),
    );
    if (!res.ShardIterator) throw new Error(`no iterator for stream ${r.stream} shard ${r.shard}`);
    return res.ShardIterator;
  }

  /** Stores the shard's last checkpoint without a holder, so another client takes it at once. */
  private async release(table: KinesisCheckpointer, r: ShardReader): Promise<void> {
    if (r.lost) return;
    try {
      await table.checkpoint(r.stream, r.shard, r.committed(), true);
    } catch (err) {
      this.log.error(`${this.component}: cannot store the final checkpoint of stream ${r.stream} shard ${r.shard}: ${awsError(err)}`);
    }
  }

  protected override assertConnected(): void {
    if (!this.client) throw new NotConnectedError(`${this.component}: not connected`);
  }

  protected transaction(items: Item[]): Transaction {
    const { shard, record, range } = items[0]!;
    const meta: Record<string, string> = { kinesis_stream: shard.stream, kinesis_shard: shard.shard };
    if (record.PartitionKey !== undefined) meta.kinesis_partition_key = record.PartitionKey;
    if (record.SequenceNumber !== undefined) meta.kinesis_sequence_number = record.SequenceNumber;
    const data = record.Data ?? new Uint8Array();
    return this.track([new Message(Buffer.from(data.buffer, data.byteOffset, data.byteLength), meta)], () => {
      // A nack reaches here only with auto_replay_nacks off: the record is dropped, as Benthos does.
      shard.checkpoint.ack(range);
    });
  }

  /** Stops reading, waits (up to 10 s) for the records in flight to be acked, and gives every shard up with its checkpoint. */
  protected async shutDown(): Promise<void> {
    this.stop.abort();
    this.takeQueued();
    await this.balancing;
    await this.acksSettled(CLOSE_DRAIN_MS);
    const table = this.table;
    if (table) await Promise.all([...this.readers.values()].map((r) => this.release(table, r)));
    this.readers.clear();
    table?.close();
    this.client?.destroy();
    this.client = undefined;
    this.table = undefined;
  }
}

/** One shard consumed here: the records handed out and which of them were acked. */
class ShardReader {
  readonly checkpoint: Checkpoint;
  /** The sequence of each tracked record, by its place in the shard's hand-out order. */
  private readonly sequences = new Map<number, string>();
  private next = 0;
  /** The sequence of the last record handed out ('' before any: the claimed checkpoint). */
  lastHandedOut: string;
  /** True once another client took the shard: its checkpoint is no longer written from here. */
  lost = false;

  constructor(
    readonly stream: string,
    readonly shard: string,
    private readonly startAfter: string,
    limit: number,
  ) {
    this.checkpoint = new Checkpoint(limit);
    this.lastHandedOut = startAfter;
  }

  /** Tracks a record handed out; its range is acked when its transaction is. */
  handOut(record: KinesisRecord): CheckpointRange {
    const seq = record.SequenceNumber ?? '';
    const i = this.next++;
    this.sequences.set(i, seq);
    this.lastHandedOut = seq;
    return this.checkpoint.track(i, 1);
  }

  /** The sequence every record up to which was acked ('' when none since the claim: keep the stored one). */
  committed(): string {
    const upTo = this.checkpoint.committable - 1;
    if (upTo < 0) return this.startAfter;
    const seq = this.sequences.get(upTo) ?? this.startAfter;
    // Records below the commit point are no longer needed.
    for (const i of this.sequences.keys()) {
      if (i >= upTo) break;
      this.sequences.delete(i);
    }
    return seq;
  }
}

registerInput('aws_kinesis', {
  summary: 'Receive messages from one or more Kinesis streams.',
  description: [
    'Consumes the shards of one or more Kinesis streams, balancing them across the instances of this input through a',
    'DynamoDB table (`dynamodb.table`), which also stores the latest sequence of each shard that was delivered, so a',
    'restart resumes there. A sequence is stored only once every record before it was acked at the output',
    '(at-least-once); `checkpoint_limit` bounds the records of a shard in flight (1: lock-step, in order).',
    '',
    'The table has a string HASH key `StreamID` and a string RANGE key `ShardID` (created with `dynamodb.create`);',
    "it is Benthos' table, so a shard can move between Benthos and this engine. A client claims every shard that no",
    'live client holds every `rebalance_period`; a client whose lease (`lease_period`) ran out loses its shards. Shards',
    'are not taken from live clients to even the load (Benthos does, after `steal_grace_period`).',
    '',
    'Metadata: `kinesis_stream`, `kinesis_shard`, `kinesis_partition_key`, `kinesis_sequence_number`. `batching`',
    'groups records after the input (Benthos batches each shard apart; acks are per record either way).',
  ].join('\n'),
  config: kinesisInputSpec,
  examples: [
    `input:
  aws_kinesis:
    streams: [ orders ]
    dynamodb:
      table: orders-checkpoints
      create: true
    region: eu-west-1
    checkpoint_limit: 1024`,
  ],
  factory: (conf, ctx) => new KinesisInput(conf, ctx),
});
