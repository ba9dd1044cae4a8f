/**
 * The `aws_s3` output: uploads each message as an object to an S3 bucket at the interpolated
 * `path`; a write resolves only once S3 stored every object of the batch. To put a whole batch
 * into one object, batch at the output and join the batch with an `archive` processor in the
 * policy's `processors` (as Benthos documents): the batch then reaches the output as one message.
 *
 * An upload that fails, or outlasts `timeout`, fails the write with a BatchError naming its
 * message; the objects stored are not uploaded again (the runtime writes only the failed ones).
 */
import type { PutObjectCommandInput, S3Client } from '@aws-sdk/client-s3';
import {
  batchPolicySpec,
  compileInterpolation,
  containedPath,
  errorMessage,
  f,
  maxInFlightField,
  parseDuration,
  registerOutput,
  type Batch,
  type ComponentContext,
  type Infer,
  type Interpolation,
} from '@svc/engine';
import { metaText } from './attributes.js';
import { AwsOutput, timeoutField } from './output.js';
import { sessionFields } from './session.js';

const STORAGE_CLASSES = ['STANDARD', 'REDUCED_REDUNDANCY', 'GLACIER', 'STANDARD_IA', 'ONEZONE_IA', 'INTELLIGENT_TIERING', 'DEEP_ARCHIVE'] as const;
const CANNED_ACLS = [
  '',
  'private',
  'public-read',
  'public-read-write',
  'authenticated-read',
  'aws-exec-read',
  'bucket-owner-read',
  'bucket-owner-full-control',
] as const;

const optionalText = (description: string) => f.string().interpolated().default('').advanced().describe(description);

export const s3OutputSpec = f.object({
  bucket: f
    .string()
    .validate((b) => (b !== '' ? undefined : 'bucket must name the bucket to upload to'))
    .describe('The bucket to upload messages to.'),
  path: f
    .string()
    .interpolated()
    .default('${!counter()}-${!timestamp_unix_nano()}.txt')
    .describe(
      'The path of each message to upload. svc refuses (that message fails alone) a path whose interpolated part leaves the folder of ' +
        'the literal text before it (`../x`, `a/../../y`), or makes a `..` segment or a leading `/`.',
    ),
  tags: f.map(f.string().interpolated()).default({}).advanced().describe('Key/value pairs to store with the object as tags; values are interpolated.'),
  content_type: f.string().interpolated().default('application/octet-stream').describe('The content type to set for each object.'),
  content_encoding: optionalText('An optional content encoding to set for each object.'),
  cache_control: optionalText('The cache control to set for each object.'),
  content_disposition: optionalText('The content disposition to set for each object.'),
  content_language: optionalText('The content language to set for each object.'),
  website_redirect_location: optionalText('The website redirect location to set for each object.'),
  metadata: f
    .object({
      exclude_prefixes: f.array(f.string()).default([]).describe('Metadata keys starting with one of these are not attached.'),
    })
    .describe('Which metadata values are attached to objects as headers (user metadata): all except keys with these prefixes.'),
  storage_class: f
    .string()
    .interpolated()
    .default('STANDARD')
    .validate((s) =>
      s.includes('${!') || (STORAGE_CLASSES as readonly string[]).includes(s) ? undefined : `storage_class must be one of ${STORAGE_CLASSES.join(', ')}`,
    )
    .advanced()
    .describe(`The storage class to set for each object: ${STORAGE_CLASSES.join(', ')}.`),
  kms_key_id: f.string().default('').advanced().describe('An optional server side encryption key.'),
  checksum_algorithm: f
    .enum(['', 'CRC32', 'CRC32C', 'SHA1', 'SHA256'])
    .default('')
    .advanced()
    .describe('The algorithm used to create the checksum for each object.'),
  server_side_encryption: f.string().default('').advanced().describe('An optional server side encryption algorithm.'),
  force_path_style_urls: f
    .bool()
    .default(false)
    .advanced()
    .describe('Forces the client API to use path style URLs, which helps when connecting to custom endpoints.'),
  max_in_flight: maxInFlightField(64),
  timeout: timeoutField,
  object_canned_acl: f
    .enum(CANNED_ACLS)
    .default('')
    .advanced()
    .describe('The object canned ACL value. Leave empty to omit the ACL from upload requests, which is required for buckets that have ACLs disabled.'),
  batching: batchPolicySpec,
  ...sessionFields,
});

export type S3OutputConfig = Infer<typeof s3OutputSpec>;

interface Templates {
  path: Interpolation;
  contentType: Interpolation;
  contentEncoding: Interpolation;
  cacheControl: Interpolation;
  contentDisposition: Interpolation;
  contentLanguage: Interpolation;
  websiteRedirectLocation: Interpolation;
  storageClass: Interpolation;
  tags: [string, Interpolation][];
}

export class S3Output extends AwsOutput<typeof import('@aws-sdk/client-s3'), S3Client> {
  private readonly t: Templates;

  constructor(
    private readonly conf: S3OutputConfig,
    ctx: ComponentContext,
  ) {
    super(conf, ctx, {
      sdk: () => import('@aws-sdk/client-s3'),
      client: (sdk, opts) => new sdk.S3Client({ ...opts, forcePathStyle: conf.force_path_style_urls }),
      connected: `Uploading message parts as objects to Amazon S3 bucket: ${conf.bucket}`,
      timeoutMs: parseDuration(conf.timeout),
    });
    this.t = {
      path: compileInterpolation(conf.path),
      contentType: compileInterpolation(conf.content_type),
      contentEncoding: compileInterpolation(conf.content_encoding),
      cacheControl: compileInterpolation(conf.cache_control),
      contentDisposition: compileInterpolation(conf.content_disposition),
      contentLanguage: compileInterpolation(conf.content_language),
      websiteRedirectLocation: compileInterpolation(conf.website_redirect_location),
      storageClass: compileInterpolation(conf.storage_class),
      tags: Object.entries(conf.tags).map(([k, v]) => [k, compileInterpolation(v)]),
    };
  }

  async write(batch: Batch): Promise<void> {
    const { client, sdk } = this.connection();
    await this.sendEach(
      batch,
      (i) => this.objectInput(batch, i),
      (input, options) => client.send(new sdk.PutObjectCommand(input), options),
      (input) => `cannot upload s3://${this.conf.bucket}/${input.Key}`,
    );
  }

  private objectInput(batch: Batch, i: number): PutObjectCommandInput {
    const msg = batch[i]!;
    const ctx = { batch, index: i };
    const t = this.t;
    const text = (what: string, tpl: Interpolation, value = () => tpl.value(msg, ctx)) => {
      try {
        return value();
      } catch (err) {
        throw new Error(`${what} interpolation: ${errorMessage(err)}`);
      }
    };
    const input: PutObjectCommandInput = {
      Bucket: this.conf.bucket,
      // A path whose interpolated part climbs out of its literal folder is refused, as the file output does.
      Key: text('key', t.path, () => containedPath(t.path, msg, ctx, 'path')),
      Body: msg.content,
      ContentType: text('content type', t.contentType),
    };
    const storage = text('storage class', t.storageClass);
    if (!(STORAGE_CLASSES as readonly string[]).includes(storage)) throw new Error(`storage class "${storage}" is not one of ${STORAGE_CLASSES.join(', ')}`);
    input.StorageClass = storage as PutObjectCommandInput['StorageClass'];
    const set = (
      name: 'ContentEncoding' | 'CacheControl' | 'ContentDisposition' | 'ContentLanguage' | 'WebsiteRedirectLocation',
      what: string,
      tpl: Interpolation,
    ) => {
      const v = text(what, tpl);
      if (v !== '') input[name] = v;
    };
    set('ContentEncoding', 'content encoding', t.contentEncoding);
    set('CacheControl', 'cache control', t.cacheControl);
    set('ContentDisposition', 'content disposition', t.contentDisposition);
    set('ContentLanguage', 'content language', t.contentLanguage);
    set('WebsiteRedirectLocation', 'website redirect location', t.websiteRedirectLocation);
    if (msg.hasMeta()) {
      const meta: Record<string, string> = {};
      outer: for (const [k, v] of msg.metaEntries()) {
        for (const p of this.conf.metadata.exclude_prefixes) if (k.startsWith(p)) continue outer;
        meta[k] = metaText(v);
      }
      input.Metadata = meta;
    }
    if (t.tags.length > 0) {
      input.Tagging = t.tags.map(([k, tpl]) => `${encodeURIComponent(k)}=${encodeURIComponent(text(`tag ${k}`, tpl))}`).join('&');
    }
    if (this.conf.kms_key_id !== '') {
      input.ServerSideEncryption = 'aws:kms';
      input.SSEKMSKeyId = this.conf.kms_key_id;
    }
    if (this.conf.checksum_algorithm !== '') input.ChecksumAlgorithm = this.conf.checksum_algorithm;
    if (this.conf.object_canned_acl !== '') input.ACL = this.conf.object_canned_acl;
    if (this.conf.server_side_encryption !== '') input.ServerSideEncryption = this.conf.server_side_encryption as PutObjectCommandInput['ServerSideEncryption'];
    return input;
  }
}

registerOutput('aws_s3', {
  summary: 'Uploads messages as objects to an Amazon S3 bucket, at the interpolated `path`, each acknowledged once S3 stored it.',
  description: [
    'Each message of a batch becomes an object at `path` (interpolated per message, e.g. `${! meta("kafka_key") }.json`),',
    'with `content_type`, the other headers and `tags` interpolated per message too, and the metadata (except keys',
    'with one of `metadata.exclude_prefixes`) as user metadata.',
    '',
    "To upload a batch as one object, batch at the output and join the batch in the policy's `processors` with an",
    '`archive` processor (`lines`, `json_array`, `tar`, ...), as the example does.',
    '',
    'A write succeeds only once S3 stored every object of it; an upload that fails or outlasts `timeout` is nacked',
    'back to the input (only the failed ones: stored objects are not uploaded twice).',
  ].join('\n'),
  config: s3OutputSpec,
  examples: [
    `# Up to 1000 messages (or what came in 10 s) as one JSON array object per batch.
output:
  aws_s3:
    bucket: events-archive
    path: events/\${! timestamp_unix_nano() }-\${! counter() }.json
    content_type: application/json
    batching:
      count: 1000
      period: 10s
      processors:
        - archive:
            format: json_array`,
  ],
  factory: (conf, ctx) => new S3Output(conf, ctx),
});
