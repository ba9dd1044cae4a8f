/**
 * Where the `aws_kinesis` input keeps, per shard, the last sequence it delivered and which client
 * holds the shard: a DynamoDB table keyed by `StreamID` (hash) and `ShardID` (range), with
 * `SequenceNumber`, `ClientID` and `LeaseTimeout` (RFC 3339), the table Benthos' input uses, so
 * either may take over the other's shards.
 *
 * A client claims a shard with a conditional update (no holder, or the holder it saw), renews its
 * lease with every checkpoint (a put conditional on still holding it: a false answer means the shard
 * was taken) and gives it up on close by writing the last sequence without a holder. A sequence is
 * only ever written after everything up to it was acked, so a restart replays at most what was in
 * flight or acked since the last checkpoint.
 */
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { f } from '@svc/engine';
import type { ClientOptions } from './session.js';

/** The `dynamodb` fields of the input, without its session fields. */
export const checkpointTableFields = {
  table: f.string().default('').describe('The name of the table to access.'),
  create: f.bool().default(false).describe('Whether, if the table does not exist, it should be created.'),
  billing_mode: f
    .enum(['PROVISIONED', 'PAY_PER_REQUEST'] as const)
    .default('PAY_PER_REQUEST')
    .advanced()
    .describe('When creating the table determines the billing mode.'),
  read_capacity_units: f
    .int()
    .default(0)
    .advanced()
    .describe('Set the provisioned read capacity when creating the table with a `billing_mode` of `PROVISIONED`.'),
  write_capacity_units: f
    .int()
    .default(0)
    .advanced()
    .describe('Set the provisioned write capacity when creating the table with a `billing_mode` of `PROVISIONED`.'),
};

export interface CheckpointTableConfig {
  table: string;
  create: boolean;
  billing_mode: 'PROVISIONED' | 'PAY_PER_REQUEST';
  read_capacity_units: number;
  write_capacity_units: number;
}

/** A shard's row as the table holds it. */
export interface ShardClaim {
  shardId: string;
  clientId: string | undefined;
  /** When the holder's lease ends (ms since the epoch); 0 when none. */
  leaseTimeout: number;
  sequence: string;
}

type Sdk = typeof import('@aws-sdk/client-dynamodb');

const S = (v: string): AttributeValue => ({ S: v });

export class KinesisCheckpointer {
  private constructor(
    private readonly sdk: Sdk,
    private readonly db: DynamoDBClient,
    private readonly conf: CheckpointTableConfig,
    readonly clientId: string,
    private readonly leaseMs: number,
  ) {}

  /** A checkpointer on the table, created when missing and `create` is set; throws when it cannot be had. */
  static async open(opts: ClientOptions, conf: CheckpointTableConfig, clientId: string, leaseMs: number): Promise<KinesisCheckpointer> {
    const sdk = await import('@aws-sdk/client-dynamodb');
    const db = new sdk.DynamoDBClient(opts);
    try {
      await ensureTable(sdk, db, conf);
    } catch (err) {
      db.destroy();
      throw err;
    }
    return new KinesisCheckpointer(sdk, db, conf, clientId, leaseMs);
  }

  private key(streamId: string, shardId: string): Record<string, AttributeValue> {
    return { StreamID: S(streamId), ShardID: S(shardId) };
  }

  /** Every row of a stream (one Scan page per request, all pages). */
  async claims(streamId: string): Promise<ShardClaim[]> {
    const out: ShardClaim[] = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      const res = await this.db.send(
        new this.sdk.ScanCommand({
          TableName: this.conf.table,
          FilterExpression: 'StreamID = :stream_id',
          ExpressionAttributeValues: { ':stream_id': S(streamId) },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of res.Items ?? []) {
        const lease = item.LeaseTimeout?.S;
        out.push({
          shardId: item.ShardID?.S ?? '',
          clientId: item.ClientID?.S,
          leaseTimeout: lease ? Date.parse(lease) || 0 : 0,
          sequence: item.SequenceNumber?.S ?? '',
        });
      }
      start = res.LastEvaluatedKey;
    } while (start);
    return out;
  }

  /**
   * Takes the shard for this client if it has no holder (`from` undefined) or is still held by
   * `from` (whose lease ran out); the sequence to start after ('' for none), or undefined when
   * another client got there first.
   */
  async claim(streamId: string, shardId: string, from: string | undefined): Promise<string | undefined> {
    const values: Record<string, AttributeValue> = {
      ':new_client_id': S(this.clientId),
      ':new_lease_timeout': S(new Date(Date.now() + this.leaseMs).toISOString()),
    };
    if (from !== undefined) values[':old_client_id'] = S(from);
    try {
      const res = await this.db.send(
        new this.sdk.UpdateItemCommand({
          TableName: this.conf.table,
          Key: this.key(streamId, shardId),
          ConditionExpression: from !== undefined ? 'ClientID = :old_client_id' : 'attribute_not_exists(ClientID)',
          UpdateExpression: 'SET ClientID = :new_client_id, LeaseTimeout = :new_lease_timeout',
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_OLD',
        }),
      );
      return res.Attributes?.SequenceNumber?.S ?? '';
    } catch (err) {
      if (err instanceof this.sdk.ConditionalCheckFailedException) return undefined;
      throw err;
    }
  }

  /**
   * Stores `sequence` ('' keeps none) for a shard this client holds, renewing its lease, or (with
   * `release`) without a holder, giving it up. False when another client holds the shard now.
   */
  async checkpoint(streamId: string, shardId: string, sequence: string, release: boolean): Promise<boolean> {
    const item = this.key(streamId, shardId);
    if (sequence !== '') item.SequenceNumber = S(sequence);
    if (!release) {
      item.ClientID = S(this.clientId);
      item.LeaseTimeout = S(new Date(Date.now() + this.leaseMs).toISOString());
    }
    try {
      await this.db.send(
        new this.sdk.PutItemCommand({
          TableName: this.conf.table,
          Item: item,
          ConditionExpression: 'ClientID = :client_id',
          ExpressionAttributeValues: { ':client_id': S(this.clientId) },
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof this.sdk.ConditionalCheckFailedException) return false;
      throw err;
    }
  }

  close(): void {
    this.db.destroy();
  }
}

async function ensureTable(sdk: Sdk, db: DynamoDBClient, conf: CheckpointTableConfig): Promise<void> {
  try {
    await db.send(new sdk.DescribeTableCommand({ TableName: conf.table }));
    return;
  } catch (err) {
    if (!(err instanceof sdk.ResourceNotFoundException)) throw err;
  }
  if (!conf.create) throw new Error(`target table ${conf.table} does not exist (create it, or set dynamodb.create)`);
  await db.send(
    new sdk.CreateTableCommand({
      TableName: conf.table,
      AttributeDefinitions: [
        { AttributeName: 'StreamID', AttributeType: 'S' },
        { AttributeName: 'ShardID', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'StreamID', KeyType: 'HASH' },
        { AttributeName: 'ShardID', KeyType: 'RANGE' },
      ],
      BillingMode: conf.billing_mode,
      ...(conf.billing_mode === 'PROVISIONED'
        ? { ProvisionedThroughput: { ReadCapacityUnits: conf.read_capacity_units, WriteCapacityUnits: conf.write_capacity_units } }
        : {}),
    }),
  );
}
