/**
 * Test helpers for the aws family (the `*.test.ts` files only): moto's server that
 * `scripts/services.sh up` starts (SVC_MOTO_URL), reached with the raw AWS SDK v3 clients;
 * queues, FIFO queues, topics and buckets with unique names, deleted when the test file ends;
 * filling a queue and reading it back.
 */
import { after } from 'node:test';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
  type Message as SqsMessage,
} from '@aws-sdk/client-sqs';
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { CreateTopicCommand, DeleteTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import assert from 'node:assert/strict';
import { EngineProcess, serviceAddress, waitFor } from '@svc/engine/testing';
import './index.js';

/** moto's address. */
export const MOTO_URL = serviceAddress('SVC_MOTO_URL');
const REGION = 'us-east-1';
const CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' };
const options = { region: REGION, endpoint: MOTO_URL, credentials: CREDENTIALS };

export const sqs = new SQSClient(options);
export const s3 = new S3Client({ ...options, forcePathStyle: true });
export const sns = new SNSClient(options);

/** The session fields of a component config talking to moto, as YAML lines (indented by `indent`). */
export function sessionYaml(indent: string): string {
  return [`region: ${REGION}`, `endpoint: ${MOTO_URL}`, `credentials: { id: test, secret: test }`].map((l) => indent + l).join('\n');
}

/** The same, as an object to spread into a component config. */
export const session = { region: REGION, endpoint: MOTO_URL, credentials: { id: 'test', secret: 'test' } };

const queues = new Set<string>();
const buckets = new Set<string>();
const topics = new Set<string>();

after(async () => {
  for (const q of queues) await sqs.send(new DeleteQueueCommand({ QueueUrl: q })).catch(() => undefined);
  for (const b of buckets) {
    await emptyBucket(b).catch(() => undefined);
    await s3.send(new DeleteBucketCommand({ Bucket: b })).catch(() => undefined);
  }
  for (const t of topics) await sns.send(new DeleteTopicCommand({ TopicArn: t })).catch(() => undefined);
  sqs.destroy();
  s3.destroy();
  sns.destroy();
});

/** A name no other test uses. */
export function unique(prefix: string): string {
  return `svc-${prefix}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

/** A new queue (a FIFO queue with `fifo`); its URL. Deleted at the end. */
export async function tempQueue(prefix: string, fifo = false, attributes: Record<string, string> = {}): Promise<string> {
  const name = fifo ? `${unique(prefix)}.fifo` : unique(prefix);
  const res = await sqs.send(
    new CreateQueueCommand({ QueueName: name, Attributes: { ...(fifo ? { FifoQueue: 'true' } : {}), VisibilityTimeout: '30', ...attributes } }),
  );
  queues.add(res.QueueUrl!);
  return res.QueueUrl!;
}

/** A new bucket; deleted (with its objects) at the end. */
export async function tempBucket(prefix: string): Promise<string> {
  const name = unique(prefix).toLowerCase();
  await s3.send(new CreateBucketCommand({ Bucket: name }));
  buckets.add(name);
  return name;
}

/** A new topic that delivers to `queueUrl` (raw: the SQS message is the published message); its ARN. */
export async function tempTopicTo(prefix: string, queueUrl: string): Promise<string> {
  const topic = await sns.send(new CreateTopicCommand({ Name: unique(prefix) }));
  topics.add(topic.TopicArn!);
  const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  await sns.send(new SubscribeCommand({ TopicArn: topic.TopicArn, Protocol: 'sqs', Endpoint: arn, Attributes: { RawMessageDelivery: 'true' } }));
  return topic.TopicArn!;
}

/** Sends `count` messages `{"id":i}` to a standard queue, ten to a request, 20 requests at a time. */
export async function fill(queueUrl: string, count: number, body: (i: number) => string = (i) => `{"id":${i}}`): Promise<void> {
  const requests: (() => Promise<unknown>)[] = [];
  for (let i = 0; i < count; i += 10) {
    const entries: { Id: string; MessageBody: string }[] = [];
    for (let j = i; j < Math.min(count, i + 10); j++) entries.push({ Id: String(j), MessageBody: body(j) });
    requests.push(() => sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries })));
  }
  for (let i = 0; i < requests.length; i += 20) await Promise.all(requests.slice(i, i + 20).map((r) => r()));
}

/** Messages visible in a queue, and in flight (received, not deleted). */
export async function depth(queueUrl: string): Promise<{ visible: number; inFlight: number }> {
  const a = (
    await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
    )
  ).Attributes!;
  return { visible: Number(a.ApproximateNumberOfMessages ?? 0), inFlight: Number(a.ApproximateNumberOfMessagesNotVisible ?? 0) };
}

/** Receives and deletes everything visible in a queue until an empty answer; the messages. */
export async function takeAll(queueUrl: string): Promise<SqsMessage[]> {
  const out: SqsMessage[] = [];
  for (;;) {
    const res = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'], MessageSystemAttributeNames: ['All'] }),
    );
    const got = res.Messages ?? [];
    if (got.length === 0) return out;
    out.push(...got);
    await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: got.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }));
  }
}

/** The keys in a bucket. */
export async function keysOf(bucket: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const res = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ...(token ? { ContinuationToken: token } : {}) }));
    for (const o of res.Contents ?? []) keys.push(o.Key!);
    token = res.IsTruncated ? res.NextContinuationToken : undefined;
  } while (token);
  return keys;
}

/** An object's body as text, and its headers. */
export async function getObject(bucket: string, key: string): Promise<{ body: string; contentType?: string; metadata: Record<string, string> }> {
  const res = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return { body: await res.Body!.transformToString(), contentType: res.ContentType, metadata: res.Metadata ?? {} };
}

async function emptyBucket(bucket: string): Promise<void> {
  const keys = await keysOf(bucket);
  for (let i = 0; i < keys.length; i += 1000) {
    await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })) } }));
  }
}

// --- the reliability tests' pipelines ---------------------------------------------------------

/**
 * How many messages each reliability test moves: 300, not the 1,000 of the other connectors'.
 * moto, one Python process shared by every AWS test, answered in 0.3-3 s a request on a loaded
 * machine, and a thousand messages (each a receive, a send or publish, a delete) ran past the test
 * runner's 300 s per file when two AWS files ran side by side.
 */
export const TOTAL = 300;

/** The engine CLI running `input` → `output` (YAML blocks indented by two). */
export function engine(input: string, output: string): EngineProcess {
  return new EngineProcess(`http: { enabled: false }
logger: { level: INFO, format: logfmt }
input:
${input}
pipeline:
  threads: 1
output:
${output}
`);
}

/** The SQS input on `url`: in-flight messages of a killed run come back after 2 s. */
export function sqsInput(url: string): string {
  return `  aws_sqs:
    url: ${url}
    wait_time_seconds: 1
    message_timeout: 2s
${sessionYaml('    ')}`;
}

/** The SQS output to a FIFO queue that drops a second copy of an id. */
export function fifoOutput(url: string): string {
  return `  aws_sqs:
    url: ${url}
    message_group_id: g\${! json("id") % 8 }
    message_deduplication_id: \${! json("id") }
    batching: { count: 10, period: 500ms }
${sessionYaml('    ')}`;
}

/**
 * Runs `make()` until `done()`, SIGKILLing the first run once `landed()` reached `killAt` (of
 * `total`); `afterKill` looks at what the killed run left before the second starts.
 */
export async function killAndRestart(
  make: () => EngineProcess,
  landed: () => Promise<number>,
  killAt: number,
  done: () => Promise<boolean>,
  total = TOTAL,
  afterKill?: () => Promise<void>,
): Promise<number> {
  const first = make();
  let halfway: number;
  try {
    await waitFor(`${killAt} through before the kill`, async () => ((await landed()) >= killAt ? true : undefined), 150_000, 250);
    await first.kill();
    halfway = await landed();
    await afterKill?.();
  } finally {
    if (!first.done) await first.kill();
  }
  assert.ok(halfway < total, `the engine was killed mid-run (${halfway} of ${total} through): ${first.output().slice(-1000)}`);
  const second = make();
  try {
    await waitFor('the rest through after the restart', async () => ((await done()) ? true : undefined), 240_000, 1000);
  } finally {
    if (!second.done) await second.stop();
  }
  return halfway;
}
