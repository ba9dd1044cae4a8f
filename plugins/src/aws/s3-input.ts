/**
 * The `aws_s3` input: walks a bucket (the keys under `prefix`, in S3's listing order) and reads
 * each object through a scanner (`to_the_end` by default: one message per object), then ends.
 *
 * Each batch the scanner yields is one transaction. An object is done once it was read to its
 * end and every transaction from it was acked; only then is it deleted (`delete_objects`). A
 * nacked transaction is replayed (`auto_replay_nacks`), so an object is never deleted with a part
 * undelivered; a process killed mid-walk deletes nothing it had not delivered in full, and a new
 * run reads the remaining objects again (at least once).
 */
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  END_OF_INPUT,
  ErrorCode,
  NotConnectedError,
  SvcError,
  f,
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
import { awsError, clientOptions, requestError, sessionFields, type ClientOptions } from './session.js';

export const s3InputSpec = f.object({
  bucket: f
    .string()
    .validate((b) => (b !== '' ? undefined : 'bucket must name the bucket to consume from'))
    .describe('The bucket to consume from.'),
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
      url: f
        .string()
        .default('')
        .validate((u) => (u === '' ? undefined : 'sqs.url (objects named by SQS notifications) is not implemented yet: leave it empty to walk the bucket'))
        .describe('Not implemented: objects named by S3 event notifications read from an SQS queue. Refused at load when set.'),
    })
    .advanced()
    .describe('Consume SQS messages in order to trigger key downloads: not implemented yet (refused at load).'),
  auto_replay_nacks: f.bool().default(true).describe('Whether a rejected batch is delivered again (true) or dropped (false).'),
});

export type S3InputConfig = Infer<typeof s3InputSpec>;

/** An object being read, and what is still owed on it before it is done. */
interface PendingObject {
  readonly key: string;
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
  /** Keys listed and not yet read, and where the listing goes on (undefined: nothing more). */
  private keys: string[] = [];
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
    if (conf.sqs.url !== '') {
      throw new SvcError(
        ErrorCode.ConfigLint,
        `${this.component}: sqs.url (objects named by SQS notifications) is not implemented yet: leave it empty to walk the bucket`,
      );
    }
    this.scanner = parseScanner(conf.scanner);
  }

  async connect(): Promise<void> {
    if (this.closed || this.client) return;
    const sdk = (this.sdk ??= await import('@aws-sdk/client-s3'));
    const client = new sdk.S3Client({ ...this.opts, forcePathStyle: this.conf.force_path_style_urls });
    this.client = client;
    try {
      if (!this.listed) await this.list();
    } catch (err) {
      this.client = undefined;
      client.destroy();
      throw err;
    }
    this.log.info(`Downloading S3 objects from bucket: ${this.conf.bucket}`);
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
      for (const o of res.Contents ?? []) if (o.Key !== undefined) this.keys.push(o.Key);
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
      const key = this.keys.shift();
      if (key === undefined) {
        if (this.continuation === undefined) return END_OF_INPUT;
        await this.list();
        continue;
      }
      await this.open(key);
    }
  }

  /** Starts reading an object; a key that vanished since the listing is skipped. */
  private async open(key: string): Promise<void> {
    const client = this.client!;
    const sdk = this.sdk!;
    let res;
    try {
      res = await client.send(new sdk.GetObjectCommand({ Bucket: this.conf.bucket, Key: key }));
    } catch (err) {
      if ((err as { name?: string }).name === 'NoSuchKey') {
        this.log.debug(`${this.component}: ${key} was deleted since the listing; skipping it`);
        return;
      }
      // Read again after the reconnect.
      this.keys.unshift(key);
      throw requestError(`${this.component}: cannot download s3://${this.conf.bucket}/${key}`, err);
    }
    const meta: Record<string, string | number> = { s3_key: key, s3_bucket: this.conf.bucket };
    if (res.LastModified) {
      meta.s3_last_modified = res.LastModified.toISOString().replace(/\.\d{3}Z$/, 'Z');
      meta.s3_last_modified_unix = Math.floor(res.LastModified.getTime() / 1000);
    }
    if (res.ContentType) meta.s3_content_type = res.ContentType;
    if (res.ContentEncoding) meta.s3_content_encoding = res.ContentEncoding;
    if (res.VersionId && res.VersionId !== 'null') meta.s3_version_id = res.VersionId;
    for (const [k, v] of Object.entries(res.Metadata ?? {})) meta[k] = v;
    const body = res.Body as Readable;
    const object: PendingObject = { key, meta, outstanding: 0, read: false, failed: false };
    this.current = { object, batches: this.scanner(body, key), body };
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

  /** Deletes an object once it was read to its end and all of it was delivered. */
  private settle(object: PendingObject): void {
    if (!object.read || object.outstanding > 0 || object.failed || !this.conf.delete_objects) return;
    const client = this.client;
    const sdk = this.sdk;
    if (!client || !sdk) return;
    const p = client.send(new sdk.DeleteObjectCommand({ Bucket: this.conf.bucket, Key: object.key })).then(
      () => undefined,
      (err: unknown) => this.log.error(`${this.component}: could not delete s3://${this.conf.bucket}/${object.key} after delivering it: ${awsError(err)}`),
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
    await Promise.all([...this.deletions]);
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
    'Objects named by S3 event notifications read from SQS (`sqs.url`) are not implemented yet: refused at load.',
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
  ],
  factory: (conf, ctx) => new S3Input(conf, ctx),
});
