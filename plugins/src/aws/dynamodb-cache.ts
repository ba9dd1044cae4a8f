/**
 * The `aws_dynamodb` cache (Redpanda Connect's): an item per key in a DynamoDB table, the key a
 * string in the `hash_key` column and the value binary in the `data_key` column. An add is a put
 * conditional on the key being absent, so every process using the table deduplicates against one
 * set of keys. With `ttl_key`, an item's expiry (the item's ttl, else `default_ttl`) is stored there
 * in seconds since the epoch, for the table's TTL to remove it. A failing request is retried
 * (`retries`) before the operation fails. One client for all pipeline threads (`mainThread`).
 */
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ErrorCode, SvcError, f, parseDuration, registerCache, type Cache, type Infer } from '@svc/engine';
import { Backoff, sleep } from '@svc/engine/kit';
import { awsError, clientOptions, sessionFields } from './session.js';

const spec = f.object({
  table: f.string().describe('The table to store items in.'),
  hash_key: f.string().describe('The key of the table column to store item keys within.'),
  data_key: f.string().describe('The key of the table column to store item values within.'),
  consistent_read: f.bool().default(false).advanced().describe('Whether to use strongly consistent reads on Get commands.'),
  default_ttl: f
    .duration()
    .optional()
    .advanced()
    .describe(
      'An optional default TTL to set for items, calculated from the moment the item is cached. A `ttl_key` must be specified in order to set item TTLs.',
    ),
  ttl_key: f.string().optional().advanced().describe('The column key to place the TTL value within.'),
  retries: f
    .object({
      initial_interval: f.duration().default('1s').describe('The initial period to wait between retry attempts.'),
      max_interval: f.duration().default('5s').describe('The maximum period to wait between retry attempts.'),
      max_elapsed_time: f.duration().default('30s').describe('The maximum period to wait before retry attempts are abandoned. If zero then no limit is used.'),
    })
    .advanced()
    .describe('Determine time intervals and cut offs for retry attempts.'),
  ...sessionFields,
});
type Conf = Infer<typeof spec>;
type Sdk = typeof import('@aws-sdk/client-dynamodb');

export class DynamodbCache implements Cache {
  private readonly ttlMs: number;
  private readonly retry: { initial: number; max: number; elapsed: number };

  private constructor(
    private readonly conf: Conf,
    private readonly sdk: Sdk,
    private readonly db: DynamoDBClient,
  ) {
    this.ttlMs = conf.default_ttl === undefined ? 0 : parseDuration(conf.default_ttl);
    this.retry = {
      initial: parseDuration(conf.retries.initial_interval),
      max: parseDuration(conf.retries.max_interval),
      elapsed: parseDuration(conf.retries.max_elapsed_time),
    };
  }

  /** The cache on an active table; throws (at start) when the table cannot be described or is not active. */
  static async open(conf: Conf): Promise<DynamodbCache> {
    const sdk = await import('@aws-sdk/client-dynamodb');
    const db = new sdk.DynamoDBClient(clientOptions(conf, 'aws_dynamodb cache'));
    let status: string | undefined;
    try {
      status = (await db.send(new sdk.DescribeTableCommand({ TableName: conf.table }))).Table?.TableStatus;
    } catch (err) {
      db.destroy();
      throw new SvcError(ErrorCode.NotConnected, `aws_dynamodb cache: cannot describe table ${conf.table}: ${awsError(err)}`);
    }
    if (status !== 'ACTIVE') {
      db.destroy();
      throw new SvcError(ErrorCode.NotConnected, `aws_dynamodb cache: table '${conf.table}' must be active (it is ${status ?? 'unknown'})`);
    }
    return new DynamodbCache(conf, sdk, db);
  }

  /** Runs `op`, retrying a failure (other than what `final` says is an answer) with back-off until max_elapsed_time (0: forever). */
  private async run<T>(what: string, op: () => Promise<T>, final: (err: unknown) => boolean = () => false): Promise<T> {
    const backoff = new Backoff(this.retry.initial, this.retry.max);
    const start = Date.now();
    for (;;) {
      try {
        return await op();
      } catch (err) {
        if (final(err)) throw err;
        const wait = backoff.next();
        if (this.retry.elapsed > 0 && Date.now() - start + wait > this.retry.elapsed) {
          throw new SvcError(ErrorCode.Processing, `aws_dynamodb cache: cannot ${what}: ${awsError(err)}`);
        }
        await sleep(wait);
      }
    }
  }

  private item(key: string, value: Buffer, ttlMs: number | undefined): Record<string, AttributeValue> {
    const item: Record<string, AttributeValue> = { [this.conf.hash_key]: { S: key }, [this.conf.data_key]: { B: value } };
    const t = ttlMs ?? this.ttlMs;
    if (t > 0 && this.conf.ttl_key !== undefined) item[this.conf.ttl_key] = { N: String(Math.floor((Date.now() + t) / 1000)) };
    return item;
  }

  async get(key: string): Promise<Buffer | undefined> {
    const res = await this.run('get an item', () =>
      this.db.send(
        new this.sdk.GetItemCommand({ TableName: this.conf.table, Key: { [this.conf.hash_key]: { S: key } }, ConsistentRead: this.conf.consistent_read }),
      ),
    );
    const v = res.Item?.[this.conf.data_key]?.B;
    return v === undefined ? undefined : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  }

  async set(key: string, value: Buffer, ttlMs?: number): Promise<void> {
    await this.run('put an item', () => this.db.send(new this.sdk.PutItemCommand({ TableName: this.conf.table, Item: this.item(key, value, ttlMs) })));
  }

  async add(key: string, value: Buffer, ttlMs?: number): Promise<boolean> {
    const exists = (err: unknown) => err instanceof this.sdk.ConditionalCheckFailedException;
    try {
      await this.run(
        'add an item',
        () =>
          this.db.send(
            new this.sdk.PutItemCommand({
              TableName: this.conf.table,
              Item: this.item(key, value, ttlMs),
              ConditionExpression: 'attribute_not_exists(#k)',
              ExpressionAttributeNames: { '#k': this.conf.hash_key },
            }),
          ),
        exists,
      );
      return true;
    } catch (err) {
      if (exists(err)) return false;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.run('delete an item', () =>
      this.db.send(new this.sdk.DeleteItemCommand({ TableName: this.conf.table, Key: { [this.conf.hash_key]: { S: key } } })),
    );
  }

  async close(): Promise<void> {
    this.db.destroy();
  }
}

registerCache('aws_dynamodb', {
  summary:
    'Stores key/value pairs as a single document in a DynamoDB table. The key is stored as a string value and used as the table hash key. The value is stored as a binary value using the `data_key` field name.',
  description: [
    'An add is a put conditional on the key being absent, so every process using the same table deduplicates against one set of keys.',
    'An optional TTL duration (`default_ttl`, or the ttl of the operation) and field (`ttl_key`) can be specified if the backing table has TTL enabled.',
    'Strong read consistency can be enabled using the `consistent_read` configuration field. A failing request is retried (`retries`) before the operation fails.',
    'One client serves every pipeline thread: on a worker thread each operation is handed to the main thread.',
  ].join('\n'),
  config: spec,
  mainThread: true,
  examples: [
    'cache_resources:\n  - label: seen\n    aws_dynamodb:\n      table: seen-ids\n      hash_key: id\n      data_key: data\n      region: eu-west-1\n      default_ttl: 24h\n      ttl_key: expires_at\n',
  ],
  factory: (conf) => DynamodbCache.open(conf),
});
