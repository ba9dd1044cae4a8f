/**
 * The `aws_sqs` input: consumes an SQS queue, deleting each message only once the output
 * delivered it.
 *
 * A message received from SQS is invisible to other consumers for `message_timeout`; while it is
 * in flight here its visibility is extended (once half of the timeout has passed), so a slow
 * output never lets it be delivered twice. An ack deletes it (grouped ten to a DeleteMessageBatch);
 * a nack makes it visible again at once (`reset_visibility`), so SQS delivers it again. A process
 * killed mid-stream leaves its unacked messages to reappear when their visibility times out:
 * nothing is lost, and only what was in flight (or acked and not yet deleted) comes again.
 *
 * As in Benthos, each message is a transaction of its own; `max_outstanding_messages` bounds
 * how many are received and not yet acked.
 */
import type { Message as SqsMessage, SQSClient } from '@aws-sdk/client-sqs';
import {
  Message,
  NotConnectedError,
  f,
  parseDuration,
  registerInput,
  type ComponentContext,
  type Infer,
  type Logger,
  type MetaValue,
  type Transaction,
} from '@svc/engine';
import { PullInput, ThrottledLog, sleep } from '@svc/engine/kit';
import { awsError, clientOptions, isConnectionError, sessionFields, type ClientOptions } from './session.js';

export const sqsInputSpec = f.object({
  url: f.string().url().describe('The SQS URL to consume from.'),
  delete_message: f
    .bool()
    .default(true)
    .advanced()
    .describe('Whether to delete the consumed message once it is acked. Disabling allows you to handle the deletion using a different mechanism.'),
  reset_visibility: f
    .bool()
    .default(true)
    .advanced()
    .describe(
      'Whether to set the visibility timeout of the consumed message to zero once it is nacked. Disabling honors the preset visibility timeout specified for the queue.',
    ),
  max_number_of_messages: f
    .int()
    .default(10)
    .validate((n) => (n >= 1 && n <= 10 ? undefined : 'max_number_of_messages must be between 1 and 10'))
    .advanced()
    .describe('The maximum number of messages to return on one poll. Valid values: 1 to 10.'),
  max_outstanding_messages: f
    .int()
    .default(1000)
    .validate((n) => (n >= 1 ? undefined : 'max_outstanding_messages must be at least 1'))
    .describe('The maximum number of outstanding pending messages to be consumed at a given time.'),
  wait_time_seconds: f
    .int()
    .default(0)
    .validate((n) => (n >= 0 && n <= 20 ? undefined : 'wait_time_seconds must be between 0 and 20'))
    .advanced()
    .describe('Whether to set the wait time. Enabling this activates long-polling. Valid values: 0 to 20.'),
  message_timeout: f
    .duration()
    .default('30s')
    .advanced()
    .describe(
      'The time to process messages before needing to refresh the receipt handle. Messages will be eligible for refresh when half of the timeout has elapsed. This sets MessageVisibility for each received message.',
    ),
  ...sessionFields,
});

export type SqsInputConfig = Infer<typeof sqsInputSpec>;

/** A received message's handle while it is in flight here. */
interface Handle {
  readonly id: string;
  readonly receipt: string;
  /** When its visibility runs out unless extended (ms since the epoch). */
  deadline: number;
}

/**
 * Receive requests in flight at once. Benthos has one; a receive takes a round trip to SQS (tens of
 * milliseconds, far more on a busy emulator), so one loop caps a consumer at ten messages per round
 * trip. Four keep the input ahead of its pipeline; `max_outstanding_messages` still bounds them.
 */
const RECEIVERS = 4;
/** SQS takes at most ten entries per batch request. */
const SQS_BATCH = 10;
/**
 * How long acks and nacks wait to be grouped into one request (ten fill one at once). One second, as
 * Benthos: a slow stream then sends one request per ten messages rather than one per message.
 */
const FLUSH_MS = 1000;
/** How long `close()` waits for transactions in flight to be acked. */
const CLOSE_DRAIN_MS = 10_000;

export class SqsInput extends PullInput<SqsMessage> {
  private readonly log: Logger;
  private readonly failures: ThrottledLog;
  private readonly component: string;
  private readonly opts: ClientOptions;
  private readonly timeoutMs: number;
  private client: SQSClient | undefined;
  private sdk: typeof import('@aws-sdk/client-sqs') | undefined;
  /** Received and not yet acked (handed out or queued), by message id. */
  private readonly inFlight = new Map<string, Handle>();
  private readonly toDelete: Handle[] = [];
  private readonly toReset: Handle[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private readonly flushes = new Set<Promise<void>>();
  private polling: Promise<void[]> | undefined;
  private readonly stop = new AbortController();
  /** Why the last receive failed, while it keeps failing (reads report it). */
  private failure = '';

  constructor(
    private readonly conf: SqsInputConfig,
    ctx: ComponentContext,
  ) {
    super();
    this.log = ctx.logger;
    this.failures = new ThrottledLog(ctx.logger, 30_000);
    this.component = `${ctx.type} input`;
    this.timeoutMs = parseDuration(conf.message_timeout);
    // A long poll must be allowed to last its wait, plus the usual answer time.
    this.opts = clientOptions(conf, this.component, 30_000 + conf.wait_time_seconds * 1000);
  }

  async connect(): Promise<void> {
    if (this.closed || this.client) return;
    const sdk = (this.sdk ??= await import('@aws-sdk/client-sqs'));
    const client = new sdk.SQSClient(this.opts);
    try {
      await client.send(new sdk.GetQueueAttributesCommand({ QueueUrl: this.conf.url, AttributeNames: ['QueueArn'] }));
    } catch (err) {
      client.destroy();
      const why = `${this.component}: cannot reach queue ${this.conf.url}: ${awsError(err)}`;
      throw isConnectionError(err) ? new NotConnectedError(why) : new Error(`${why} (check the url, region and credentials)`);
    }
    this.client = client;
    this.polling = Promise.all(Array.from({ length: RECEIVERS }, () => this.poll(client, sdk)));
    this.refreshTimer = setInterval(() => this.refresh(), 1000);
    this.log.info(`Receiving Amazon SQS messages from URL: ${this.conf.url}`);
  }

  /** Receives while there is room, until closed. */
  private async poll(client: SQSClient, sdk: typeof import('@aws-sdk/client-sqs')): Promise<void> {
    let idle = 10;
    while (!this.closed) {
      if (this.queued >= this.conf.max_number_of_messages * RECEIVERS || this.inFlight.size >= this.conf.max_outstanding_messages) {
        await this.room();
        continue;
      }
      let received: SqsMessage[] = [];
      try {
        const res = await client.send(
          new sdk.ReceiveMessageCommand({
            QueueUrl: this.conf.url,
            MaxNumberOfMessages: this.conf.max_number_of_messages,
            WaitTimeSeconds: this.conf.wait_time_seconds,
            VisibilityTimeout: Math.round(this.timeoutMs / 1000),
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          // Not aborted on close: SQS may already have handed the messages out, and an answer
          // never read would leave them invisible for the whole visibility timeout. close() waits
          // for it (at most wait_time_seconds) and makes what it brought visible again at once.
        );
        received = res.Messages ?? [];
        this.failure = '';
      } catch (err) {
        if (this.closed) break;
        this.failure = awsError(err);
        this.failures.error(`${this.component}: failed to pull new SQS messages: ${this.failure}`);
        this.wakeReader();
      }
      if (received.length > 0) {
        const deadline = Date.now() + this.timeoutMs;
        for (const m of received) {
          if (m.MessageId && m.ReceiptHandle) this.inFlight.set(m.MessageId, { id: m.MessageId, receipt: m.ReceiptHandle, deadline });
        }
        this.offer(...received);
        idle = 10;
        continue;
      }
      // Without long polling an empty answer backs off (10 ms doubling up to a minute, as Benthos).
      if (this.conf.wait_time_seconds > 0 && this.failure === '') continue;
      await sleep(idle, this.stop.signal);
      idle = Math.min(60_000, idle * 2);
    }
  }

  protected override assertConnected(): void {
    if (!this.client) throw new NotConnectedError(`${this.component}: not connected`);
  }

  protected transaction(items: SqsMessage[]): Transaction {
    const m = items[0]!;
    const meta: Record<string, MetaValue> = {};
    if (m.MessageId) meta.sqs_message_id = m.MessageId;
    if (m.ReceiptHandle) meta.sqs_receipt_handle = m.ReceiptHandle;
    const count = m.Attributes?.ApproximateReceiveCount;
    if (count !== undefined) meta.sqs_approximate_receive_count = count;
    if (m.MessageAttributes) for (const [k, v] of Object.entries(m.MessageAttributes)) if (v.StringValue !== undefined) meta[k] = v.StringValue;
    const handle = m.MessageId ? this.inFlight.get(m.MessageId) : undefined;
    return this.track([new Message(m.Body ?? '', meta)], (err) => {
      if (!handle) return;
      this.inFlight.delete(handle.id);
      if (!err) {
        if (this.conf.delete_message) this.queue(this.toDelete, handle);
      } else if (this.conf.reset_visibility) {
        this.queue(this.toReset, handle);
      }
    });
  }

  /** Adds a handle to the deletes or resets to send; sends a full batch at once, else soon. */
  private queue(list: Handle[], h: Handle): void {
    list.push(h);
    if (list.length >= SQS_BATCH) this.flush();
    else this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Sends what is queued: deletes of acked messages, visibility resets of nacked ones. */
  private flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const client = this.client;
    const sdk = this.sdk;
    if (!client || !sdk) return Promise.resolve();
    const work: Promise<void>[] = [];
    while (this.toDelete.length > 0) {
      const chunk = this.toDelete.splice(0, SQS_BATCH);
      work.push(
        this.batchRequest('delete', chunk, () =>
          client.send(
            new sdk.DeleteMessageBatchCommand({ QueueUrl: this.conf.url, Entries: chunk.map((h, i) => ({ Id: String(i), ReceiptHandle: h.receipt })) }),
          ),
        ),
      );
    }
    while (this.toReset.length > 0) {
      const chunk = this.toReset.splice(0, SQS_BATCH);
      work.push(this.changeVisibility('reset the visibility of', chunk, 0));
    }
    const p = Promise.all(work).then(() => undefined);
    this.flushes.add(p);
    void p.finally(() => this.flushes.delete(p));
    return p;
  }

  private changeVisibility(what: string, chunk: Handle[], seconds: number): Promise<void> {
    const client = this.client;
    const sdk = this.sdk;
    if (!client || !sdk) return Promise.resolve();
    return this.batchRequest(what, chunk, () =>
      client.send(
        new sdk.ChangeMessageVisibilityBatchCommand({
          QueueUrl: this.conf.url,
          Entries: chunk.map((h, i) => ({ Id: String(i), ReceiptHandle: h.receipt, VisibilityTimeout: seconds })),
        }),
      ),
    );
  }

  /** One batch request; failures are logged (SQS delivers the message again: nothing is lost). */
  private async batchRequest(
    what: string,
    chunk: Handle[],
    send: () => Promise<{ Failed?: { Id?: string; Code?: string; Message?: string }[] }>,
  ): Promise<void> {
    try {
      const res = await send();
      for (const fail of res.Failed ?? []) {
        const h = chunk[Number(fail.Id)];
        this.log.debug(`${this.component}: could not ${what} SQS message ${h?.id ?? fail.Id}: ${fail.Code ?? ''} ${fail.Message ?? ''}`);
      }
    } catch (err) {
      this.failures.error(`${this.component}: could not ${what} ${chunk.length} SQS message(s) (they will be delivered again): ${awsError(err)}`);
    }
  }

  /** Extends the visibility of messages in flight whose timeout is half gone. */
  private refresh(): void {
    const now = Date.now();
    const due: Handle[] = [];
    for (const h of this.inFlight.values()) {
      if (h.deadline - now <= this.timeoutMs / 2) {
        h.deadline = now + this.timeoutMs;
        due.push(h);
      }
    }
    for (let i = 0; i < due.length; i += SQS_BATCH) {
      void this.changeVisibility('extend the visibility of', due.slice(i, i + SQS_BATCH), Math.round(this.timeoutMs / 1000));
    }
  }

  /**
   * Stops receiving, makes what was received and not handed out visible again, waits (up to
   * 10 s) for the transactions in flight to be acked, and sends the last deletes.
   */
  protected async shutDown(): Promise<void> {
    this.stop.abort();
    clearInterval(this.refreshTimer);
    // A receive in flight is not aborted (see poll()): wait for what it brings.
    await this.polling;
    for (const m of this.takeQueued()) {
      const h = m.MessageId ? this.inFlight.get(m.MessageId) : undefined;
      if (!h) continue;
      this.inFlight.delete(h.id);
      if (this.conf.reset_visibility) this.toReset.push(h);
    }
    await this.acksSettled(CLOSE_DRAIN_MS);
    await this.flush();
    await Promise.all([...this.flushes]);
    this.client?.destroy();
    this.client = undefined;
  }
}

registerInput('aws_sqs', {
  summary: 'Consumes messages from an AWS SQS queue, deleting each once it was delivered.',
  description: [
    'Receives up to `max_number_of_messages` messages per request (long-polling for `wait_time_seconds`), at most',
    '`max_outstanding_messages` unacked at once. Each message is a transaction of its own.',
    '',
    'A message is deleted from the queue once the output delivered it (`delete_message`); a message that failed',
    'downstream is made visible again at once (`reset_visibility`), so SQS delivers it again. While a message is in',
    'flight its visibility timeout (`message_timeout`) is extended, so a slow output does not cause a redelivery. A',
    'process that dies leaves its unacked messages to SQS, which delivers them again once their visibility ends.',
    '',
    'Metadata: `sqs_message_id`, `sqs_receipt_handle`, `sqs_approximate_receive_count` and every message attribute',
    'with a string value. Credentials come from `credentials` or the default chain (environment, shared files, the',
    "host's role).",
  ].join('\n'),
  config: sqsInputSpec,
  examples: [
    `input:
  aws_sqs:
    url: https://sqs.eu-west-1.amazonaws.com/123456789012/orders
    region: eu-west-1
    wait_time_seconds: 20
    max_outstanding_messages: 500`,
  ],
  factory: (conf, ctx) => new SqsInput(conf, ctx),
});
