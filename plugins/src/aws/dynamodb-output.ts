/**
 * The `aws_dynamodb` output: puts an item per message into a DynamoDB table with BatchWriteItem
 * (25 items to a request, DynamoDB's limit), a write resolving only once DynamoDB stored every item.
 *
 * Items DynamoDB left unprocessed (throttling) are written again with back-off (`max_retries`,
 * `backoff`); a request DynamoDB refused whole is retried item by item with PutItem, as Benthos does,
 * so one bad item fails alone. What still failed fails the write with a BatchError naming those
 * messages: the runtime nacks them back to their input. A put replaces the item with the same key,
 * so writing a message again leaves one item.
 */
import type { AttributeValue, DynamoDBClient, WriteRequest } from '@aws-sdk/client-dynamodb';
import {
  JsonNumber,
  NotConnectedError,
  batchPolicySpec,
  compileInterpolation,
  errorMessage,
  f,
  getPath,
  parseDuration,
  registerOutput,
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
import { requestError, sessionFields } from './session.js';

export const dynamodbOutputSpec = f.object({
  table: f.string().describe('The table to store messages in.'),
  string_columns: f.map(f.string().interpolated()).default({}).describe('A map of column keys to string values to store.'),
  json_map_columns: f
    .map(f.string())
    .default({})
    .describe(
      'A map of column keys to field paths pointing to value data within messages. Both an empty path and `.` are the root of the document; a column named `""` writes the fields of the value at the root of the item.',
    ),
  ttl: f.duration().default('').advanced().describe('An optional TTL to set for items, calculated from the moment the message is sent.'),
  ttl_key: f.string().default('').advanced().describe('The column key to place the TTL value within.'),
  max_in_flight: maxInFlightField(64),
  batching: batchPolicySpec,
  ...sessionFields,
  ...retryFields('1s', '5s', '30s'),
  // Benthos' default for this output: three retries.
  max_retries: f
    .int()
    .default(3)
    .validate((n) => (n >= 0 ? undefined : 'max_retries must be 0 (no limit) or more'))
    .advanced()
    .describe('The maximum number of retries before giving up on the request. If set to zero there is no discrete limit.'),
});

export type DynamodbOutputConfig = Infer<typeof dynamodbOutputSpec>;

/** BatchWriteItem takes at most 25 items. */
const MAX_ITEMS = 25;

type Sdk = typeof import('@aws-sdk/client-dynamodb');

/**
 * A document value as a DynamoDB attribute, as Benthos converts it: objects as M, arrays as L, a
 * number read from JSON as S with its text (Go's json.Number), a number a mapping computed as N,
 * booleans as BOOL, null (and a path not found) as NULL.
 */
export function toAttribute(v: unknown): AttributeValue {
  if (v === null || v === undefined) return { NULL: true };
  if (typeof v === 'string') return { S: v };
  if (typeof v === 'boolean') return { BOOL: v };
  if (typeof v === 'number') return { S: String(v) };
  if (typeof v === 'bigint') return { N: v.toString() };
  if (v instanceof JsonNumber) return v.computed ? { N: v.text } : { S: v.text };
  if (Array.isArray(v)) return { L: v.map(toAttribute) };
  if (Buffer.isBuffer(v)) return { S: v.toString('utf8') };
  if (typeof v === 'object') {
    const m: Record<string, AttributeValue> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) m[k] = toAttribute(x);
    return { M: m };
  }
  return { S: String(v) };
}

export class DynamodbOutput extends AwsOutput<Sdk, DynamoDBClient> {
  private readonly columns: [string, Interpolation][];
  private readonly maps: [string, string][];
  private readonly ttlSeconds: number;

  constructor(
    private readonly conf: DynamodbOutputConfig,
    ctx: ComponentContext,
  ) {
    super(conf, ctx, {
      sdk: () => import('@aws-sdk/client-dynamodb'),
      client: (sdk, opts) => new sdk.DynamoDBClient(opts),
      connected: `Sending messages to DynamoDB table: ${conf.table}`,
    });
    this.columns = Object.entries(conf.string_columns).map(([k, v]) => [k, compileInterpolation(v)]);
    this.maps = Object.entries(conf.json_map_columns).map(([k, v]) => [k, v === '.' ? '' : v]);
    if (this.columns.length === 0 && this.maps.length === 0) throw new Error(`${this.component}: you must provide at least one column`);
    this.ttlSeconds = conf.ttl === '' || conf.ttl_key === '' ? 0 : parseDuration(conf.ttl) / 1000;
  }

  override async connect(): Promise<void> {
    await super.connect();
    const { client, sdk } = this.connection();
    let status: string | undefined;
    try {
      status = (await client.send(new sdk.DescribeTableCommand({ TableName: this.conf.table }))).Table?.TableStatus;
    } catch (err) {
      throw requestError(`${this.component}: cannot describe table ${this.conf.table}`, err);
    }
    if (status !== 'ACTIVE')
      throw new NotConnectedError(`${this.component}: dynamodb table '${this.conf.table}' must be active (it is ${status ?? 'unknown'})`);
  }

  /** The item of message i. */
  private item(batch: Batch, i: number): Record<string, AttributeValue> {
    const msg = batch[i]!;
    const item: Record<string, AttributeValue> = {};
    if (this.ttlSeconds > 0) item[this.conf.ttl_key] = { N: String(Math.floor(Date.now() / 1000 + this.ttlSeconds)) };
    for (const [k, t] of this.columns) item[k] = { S: t.value(msg, { batch, index: i }) };
    if (this.maps.length > 0) {
      const root = msg.json();
      for (const [k, path] of this.maps) {
        const attr = toAttribute(path === '' ? root : getPath(root, path));
        if (k === '' && attr.M) Object.assign(item, attr.M);
        else item[k] = attr;
      }
    }
    return item;
  }

  async write(batch: Batch): Promise<void> {
    const { client, sdk } = this.connection();
    const failures = new Map<number, Error>();
    const puts: { i: number; req: WriteRequest }[] = [];
    for (let i = 0; i < batch.length; i++) {
      try {
        puts.push({ i, req: { PutRequest: { Item: this.item(batch, i) } } });
      } catch (err) {
        failures.set(i, new Error(`${this.component}: ${errorMessage(err)}`));
      }
    }
    const sends: Promise<void>[] = [];
    for (let i = 0; i < puts.length; i += MAX_ITEMS) sends.push(this.send(client, sdk, puts.slice(i, i + MAX_ITEMS), failures));
    await Promise.all(sends);
    throwFailures(batch.length, failures);
  }

  /** Writes one request's items, again for those DynamoDB left unprocessed; records what never went. */
  private async send(client: DynamoDBClient, sdk: Sdk, puts: { i: number; req: WriteRequest }[], failures: Map<number, Error>): Promise<void> {
    const table = this.conf.table;
    const backoff = new RetryBackoff(this.conf);
    let pending = puts;
    for (;;) {
      let why: Error;
      try {
        const res = await client.send(new sdk.BatchWriteItemCommand({ RequestItems: { [table]: pending.map((p) => p.req) } }));
        const left = res.UnprocessedItems?.[table] ?? [];
        if (left.length === 0) return;
        // Unprocessed items come back as new objects: matched to their messages by content (two
        // identical items are the same put, and both stay pending).
        const unprocessed = new Set(left.map((r) => JSON.stringify(r.PutRequest?.Item)));
        pending = pending.filter((p) => unprocessed.has(JSON.stringify(p.req.PutRequest?.Item)));
        why = new Error(`${this.component}: DynamoDB left ${pending.length} item(s) unprocessed`);
      } catch (err) {
        why = requestError(`${this.component}: cannot write to table ${table}`, err);
        if (this.closed || why instanceof NotConnectedError) {
          for (const p of pending) failures.set(p.i, why);
          return;
        }
        this.log.warn(why.message);
        await this.putEach(client, sdk, pending, failures);
        return;
      }
      const wait = this.closed ? undefined : backoff.next();
      if (wait === undefined) {
        for (const p of pending) failures.set(p.i, why);
        return;
      }
      await sleep(wait);
    }
  }

  /** After a refused BatchWriteItem: each item with PutItem, so only what DynamoDB refuses fails. */
  private async putEach(client: DynamoDBClient, sdk: Sdk, puts: { i: number; req: WriteRequest }[], failures: Map<number, Error>): Promise<void> {
    await Promise.all(
      puts.map(async (p) => {
        try {
          await client.send(new sdk.PutItemCommand({ TableName: this.conf.table, Item: p.req.PutRequest!.Item }));
        } catch (err) {
          failures.set(p.i, requestError(`${this.component}: cannot put item ${p.i} to table ${this.conf.table}`, err));
        }
      }),
    );
  }
}

registerOutput('aws_dynamodb', {
  summary: 'Inserts items into a DynamoDB table.',
  description: [
    'Each message becomes an item put with BatchWriteItem (25 to a request). `string_columns` maps column names to',
    'interpolated strings; `json_map_columns` maps column names to field paths of the document (`""` and `.` are the',
    'root), converted as Benthos converts them: objects as maps, arrays as lists, numbers read from JSON as strings',
    '(with their text), numbers a mapping computed as numbers, booleans, and null (or a path not found) as NULL. A',
    'column named `""` writes the fields of its value at the root of the item. With `ttl` and `ttl_key`, the item',
    'gets the expiry time (seconds since the epoch) in that column.',
    '',
    'Items DynamoDB left unprocessed are written again with back-off (`max_retries`, `backoff`); a request refused',
    'whole is retried item by item, so a bad item fails alone. Messages that were not stored are nacked back to the',
    'input, never lost.',
  ].join('\n'),
  config: dynamodbOutputSpec,
  examples: [
    `output:
  aws_dynamodb:
    table: orders
    region: eu-west-1
    string_columns:
      id: \${! json("id") }
      topic: \${! meta("kafka_topic") }
    json_map_columns:
      customer: customer
    batching:
      count: 25
      period: 100ms`,
  ],
  factory: (conf, ctx) => new DynamodbOutput(conf, ctx),
});
