/**
 * The `aws_s3` input: walks a bucket (the keys under `prefix`, in S3's listing order) and reads
 * each object through a scanner (`to_the_end` by default: one message per object), then ends; or,
 * with `sqs.url`, reads the objects S3 event notifications from an SQS queue name, for as long as
 * it runs (s3-notices.ts: a notification is deleted once all its objects were delivered).
 *
 * Each batch the scanner yields is one transaction. An object is done once it was read to its
 * end and every transaction from it was acked; only then is it deleted (`delete_objects`). A
 * nacked transaction is replayed (`auto_replay_nacks`), so an object is never deleted with a part
 * undelivered; a process killed mid-walk deletes nothing it had not delivered in full, and a new
 * run reads the remaining objects again (at least once).
 */
import type { Readable } from 'node:stream';
import type { GetObjectCommandOutput, S3Client } from '@aws-sdk/client-s3';
import {
  END_OF_INPUT,
  ErrorCode,
  NotConnectedError,
  SvcError,
  errorMessage,
  f,
  parseDuration,
  registerInput,
  type Batch,
  type ComponentContext,
  type EndOfInput,
  type Infer,
  type Input,
  type Logger,
  type Transaction,
} from '@svc/engine';
import { SCANNER_DESCRIPTION, parseScanner, scannerField, trackAck, type Scanner } from '@svc/engine/kit';
import { S3Notices, type Target } from './s3-notices.js';
import { awsError, clientOptions, requestError, sessionFields, type ClientOptions } from './session.js';

export const s3InputSpec = f.object({
  bucket: f.string().default('').describe('The bucket to consume from. If the field `sqs.url` is specified this field is optional.'),
  prefix: f.string().default('').describe('An optional path prefix, if set only objects with the prefix are consumed when walking a bucket.'),
  ...sessionFields,
  force_path_style_urls: f
    .bool()
    .default(false)
    .advanced()
    .describe('Forces the client API to use path style URLs for downloading keys, which is often required when connecting to custom endpoints.'),
  delete_objects: f.bool().default(false).advanced().describe('Whether to delete downloaded objects from the bucket once they are processed.'),
  scanner: scannerField().default({ to_the_end: {} }).describe(`${SCANNER_DESCRIPTION} The default, \`to_the_end\`, makes each object one message.`),
  sqs: f
    .object({
      url: f.string().default('').describe('An optional SQS URL to connect to. When specified this queue will control which objects are downloaded.'),
      endpoint: f.string().default('').advanced().describe('A custom endpoint to use when connecting to SQS.'),
      key_path: f
        .string()
        .default('Records.*.s3.object.key')
        .describe('A dot path whereby object keys are found in SQS messages (`*` takes every element of an array).'),
      bucket_path: f.string().default('Records.*.s3.bucket.name').describe('A dot path whereby the bucket name can be found in SQS messages.'),
      envelope_path: f
        .string()
        .default('')
        .describe(
          'A dot path of a field to extract an enveloped JSON payload for further extracting the key and bucket from SQS messages. This is specifically useful when subscribing an SQS queue to an SNS topic that receives bucket events (`Message`).',
        ),
      delay_period: f
        .string()
        .default('')
        .validate(durationProblem)
        .advanced()
        .describe('An optional period of time to wait from when a notification was originally sent to when the target key download is attempted.'),
      max_messages: f
        .int()
        .default(10)
        .validate((n) => (n >= 1 && n <= 10 ? undefined : 'max_messages must be between 1 and 10 (what SQS answers at most)'))
        .advanced()
        .describe('The maximum number of SQS messages to consume from each request.'),
      wait_time_seconds: f
        .int()
        .default(0)
        .validate((n) => (n >= 0 && n <= 20 ? undefined : 'wait_time_seconds must be between 0 and 20'))
        .advanced()
        .describe('Whether to set the wait time. Enabling this activates long-polling. Valid values: 0 to 20.'),
      nack_visibility_timeout: f
        .int()
        .default(0)
        .validate((n) => (n >= 0 && n <= 43200 ? undefined : 'nack_visibility_timeout must be between 0 and 43200 seconds'))
        .advanced()
        .describe('Custom SQS Nack Visibility timeout in seconds. Default is 0'),
    })
    .advanced()
    .describe('Consume SQS messages in order to trigger key downloads.'),
  auto_replay_nacks: f.bool().default(true).describe('Whether a rejected batch is delivered again (true) or dropped (false).'),
});

export type S3InputConfig = Infer<typeof s3InputSpec>;

/** How many objects after the one being read are requested ahead. */
const PREFETCH = 4;

function durationProblem(d: string): string | undefined {
  if (d === '') return undefined;
  try {
    parseDuration(d);
    return undefined;
  } catch (err) {
    return `delay_period: ${errorMessage(err)}`;
  }
}

/** An object being read, and what is still owed on it before it is done. */
interface PendingObject {
  readonly target: Target;
  readonly meta: Record<string, string | number>;
  /** Transactions handed out and not yet acked. */
  outstanding: number;
  /** Read to its end. */
  read: boolean;
  /** A transaction of it was nacked and dropped (auto_replay_nacks off): never delete it. */
  failed: boolean;
}

export class S3Input implements Input {
  private readonly log: Logger;
  private readonly component: string;
  private readonly opts: ClientOptions;
  private readonly scanner: Scanner;
  private client: S3Client | undefined;
  private sdk: typeof import('@aws-sdk/client-s3') | undefined;
  /** The notifications of `sqs.url`, when set (else the bucket is walked). */
  private readonly notices: S3Notices | undefined;
  /** Objects listed (or named by notifications) and not yet read, and where the listing goes on (undefined: nothing more). */
  private targets: Target[] = [];
  /** GetObject requests sent ahead for the next targets (their bodies wait unread), so a round trip is not paid per object. */
  private readonly fetching = new Map<Target, Promise<GetObjectCommandOutput>>();
  private continuation: string | undefined;
  private listed = false;
  private current: { object: PendingObject; batches: AsyncGenerator<Batch>; body: Readable } | undefined;
  private readonly deletions = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly conf: S3InputConfig,
    ctx: ComponentContext,
  ) {
    this.log = ctx.logger;
    this.component = `${ctx.type} input`;
    this.opts = clientOptions(conf, this.component);
    if (conf.sqs.url === '' && conf.bucket === '') {
      throw new SvcError(ErrorCode.ConfigLint, `${this.component}: bucket must name the bucket to consume from (or sqs.url the queue of its notifications)`);
    }
    if (conf.sqs.url !== '') {
      // A long poll must be allowed to last its wait, plus the usual answer time.
      const sqsOpts = clientOptions(conf, this.component, 30_000 + conf.sqs.wait_time_seconds * 1000);
      if (conf.sqs.endpoint !== '') sqsOpts.endpoint = conf.sqs.endpoint;
      this.notices = new S3Notices(conf.sqs, sqsOpts, conf.bucket, this.log, this.component);
    }
    this.scanner = parseScanner(conf.scanner);
  }

  async connect(): Promise<void> {
    if (this.closed || this.client) return;
    const sdk = (this.sdk ??= await import('@aws-sdk/client-s3'));
    const client = new sdk.S3Client({ ...this.opts, forcePathStyle: this.conf.force_path_style_urls });
    this.client = client;
    try {
      if (this.notices) await this.notices.connect();
      else if (!this.listed) await this.list();
    } catch (err) {
      this.client = undefined;
      client.destroy();
      throw err;
    }
    this.log.info(
      this.notices ? `Downloading S3 objects named by notifications from: ${this.conf.sqs.url}` : `Downloading S3 objects from bucket: ${this.conf.bucket}`,
    );
  }

  /** Lists the next page of keys. */
  private async list(): Promise<void> {
    const client = this.client!;
    const sdk = this.sdk!;
    try {
      const res = await client.send(
        new sdk.ListObjectsV2Command({
          Bucket: this.conf.bucket,
          ...(this.conf.prefix !== '' ? { Prefix: this.conf.prefix } : {}),
          ...(this.continuation ? { ContinuationToken: this.continuation } : {}),
        }),
      );
      for (const o of res.Contents ?? [])
        if (o.Key !== undefined) this.targets.push({ bucket: this.conf.bucket, key: o.Key, sentAt: 0, done: () => undefined });
      this.continuation = res.IsTruncated ? res.NextContinuationToken : undefined;
      this.listed = true;
    } catch (err) {
      throw requestError(`${this.component}: cannot list bucket ${this.conf.bucket}`, err);
    }
  }

  async read(): Promise<Transaction | EndOfInput> {
    for (;;) {
      if (this.closed) return END_OF_INPUT;
      if (!this.client) throw new NotConnectedError(`${this.component}: not connected`);
      const cur = this.current;
      if (cur) {
        const next = await cur.batches.next();
        if (!next.done) {
          if (next.value.length === 0) continue;
          return this.transaction(cur.object, next.value);
        }
        cur.object.read = true;
        this.current = undefined;
        this.settle(cur.object);
        continue;
      }
      const target = this.targets.shift();
      if (target === undefined) {
        if (this.notices) this.targets = await this.notices.receive();
        else if (this.continuation === undefined) return END_OF_INPUT;
        else await this.list();
        continue;
      }
      if (this.notices && !(await this.notices.delay(target))) {
        this.targets.unshift(target);
        continue;
      }
      await this.open(target);
    }
  }

  /** Starts reading an object; a key that vanished since the listing (or notification) is skipped. */
  private async open(target: Target): Promise<void> {
    const client = this.client!;
    const sdk = this.sdk!;
    const { bucket, key } = target;
    let res;
    try {
      const ahead = this.fetching.get(target);
      this.fetching.delete(target);
      const request = ahead ?? client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }));
      this.prefetch();
      res = await request;
    } catch (err) {
      if ((err as { name?: string }).name === 'NoSuchKey') {
        this.log.debug(`${this.component}: s3://${bucket}/${key} was deleted since it was named; skipping it`);
        target.done(false);
        return;
      }
      // Read again after the reconnect.
      this.targets.unshift(target);
      throw requestError(`${this.component}: cannot download s3://${bucket}/${key}`, err);
    }
    const meta: Record<string, string | number> = { s3_key: key, s3_bucket: bucket };
    if (res.LastModified) {
      meta.s3_last_modified = res.LastModified.toISOString().replace(/\.\d{3}Z$/, 'Z');
      meta.s3_last_modified_unix = Math.floor(res.LastModified.getTime() / 1000);
    }
    if (res.ContentType) meta.s3_content_type = res.ContentType;
    if (res.ContentEncoding) meta.s3_content_encoding = res.ContentEncoding;
    if (res.VersionId && res.VersionId !== 'null') meta.s3_version_id = res.VersionId;
    for (const [k, v] of Object.entries(res.Metadata ?? {})) meta[k] = v;
    const body = res.Body as Readable;
    const object: PendingObject = { target, meta, outstanding: 0, read: false, failed: false };
    this.current = { object, batches: this.scanner(body, key), body };
  }

  /** Requests the next targets' objects ahead (not while `sqs.delay_period` holds them back). */
  private prefetch(): void {
    const { client, sdk } = this;
    if (!client || !sdk || this.conf.sqs.delay_period !== '') return;
    for (const t of this.targets.slice(0, PREFETCH)) {
      if (this.fetching.has(t)) continue;
      const p = client.send(new sdk.GetObjectCommand({ Bucket: t.bucket, Key: t.key }));
      // Awaited (and its error handled) when the target is opened.
      p.catch(() => undefined);
      this.fetching.set(t, p);
    }
  }

  private transaction(object: PendingObject, batch: Batch): Transaction {
    for (const m of batch) for (const k in object.meta) m.setMeta(k, object.meta[k]!);
    object.outstanding++;
    return {
      batch,
      ack: trackAck((err) => {
        object.outstanding--;
        if (err) object.failed = true;
        this.settle(object);
      }),
    };
  }

  /**
   * Once an object was read to its end and every transaction of it settled: tells its notification,
   * and deletes it (`delete_objects`) when all of it was delivered.
   */
  private settle(object: PendingObject): void {
    if (!object.read || object.outstanding > 0) return;
    object.target.done(object.failed);
    if (object.failed || !this.conf.delete_objects) return;
    const client = this.client;
    const sdk = this.sdk;
    if (!client || !sdk) return;
    const { bucket, key } = object.target;
    const p = client.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: key })).then(
      () => undefined,
      (err: unknown) => this.log.error(`${this.component}: could not delete s3://${bucket}/${key} after delivering it: ${awsError(err)}`),
    );
    this.deletions.add(p);
    void p.finally(() => this.deletions.delete(p));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const cur = this.current;
    this.current = undefined;
    if (cur) {
      cur.body.destroy();
      void cur.batches.return(undefined).catch(() => undefined);
    }
    for (const p of this.fetching.values())
      void p.then(
        (r) => (r.Body as Readable | undefined)?.destroy(),
        () => undefined,
      );
    this.fetching.clear();
    await Promise.all([...this.deletions]);
    await this.notices?.close();
    this.client?.destroy();
    this.client = undefined;
  }
}

registerInput('aws_s3', {
  summary: 'Downloads the objects of an Amazon S3 bucket (optionally under a prefix), splitting each into messages with a scanner.',
  description: [
    'Walks the keys of `bucket` under `prefix` and reads each object through `scanner` (`to_the_end` by default: an',
    'object is one message); each batch the scanner yields is one transaction. The input ends once the walk is done.',
    '',
    'With `delete_objects` an object is deleted once it was read to its end and every message from it was delivered;',
    'a failed delivery is replayed (`auto_replay_nacks`), and an object with an undelivered part is never deleted.',
    '',
    'Metadata: `s3_key`, `s3_bucket`, `s3_last_modified_unix`, `s3_last_modified` (RFC 3339), `s3_content_type`,',
    '`s3_content_encoding`, `s3_version_id` and the user metadata of the object.',
    '',
    '### Streaming objects on upload with SQS',
    '',
    'With `sqs.url` the input reads S3 event notifications from that queue (sent by the bucket, or through an SNS',
    'topic: `sqs.envelope_path: Message`) and downloads the objects they name, found at the dot paths `sqs.key_path`',
    'and `sqs.bucket_path` (`bucket` when a notification names none); it runs until stopped. A notification is',
    'deleted from the queue only once every object it names was read and delivered in full; one whose delivery',
    'failed for good (`auto_replay_nacks: false`) is made visible again after `sqs.nack_visibility_timeout`. Give',
    'the queue a visibility timeout longer than an object takes to deliver, or its notification comes back meanwhile',
    '(at least once: its objects are read again). `sqs.delay_period` waits that long after a notification was sent.',
  ].join('\n'),
  config: s3InputSpec,
  examples: [
    `# Every line of the gzipped logs under logs/2026/, deleting each object once all of its lines were delivered.
input:
  aws_s3:
    bucket: app-logs
    prefix: logs/2026/
    delete_objects: true
    scanner:
      decompress:
        algorithm: gzip
        into:
          lines: {}`,
    `# Each object as it is uploaded: the bucket sends its ObjectCreated events to the queue.
input:
  aws_s3:
    sqs:
      url: https://sqs.eu-west-1.amazonaws.com/123456789012/uploads
      wait_time_seconds: 20
    region: eu-west-1`,
  ],
  factory: (conf, ctx) => new S3Input(conf, ctx),
});
