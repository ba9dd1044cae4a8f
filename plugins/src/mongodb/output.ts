/**
 * The `mongodb` output (Redpanda Connect's): each message of a batch becomes a write (insert-one,
 * delete-one, delete-many, replace-one or update-one) and the writes to one collection go as one
 * unordered bulk write, resolved once MongoDB acknowledged them with the `write_concern`.
 *
 * At least once: a write MongoDB refused fails only its message (a BatchError: only it is written
 * again); when a bulk write fails without saying which writes were refused (the connection was
 * lost, the write concern was not met), every message of it fails and is written again, so a
 * write may be applied twice, never lost. Replace-one and update-one with upsert, or an insert
 * whose `_id` comes from the message, make a repeat harmless.
 */
import {
  NotConnectedError,
  batchPolicySpec,
  compileInterpolation,
  f,
  maxInFlightField,
  registerOutput,
  type Batch,
  type ComponentContext,
  type Infer,
  type Interpolation,
  type Logger,
  type Output,
} from '@svc/engine';
import type { WriteConcernSettings } from 'mongodb';
import { throwFailures } from '../batch-outcome.js';
import { writeBatch } from './bulk-write.js';
import { clientFields, connectMongo, type MongoConnection } from './client.js';
import { WriteMaps, writeConcern, writeConcernField, writeMapFields, writeOperations } from './operations.js';

const spec = f.object({
  ...clientFields,
  collection: f.string().interpolated().describe('The name of the target collection.'),
  operation: f.enum(writeOperations).default('update-one').describe('The mongodb operation to perform.'),
  write_concern: writeConcernField,
  ...writeMapFields,
  max_in_flight: maxInFlightField(64),
  batching: batchPolicySpec,
});

type Conf = Infer<typeof spec>;

class MongodbOutput implements Output {
  private readonly log: Logger;
  private readonly maps: WriteMaps;
  private readonly collection: Interpolation;
  private readonly concern: WriteConcernSettings;
  private conn: MongoConnection | undefined;

  constructor(
    private readonly conf: Conf,
    ctx: ComponentContext,
  ) {
    this.log = ctx.logger;
    this.maps = new WriteMaps(conf.operation, conf);
    this.collection = compileInterpolation(conf.collection);
    this.concern = writeConcern(conf.write_concern);
  }

  async connect(): Promise<void> {
    if (this.conn) return;
    this.conn = await connectMongo(this.conf, 'mongodb output');
    this.log.info(`Writing to MongoDB database ${this.conf.database} (${this.conf.operation})`);
  }

  async write(batch: Batch): Promise<void> {
    const conn = this.conn;
    if (!conn) throw new NotConnectedError('mongodb output: not connected');
    throwFailures(batch.length, await writeBatch('mongodb output', this.conf, conn, this.maps, this.collection, this.concern, batch));
  }

  async close(): Promise<void> {
    const conn = this.conn;
    this.conn = undefined;
    await conn?.client.close().catch(() => undefined);
  }
}

registerOutput('mongodb', {
  summary: 'Inserts items into a MongoDB collection.',
  description: [
    'Each message becomes a write: `insert-one` stores `document_map`; `delete-one` and `delete-many` remove what',
    '`filter_map` finds; `replace-one` and `update-one` (the default) replace or update what `filter_map` finds with',
    '`document_map` (an update takes operators such as `$set`), creating it with `upsert: true`. `hint_map` names an',
    'index for the filter. Filters and hints are read as canonical extended JSON (`{"$oid": "..."}` is an ObjectId);',
    'a document keeps integers as int64 and other numbers as doubles, as Benthos stores them.',
    '',
    'The writes of a batch to one collection go as one unordered bulk write, acknowledged with `write_concern`. A write',
    'MongoDB refuses fails its message alone; a bulk write lost with its connection fails all of its messages, which are',
    'written again (at least once: make repeats harmless with an `_id` from the message or with upserts).',
    '',
    'This output benefits from sending multiple messages in flight in parallel (`max_in_flight`) and from batching.',
  ].join('\n'),
  config: spec,
  examples: [
    `output:
  mongodb:
    url: mongodb://127.0.0.1:27017
    database: shop
    collection: orders
    operation: replace-one
    upsert: true
    filter_map: 'root._id = this.order_id'
    document_map: |
      root = this
      root._id = this.order_id
    batching:
      count: 100
      period: 100ms`,
  ],
  factory: (conf, ctx) => new MongodbOutput(conf, ctx),
});
