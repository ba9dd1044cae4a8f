/**
 * The `aws_kinesis` output: puts the messages of a batch into a Kinesis data stream with PutRecords
 * (up to 500 records to a request), a write resolving only once Kinesis stored every record of it.
 *
 * Records Kinesis throttled (`ProvisionedThroughputExceededException`, `KMSThrottlingException`) are
 * put again with back-off (`max_retries`, `backoff`); a record refused for another reason fails at
 * once. What still failed fails the write with a BatchError naming those messages: the runtime nacks
 * them back to their input, and the records Kinesis took are not put twice.
 */
import type { KinesisClient, PutRecordsRequestEntry } from '@aws-sdk/client-kinesis';
import {
  NotConnectedError,
  compileInterpolation,
  errorMessage,
  f,
  registerOutput,
  batchPolicySpec,
  type Batch,
  type ComponentContext,
  type Infer,
  type Interpolation,
  maxInFlightField,
} from '@svc/engine';
import { sleep } from '@svc/engine/kit';
import { throwFailures } from '../batch-outcome.js';
import { AwsOutput } from './output.js';
import { RetryBackoff, retryFields } from './retry-fields.js';
import { requestError, sessionFields, type ClientOptions } from './session.js';

export const kinesisOutputSpec = f.object({
  stream: f.string().describe('The stream to publish messages to. Streams can either be specified by their name or full ARN.'),
  partition_key: f.string().interpolated().describe('A required key for partitioning messages.'),
  hash_key: f.string().interpolated().optional().advanced().describe('A optional hash key for partitioning messages.'),
  max_in_flight: maxInFlightField(64, 'The maximum number of parallel message batches to have in flight at any given time.'),
  batching: batchPolicySpec,
  ...sessionFields,
  ...retryFields('1s', '5s', '30s'),
});

export type KinesisOutputConfig = Infer<typeof kinesisOutputSpec>;

/** PutRecords takes at most 500 records, each at most 1 MiB. */
const MAX_RECORDS = 500;
const MAX_RECORD_BYTES = 1024 * 1024;
/** The per-record error codes that mean "slow down", not "this record is wrong". */
const THROTTLED = new Set(['ProvisionedThroughputExceededException', 'KMSThrottlingException']);

/** The Kinesis SDK with the HTTP/1.1 handler its clients take here. */
export type KinesisSdk = typeof import('@aws-sdk/client-kinesis') & Pick<typeof import('@smithy/node-http-handler'), 'NodeHttpHandler'>;

/** Loads the SDK at the first connect (not when the plugins load: a config without Kinesis never pays for it). */
export async function loadKinesis(): Promise<KinesisSdk> {
  const [sdk, { NodeHttpHandler }] = await Promise.all([import('@aws-sdk/client-kinesis'), import('@smithy/node-http-handler')]);
  return { ...sdk, NodeHttpHandler };
}

/**
 * A Kinesis client over HTTP/1.1: the SDK's default handler for Kinesis is HTTP/2 (for
 * SubscribeToShard, not used here), which a plain-HTTP endpoint such as a local emulator refuses.
 */
export function kinesisClient(sdk: KinesisSdk, opts: ClientOptions): KinesisClient {
  return new sdk.KinesisClient({ ...opts, requestHandler: new sdk.NodeHttpHandler(opts.requestHandler) });
}

/** `stream` as the request field it fills: an ARN, else a name. */
export function streamRef(stream: string): { StreamARN: string } | { StreamName: string } {
  return stream.startsWith('arn:') ? { StreamARN: stream } : { StreamName: stream };
}

export class KinesisOutput extends AwsOutput<KinesisSdk, KinesisClient> {
  private readonly partitionKey: Interpolation;
  private readonly hashKey: Interpolation | undefined;
  private streamArn: string | undefined;

  constructor(
    private readonly conf: KinesisOutputConfig,
    ctx: ComponentContext,
  ) {
    super(conf, ctx, {
      sdk: loadKinesis,
      client: kinesisClient,
      connected: `Sending messages to Kinesis stream: ${conf.stream}`,
    });
    this.partitionKey = compileInterpolation(conf.partition_key);
    this.hashKey = conf.hash_key === undefined ? undefined : compileInterpolation(conf.hash_key);
  }

  override async connect(): Promise<void> {
    await super.connect();
    if (this.streamArn) return;
    const { client, sdk } = this.connection();
    try {
      const res = await client.send(new sdk.DescribeStreamSummaryCommand(streamRef(this.conf.stream)));
      this.streamArn = res.StreamDescriptionSummary?.StreamARN;
    } catch (err) {
      // The client stays: the next connect() describes the stream again.
      throw requestError(`${this.component}: cannot describe stream ${this.conf.stream}`, err);
    }
  }

  async write(batch: Batch): Promise<void> {
    const { client, sdk } = this.connection();
    const failures = new Map<number, Error>();
    // Each entry with the index of its message.
    const entries: { i: number; entry: PutRecordsRequestEntry }[] = [];
    for (let i = 0; i < batch.length; i++) {
      try {
        const ctx = { batch, index: i };
        const msg = batch[i]!;
        if (msg.content.length > MAX_RECORD_BYTES) throw new Error(`message ${i} exceeds the maximum Kinesis payload limit of 1 MiB`);
        const entry: PutRecordsRequestEntry = { Data: msg.content, PartitionKey: this.partitionKey.value(msg, ctx) };
        const hash = this.hashKey?.value(msg, ctx);
        if (hash) entry.ExplicitHashKey = hash;
        entries.push({ i, entry });
      } catch (err) {
        failures.set(i, new Error(`${this.component}: ${errorMessage(err)}`));
      }
    }
    const puts: Promise<void>[] = [];
    for (let i = 0; i < entries.length; i += MAX_RECORDS) puts.push(this.put(client, sdk, entries.slice(i, i + MAX_RECORDS), failures));
    await Promise.all(puts);
    throwFailures(batch.length, failures);
  }

  /** Puts one request's records, again for those Kinesis throttled; records what never went. */
  private async put(
    client: KinesisClient,
    sdk: KinesisSdk,
    entries: { i: number; entry: PutRecordsRequestEntry }[],
    failures: Map<number, Error>,
  ): Promise<void> {
    const backoff = new RetryBackoff(this.conf);
    const target = this.streamArn ? { StreamARN: this.streamArn } : streamRef(this.conf.stream);
    let pending = entries;
    for (;;) {
      let why: Error;
      try {
        const res = await client.send(new sdk.PutRecordsCommand({ ...target, Records: pending.map((e) => e.entry) }));
        const retry: typeof pending = [];
        (res.Records ?? []).forEach((r, k) => {
          const e = pending[k];
          if (!e || !r.ErrorCode) return;
          if (THROTTLED.has(r.ErrorCode)) retry.push(e);
          else failures.set(e.i, new Error(`${this.component}: Kinesis refused record ${e.i}: ${r.ErrorCode} ${r.ErrorMessage ?? ''}`.trim()));
        });
        if (retry.length === 0) return;
        this.log.warn(`${this.component}: scheduling retry of throttled records (${retry.length})`);
        pending = retry;
        why = new Error(`${this.component}: Kinesis throttled ${retry.length} record(s)`);
      } catch (err) {
        why = requestError(`${this.component}: cannot put records to ${this.conf.stream}`, err);
        if (this.closed || why instanceof NotConnectedError) {
          for (const e of pending) failures.set(e.i, why);
          return;
        }
        this.log.warn(why.message);
      }
      const wait = this.closed ? undefined : backoff.next();
      if (wait === undefined) {
        for (const e of pending) failures.set(e.i, why);
        return;
      }
      await sleep(wait);
    }
  }
}

registerOutput('aws_kinesis', {
  summary: 'Sends messages to a Kinesis stream.',
  description: [
    'Puts the messages of each batch into the stream with PutRecords, up to 500 records to a request. Both the',
    '`partition_key` (required) and `hash_key` (optional) fields are interpolated per message.',
    '',
    'Records Kinesis throttled are put again with back-off (`max_retries`, `backoff`); a record refused for another',
    'reason (or larger than 1 MiB) fails at once. Messages that were not stored are nacked back to the input, never',
    'lost, and the records of the batch Kinesis took are not put again.',
  ].join('\n'),
  config: kinesisOutputSpec,
  examples: [
    `output:
  aws_kinesis:
    stream: orders
    partition_key: \${! json("customer_id") }
    region: eu-west-1
    batching:
      count: 500
      period: 100ms`,
  ],
  factory: (conf, ctx) => new KinesisOutput(conf, ctx),
});
