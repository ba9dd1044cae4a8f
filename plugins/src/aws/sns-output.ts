/**
 * The `aws_sns` output: publishes each message to an SNS topic, a write resolving only once SNS
 * accepted every message of it (Publish answered). A message SNS did not accept, or that took
 * longer than `timeout`, fails the write with a BatchError naming it, so only it is published
 * again after its input replays it.
 */
import type { PublishInput, SNSClient } from '@aws-sdk/client-sns';
import {
  NotConnectedError,
  compileInterpolation,
  errorMessage,
  f,
  parseDuration,
  registerOutput,
  type Batch,
  type ComponentContext,
  type Infer,
  type Interpolation,
  type Logger,
  type Output,
} from '@svc/engine';
import { messageAttributes, metadataField } from './attributes.js';
import { throwFailures } from '../batch-outcome.js';
import { awsError, clientOptions, isConnectionError, sessionFields, type ClientOptions } from './session.js';

export const snsOutputSpec = f.object({
  topic_arn: f.string().interpolated().describe('The topic to publish to.'),
  message_group_id: f.string().interpolated().optional().describe('An optional group ID to set for messages (FIFO topics).'),
  message_deduplication_id: f.string().interpolated().optional().describe('An optional deduplication ID to set for messages (FIFO topics).'),
  subject: f.string().interpolated().optional().describe('An optional subject to set for messages.'),
  max_in_flight: f
    .int()
    .default(64)
    .validate((n) => (n >= 1 ? undefined : 'max_in_flight must be at least 1'))
    .describe('The maximum number of messages to have in flight at a given time. Increase this to improve throughput.'),
  metadata: metadataField,
  timeout: f.duration().default('5s').advanced().describe('The maximum period to wait on an upload before abandoning it and reattempting.'),
  ...sessionFields,
});

export type SnsOutputConfig = Infer<typeof snsOutputSpec>;

export class SnsOutput implements Output {
  private readonly log: Logger;
  private readonly component: string;
  private readonly opts: ClientOptions;
  private readonly timeoutMs: number;
  private readonly topic: Interpolation;
  private readonly groupId: Interpolation | undefined;
  private readonly dedupeId: Interpolation | undefined;
  private readonly subject: Interpolation | undefined;
  private client: SNSClient | undefined;
  private sdk: typeof import('@aws-sdk/client-sns') | undefined;

  constructor(
    private readonly conf: SnsOutputConfig,
    ctx: ComponentContext,
  ) {
    this.log = ctx.logger;
    this.component = `${ctx.type} output`;
    this.timeoutMs = parseDuration(conf.timeout);
    this.opts = clientOptions(conf, this.component, this.timeoutMs > 0 ? this.timeoutMs : undefined);
    const opt = (s: string | undefined) => (s === undefined ? undefined : compileInterpolation(s));
    this.topic = compileInterpolation(conf.topic_arn);
    this.groupId = opt(conf.message_group_id);
    this.dedupeId = opt(conf.message_deduplication_id);
    this.subject = opt(conf.subject);
  }

  async connect(): Promise<void> {
    if (this.client) return;
    const sdk = (this.sdk ??= await import('@aws-sdk/client-sns'));
    this.client = new sdk.SNSClient(this.opts);
    this.log.info(`Sending messages to Amazon SNS ARN: ${this.conf.topic_arn}`);
  }

  async write(batch: Batch): Promise<void> {
    const client = this.client;
    const sdk = this.sdk;
    if (!client || !sdk) throw new NotConnectedError(`${this.component}: not connected`);
    const failures = new Map<number, Error>();
    await Promise.all(
      batch.map(async (msg, i) => {
        let input: PublishInput;
        try {
          const ctx = { batch, index: i };
          input = { TopicArn: this.topic.value(msg, ctx), Message: msg.content.toString('utf8') };
          const attrs = messageAttributes(msg, this.conf.metadata.exclude_prefixes);
          if (attrs) input.MessageAttributes = attrs;
          if (this.groupId) input.MessageGroupId = this.groupId.value(msg, ctx);
          if (this.dedupeId) input.MessageDeduplicationId = this.dedupeId.value(msg, ctx);
          const subject = this.subject?.value(msg, ctx);
          if (subject) input.Subject = subject;
        } catch (err) {
          failures.set(i, new Error(`${this.component}: ${errorMessage(err)}`));
          return;
        }
        try {
          await client.send(new sdk.PublishCommand(input), this.timeoutMs > 0 ? { abortSignal: AbortSignal.timeout(this.timeoutMs) } : {});
        } catch (err) {
          const why = `${this.component}: cannot publish to ${input.TopicArn}: ${awsError(err)}`;
          failures.set(i, isConnectionError(err) ? new NotConnectedError(why) : new Error(why));
        }
      }),
    );
    throwFailures(batch.length, failures);
  }

  async close(): Promise<void> {
    this.client?.destroy();
    this.client = undefined;
  }
}

registerOutput('aws_sns', {
  summary: 'Publishes messages to an AWS SNS topic, each acknowledged only once SNS accepted it.',
  description: [
    'Publishes each message to the topic `topic_arn` (interpolated per message). `message_group_id` and',
    '`message_deduplication_id` (FIFO topics) and `subject` are interpolated per message too.',
    '',
    'Metadata is sent as `String` message attributes, except keys starting with one of `metadata.exclude_prefixes`',
    'and names SNS does not allow. A message SNS did not accept within `timeout` is nacked back to its input,',
    'never lost.',
  ].join('\n'),
  config: snsOutputSpec,
  examples: [
    `output:
  aws_sns:
    topic_arn: arn:aws:sns:eu-west-1:123456789012:order-events
    region: eu-west-1
    subject: \${! meta("event_type") }
    metadata:
      exclude_prefixes: [ kafka_ ]`,
  ],
  factory: (conf, ctx) => new SnsOutput(conf, ctx),
});
