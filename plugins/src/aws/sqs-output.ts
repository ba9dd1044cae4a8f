/**
 * The `aws_sqs` output: sends messages to an SQS queue with SendMessageBatch (up to
 * `max_records_per_request` to a request), a write resolving only once SQS accepted every
 * message of the batch.
 *
 * Entries SQS failed on its side are sent again with back-off (`max_retries`, `backoff`); an
 * entry refused as the sender's fault (too large, a bad attribute) fails at once. What still
 * failed fails the write with a BatchError naming those messages: the runtime nacks them back to
 * their input, and the messages SQS took are not sent twice.
 */
import type { SendMessageBatchRequestEntry, SQSClient } from '@aws-sdk/client-sqs';
import {
  NotConnectedError,
  batchPolicySpec,
  compileInterpolation,
  errorMessage,
  f,
  maxInFlightField,
  registerOutput,
  type Batch,
  type ComponentContext,
  type Infer,
  type Interpolation,
} from '@svc/engine';
import { sleep } from '@svc/engine/kit';
import { messageAttributes, metadataField } from './attributes.js';
import { throwFailures } from '../batch-outcome.js';
import { AwsOutput } from './output.js';
import { RetryBackoff, retryFields } from './retry-fields.js';
import { awsError, isConnectionError, sessionFields } from './session.js';

export const sqsOutputSpec = f.object({
  url: f.string().interpolated().describe('The URL of the target SQS queue.'),
  message_group_id: f.string().interpolated().optional().describe('An optional group ID to set for messages (FIFO queues).'),
  message_deduplication_id: f.string().interpolated().optional().describe('An optional deduplication ID to set for messages (FIFO queues).'),
  delay_seconds: f.string().interpolated().optional().describe('An optional delay time in seconds for message. Value between 0 and 900'),
  max_in_flight: maxInFlightField(64, 'The maximum number of parallel message batches to have in flight at any given time.'),
  metadata: metadataField,
  batching: batchPolicySpec,
  max_records_per_request: f
    .int()
    .default(10)
    .validate((n) => (n > 0 && n <= 10 ? undefined : 'max_records_per_request must be >0 and <=10'))
    .advanced()
    .describe('Customize the maximum number of records delivered in a single SQS request. This value must be greater than 0 but no greater than 10.'),
  ...sessionFields,
  ...retryFields('1s', '5s', '30s'),
});

export type SqsOutputConfig = Infer<typeof sqsOutputSpec>;

interface Templates {
  url: Interpolation;
  groupId: Interpolation | undefined;
  dedupeId: Interpolation | undefined;
  delay: Interpolation | undefined;
}

type Sdk = typeof import('@aws-sdk/client-sqs');

export class SqsOutput extends AwsOutput<Sdk, SQSClient> {
  private readonly t: Templates;

  constructor(
    private readonly conf: SqsOutputConfig,
    ctx: ComponentContext,
  ) {
    super(conf, ctx, {
      sdk: () => import('@aws-sdk/client-sqs'),
      client: (sdk, opts) => new sdk.SQSClient(opts),
      connected: `Sending messages to Amazon SQS URL: ${conf.url}`,
    });
    const opt = (s: string | undefined) => (s === undefined ? undefined : compileInterpolation(s));
    this.t = {
      url: compileInterpolation(conf.url),
      groupId: opt(conf.message_group_id),
      dedupeId: opt(conf.message_deduplication_id),
      delay: opt(conf.delay_seconds),
    };
  }

  async write(batch: Batch): Promise<void> {
    const { client, sdk } = this.connection();
    // Entries by queue URL, each entry's Id its index in the batch.
    const byUrl = new Map<string, SendMessageBatchRequestEntry[]>();
    const failures = new Map<number, Error>();
    for (let i = 0; i < batch.length; i++) {
      try {
        const ctx = { batch, index: i };
        const msg = batch[i]!;
        const url = this.t.url.value(msg, ctx);
        const entry: SendMessageBatchRequestEntry = { Id: String(i), MessageBody: msg.content.toString('utf8') };
        const attrs = messageAttributes(msg, this.conf.metadata.exclude_prefixes, 10);
        if (attrs) entry.MessageAttributes = attrs;
        if (this.t.groupId) entry.MessageGroupId = this.t.groupId.value(msg, ctx);
        if (this.t.dedupeId) entry.MessageDeduplicationId = this.t.dedupeId.value(msg, ctx);
        if (this.t.delay) entry.DelaySeconds = delaySeconds(this.t.delay.value(msg, ctx));
        let list = byUrl.get(url);
        if (!list) byUrl.set(url, (list = []));
        list.push(entry);
      } catch (err) {
        failures.set(i, new Error(`${this.component}: ${errorMessage(err)}`));
      }
    }
    const max = this.conf.max_records_per_request;
    const sends: Promise<void>[] = [];
    for (const [url, entries] of byUrl) {
      for (let i = 0; i < entries.length; i += max) sends.push(this.send(client, sdk, url, entries.slice(i, i + max), failures));
    }
    await Promise.all(sends);
    throwFailures(batch.length, failures);
  }

  /** Sends one request's entries, retrying those SQS failed on its side; records what never went. */
  private async send(client: SQSClient, sdk: Sdk, url: string, entries: SendMessageBatchRequestEntry[], failures: Map<number, Error>): Promise<void> {
    const backoff = new RetryBackoff(this.conf);
    let pending = entries;
    for (;;) {
      let why: Error;
      try {
        const res = await client.send(new sdk.SendMessageBatchCommand({ QueueUrl: url, Entries: pending }));
        const retry: SendMessageBatchRequestEntry[] = [];
        for (const fail of res.Failed ?? []) {
          const entry = pending.find((e) => e.Id === fail.Id);
          if (!entry) continue;
          const err = new Error(`${this.component}: SQS refused the message for ${url}: ${fail.Code ?? ''} ${fail.Message ?? ''}`.trim());
          if (fail.SenderFault) failures.set(Number(entry.Id), err);
          else retry.push(entry);
        }
        if (retry.length === 0) return;
        pending = retry;
        why = new Error(`${this.component}: SQS failed ${retry.length} message(s) for ${url}`);
      } catch (err) {
        if (this.closed || isConnectionError(err)) {
          // The runtime reconnects and writes these again.
          const e = new NotConnectedError(`${this.component}: cannot send to ${url}: ${awsError(err)}`);
          for (const entry of pending) failures.set(Number(entry.Id), e);
          return;
        }
        why = new Error(`${this.component}: cannot send to ${url}: ${awsError(err)}`);
        this.log.warn(why.message);
      }
      const wait = this.closed ? undefined : backoff.next();
      if (wait === undefined) {
        for (const entry of pending) failures.set(Number(entry.Id), why);
        return;
      }
      await sleep(wait);
    }
  }
}

/** `delay_seconds` as SQS takes it: a whole number from 0 to 900. */
function delaySeconds(text: string): number {
  if (!/^\s*\d+\s*$/.test(text)) throw new Error(`delay_seconds must be a whole number of seconds, got "${text}"`);
  const n = Number(text);
  if (n > 900) throw new Error(`delay_seconds must be between 0 and 900, got ${n}`);
  return n;
}

registerOutput('aws_sqs', {
  summary: 'Sends messages to an AWS SQS queue, each write acknowledged only once SQS accepted every message of it.',
  description: [
    'Sends the messages of each batch with SendMessageBatch, up to `max_records_per_request` to a request, to the',
    'queue at `url` (interpolated per message: one batch may go to several queues). `message_group_id`,',
    '`message_deduplication_id` (FIFO queues) and `delay_seconds` are interpolated per message too.',
    '',
    'Metadata is sent as `String` message attributes, except keys starting with one of `metadata.exclude_prefixes`',
    'and names SQS does not allow; SQS takes at most ten, so the first ten keys in alphabetical order are sent.',
    '',
    'Messages SQS failed on its side are sent again with back-off (`max_retries`, `backoff`); a message refused as',
    "the sender's fault fails at once. Messages that were not accepted are nacked back to the input, never lost.",
  ].join('\n'),
  config: sqsOutputSpec,
  examples: [
    `output:
  aws_sqs:
    url: https://sqs.eu-west-1.amazonaws.com/123456789012/results.fifo
    region: eu-west-1
    message_group_id: \${! json("customer") }
    message_deduplication_id: \${! json("id") }
    batching:
      count: 10
      period: 100ms`,
  ],
  factory: (conf, ctx) => new SqsOutput(conf, ctx),
});
