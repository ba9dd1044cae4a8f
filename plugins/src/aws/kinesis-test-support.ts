/**
 * Test helpers for `aws_kinesis` and `aws_dynamodb` (the `*.test.ts` files only): streams and
 * tables on moto with unique names, deleted when the test file ends; filling a stream, reading a
 * whole stream or table back with the raw AWS SDK clients.
 */
import { after } from 'node:test';
import {
  CreateStreamCommand,
  DeleteStreamCommand,
  DescribeStreamSummaryCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  KinesisClient,
  ListShardsCommand,
  PutRecordsCommand,
  type _Record as KinesisRecord,
} from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { waitFor } from '@svc/engine/testing';
import { session, unique } from './test-support.js';

const options = { region: session.region, endpoint: session.endpoint, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };
export const kinesis = new KinesisClient({ ...options, requestHandler: new NodeHttpHandler() });
export const dynamo = new DynamoDBClient(options);

const streams = new Set<string>();
const tables = new Set<string>();

after(async () => {
  for (const s of streams) await kinesis.send(new DeleteStreamCommand({ StreamName: s })).catch(() => undefined);
  for (const t of tables) await dynamo.send(new DeleteTableCommand({ TableName: t })).catch(() => undefined);
  kinesis.destroy();
  dynamo.destroy();
});

/** A new active stream of `shards` shards; its name. Deleted at the end. */
export async function tempStream(prefix: string, shards = 1): Promise<string> {
  const name = unique(prefix);
  await kinesis.send(new CreateStreamCommand({ StreamName: name, ShardCount: shards }));
  streams.add(name);
  await waitFor(`stream ${name} active`, async () => {
    const res = await kinesis.send(new DescribeStreamSummaryCommand({ StreamName: name }));
    return res.StreamDescriptionSummary?.StreamStatus === 'ACTIVE' ? true : undefined;
  });
  return name;
}

/** A table name no test uses; the table (created by the input) is deleted at the end. */
export function tempTableName(prefix: string): string {
  const name = unique(prefix);
  tables.add(name);
  return name;
}

/** Puts `count` records `{"id":i}` (partition key `k<i>`), 500 to a request. */
export async function fillStream(stream: string, count: number, body: (i: number) => string = (i) => `{"id":${i}}`): Promise<void> {
  for (let i = 0; i < count; i += 500) {
    const Records = [];
    for (let j = i; j < Math.min(count, i + 500); j++) Records.push({ Data: Buffer.from(body(j)), PartitionKey: `k${j}` });
    await kinesis.send(new PutRecordsCommand({ StreamName: stream, Records }));
  }
}

/** Every record of every shard of a stream, from the start, with its shard. */
export async function readStream(stream: string): Promise<(KinesisRecord & { shard: string })[]> {
  const out: (KinesisRecord & { shard: string })[] = [];
  const shards = (await kinesis.send(new ListShardsCommand({ StreamName: stream }))).Shards ?? [];
  for (const sh of shards) {
    let it = (await kinesis.send(new GetShardIteratorCommand({ StreamName: stream, ShardId: sh.ShardId!, ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator;
    while (it) {
      const res = await kinesis.send(new GetRecordsCommand({ ShardIterator: it }));
      const got = res.Records ?? [];
      for (const r of got) out.push({ ...r, shard: sh.ShardId! });
      if (got.length === 0) break;
      it = res.NextShardIterator;
    }
  }
  return out;
}

/** The ids (`{"id":n}`) of records, in order. */
export function ids(records: KinesisRecord[]): number[] {
  return records.map((r) => (JSON.parse(Buffer.from(r.Data!).toString()) as { id: number }).id);
}

/** The rows of a checkpoint table: shard, holder and sequence. */
export async function checkpoints(table: string): Promise<{ shard: string; client?: string; sequence?: string }[]> {
  const res = await dynamo.send(new ScanCommand({ TableName: table }));
  return (res.Items ?? []).map((i) => ({ shard: i.ShardID!.S!, client: i.ClientID?.S, sequence: i.SequenceNumber?.S }));
}

/** A new table with the string hash key `key`; its name. Deleted at the end. */
export async function tempTable(prefix: string, key = 'id'): Promise<string> {
  const name = tempTableName(prefix);
  await dynamo.send(
    new CreateTableCommand({
      TableName: name,
      AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  return name;
}

/** Every item of a table. */
export async function itemsOf(table: string): Promise<Record<string, AttributeValue>[]> {
  const out: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const res = await dynamo.send(new ScanCommand({ TableName: table, ...(start ? { ExclusiveStartKey: start } : {}) }));
    out.push(...(res.Items ?? []));
    start = res.LastEvaluatedKey;
  } while (start);
  return out;
}
