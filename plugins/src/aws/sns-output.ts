/**
 * The `aws_sns` output: publishes each message to an SNS topic, a write resolving only once SNS
 * accepted every message of it (Publish answered). A message SNS did not accept, or that took
 * longer than `timeout`, fails the write with a BatchError naming it, so only it is published
 * again after its input replays it.
 */
import type { PublishInput, SNSClient } from '@aws-sdk/client-sns';
import {
  compileInterpolation,
  f,
  maxInFlightField,
  parseDuration,
  registerOutput,
  type Batch,
  type ComponentContext,
  type Infer,
  type Interpolation,
} from '@svc/engine';
import { messageAttributes, metadataField } from './attributes.js';
import { AwsOutput, timeoutField } from './output.js';
import { sessionFields } from './session.js';

export const snsOutputSpec = f.object({
  topic_arn: f.string().interpolated().describe('The topic to publish to.'),
  message_group_id: f.string().interpolated().optional().describe('An optional group ID to set for messages (FIFO topics).'),
  message_deduplication_id: f.string().interpolated().optional().describe('An optional deduplication ID to set for messages (FIFO topics).'),
  subject: f.string().interpolated().optional().describe('An optional subject to set for messages.'),
  max_in_flight: maxInFlightField(64),
  metadata: metadataField,
  timeout: timeoutField,
  ...sessionFields,
});

export type SnsOutputConfig = Infer<typeof snsOutputSpec>;

export class SnsOutput extends AwsOutput<typeof import('@aws-sdk/client-sns'), SNSClient> {
  private readonly topic: Interpolation;
  private readonly groupId: Interpolation | undefined;
  private readonly dedupeId: Interpolation | undefined;
  private readonly subject: Interpolation | undefined;

  constructor(
    private readonly conf: SnsOutputConfig,
    ctx: ComponentContext,
  ) {
    super(conf, ctx, {
      sdk: () => import('@aws-sdk/client-sns'),
      client: (sdk, opts) => new sdk.SNSClient(opts),
      connected: `Sending messages to Amazon SNS ARN: ${conf.topic_arn}`,
      timeoutMs: parseDuration(conf.timeout),
    });
    const opt = (s: string | undefined) => (s === undefined ? undefined : compileInterpolation(s));
    this.topic = compileInterpolation(conf.topic_arn);
    this.groupId = opt(conf.message_group_id);
    this.dedupeId = opt(conf.message_deduplication_id);
    this.subject = opt(conf.subject);
  }

  async write(batch: Batch): Promise<void> {
    const { client, sdk } = this.connection();
    await this.sendEach(
      batch,
      (i) => this.publishInput(batch, i),
      (input, options) => client.send(new sdk.PublishCommand(input), options),
      (input) => `cannot publish to ${input.TopicArn}`,
    );
  }

  private publishInput(batch: Batch, i: number): PublishInput {
    const msg = batch[i]!;
    const ctx = { batch, index: i };
    const input: PublishInput = { TopicArn: this.topic.value(msg, ctx), Message: msg.content.toString('utf8') };
    const attrs = messageAttributes(msg, this.conf.metadata.exclude_prefixes);
    if (attrs) input.MessageAttributes = attrs;
    if (this.groupId) input.MessageGroupId = this.groupId.value(msg, ctx);
    if (this.dedupeId) input.MessageDeduplicationId = this.dedupeId.value(msg, ctx);
    const subject = this.subject?.value(msg, ctx);
    if (subject) input.Subject = subject;
    return input;
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
