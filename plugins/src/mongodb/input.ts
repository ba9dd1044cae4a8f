/**
 * The `mongodb` input (Redpanda Connect's): runs one find or aggregate when connected and hands
 * out the documents it returns as extended JSON messages, then ends (so a `sequence` goes on to
 * its next input, or the stream stops). Without `batch_size` each document is a batch of its own;
 * with it, a batch is what one reply of the server's cursor held (at most `batch_size`), as in
 * Benthos. The cursor is read as the pipeline takes documents, so a large collection never sits in
 * memory whole. A query that fails is a connection error (retried, nothing handed out yet); a
 * failure part way through ends the input with the error.
 */
import {
  END_OF_INPUT,
  InputFailedError,
  Message,
  NotConnectedError,
  compileMapping,
  errorMessage,
  f,
  registerInput,
  type EndOfInput,
  type Infer,
  type Input,
  type Logger,
  type Transaction,
} from '@svc/engine';
import type { AbstractCursor, Document } from 'mongodb';
import { clientFields, connectMongo, scrubbed, type MongoConnection } from './client.js';
import { jsonMarshalModes, toBson, toExtJson } from './values.js';

const spec = f.object({
  ...clientFields,
  collection: f.string().describe('The collection to select from.'),
  operation: f
    .enum(['find', 'aggregate'] as const)
    .default('find')
    .advanced()
    .describe('The mongodb operation to perform.'),
  json_marshal_mode: f
    .enum(jsonMarshalModes)
    .default('canonical')
    .advanced()
    .describe(
      'The json_marshal_mode setting is optional and controls the format of the output message. `canonical`: a string format that emphasizes type preservation at the expense of readability and interoperability. `relaxed`: a string format that emphasizes readability and interoperability at the expense of type preservation.',
    ),
  query: f
    .mapping()
    .describe(
      'Bloblang expression describing MongoDB query: a filter for `find` (for example `root.age = {"$gte": 18}`), the pipeline (an array of stages) for `aggregate`.',
    ),
  auto_replay_nacks: f
    .bool()
    .default(true)
    .describe(
      'Whether messages that are rejected (nacked) at the output level should be automatically replayed indefinitely, eventually resulting in back pressure if the cause of the rejections is persistent. If set to `false` these messages will instead be deleted.',
    ),
  batch_size: f
    .int()
    .optional()
    .validate((n) => (n === undefined || n > 0 ? undefined : 'batch_size must be >0'))
    .describe('A explicit number of documents to batch up before flushing them for processing. Must be greater than `0`. Operations: `find`, `aggregate`'),
  sort: f
    .map(f.int())
    .optional()
    .describe('An object specifying fields to sort by, and the respective sort order (`1` ascending, `-1` descending). Operations: `find`'),
  limit: f.int().optional().describe('An explicit maximum number of documents to return. Operations: `find`'),
});

type Conf = Infer<typeof spec>;

class MongodbInput implements Input {
  private conn: MongoConnection | undefined;
  private cursor: AbstractCursor<Document> | undefined;
  private count = 0;
  private done = false;
  private closed = false;

  constructor(
    private readonly conf: Conf,
    private readonly query: unknown,
    private readonly log: Logger,
  ) {}

  async connect(): Promise<void> {
    if (this.cursor || this.done || this.closed) return;
    const conn = (this.conn ??= await connectMongo(this.conf, 'mongodb input'));
    const coll = conn.db.collection(this.conf.collection);
    const query = toBson(conn.mongo, this.query);
    const batchSize = this.conf.batch_size;
    // promoteValues off: numbers keep their BSON types, which canonical extended JSON shows.
    const cursor =
      this.conf.operation === 'find'
        ? coll.find((query ?? {}) as Document, {
            promoteValues: false,
            ...(batchSize ? { batchSize } : {}),
            ...(this.conf.sort ? { sort: this.conf.sort as Record<string, 1 | -1> } : {}),
            ...(this.conf.limit && this.conf.limit > 0 ? { limit: this.conf.limit } : {}),
          })
        : coll.aggregate((query ?? []) as Document[], { promoteValues: false, ...(batchSize ? { batchSize } : {}) });
    try {
      await cursor.hasNext();
    } catch (err) {
      await cursor.close().catch(() => undefined);
      throw new NotConnectedError(`mongodb input: ${this.conf.operation} failed: ${scrubbed(this.conf, err)}`);
    }
    this.cursor = cursor;
  }

  async read(): Promise<Transaction | EndOfInput> {
    if (this.closed || this.done) return END_OF_INPUT;
    const cursor = this.cursor;
    if (!cursor || !this.conn) throw new NotConnectedError('mongodb input: not connected');
    let docs: Document[];
    try {
      const first = await cursor.next();
      if (first === null) {
        this.done = true;
        this.log.debug(`Got ${this.count} documents from '${this.conf.collection}' collection`);
        return END_OF_INPUT;
      }
      docs = this.conf.batch_size ? [first, ...cursor.readBufferedDocuments()] : [first];
    } catch (err) {
      this.done = true;
      throw new InputFailedError(`mongodb input: reading documents: ${scrubbed(this.conf, err)}`, { cause: err });
    }
    this.count += docs.length;
    const mongo = this.conn.mongo;
    const meta = { mongo_database: this.conf.database, mongo_collection: this.conf.collection };
    const batch = docs.map((d) => new Message(toExtJson(mongo, d, this.conf.json_marshal_mode), meta));
    return { batch, ack: () => undefined };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.cursor?.close().catch(() => undefined);
    await this.conn?.client.close().catch(() => undefined);
  }
}

registerInput('mongodb', {
  summary: 'Executes a query and creates a message for each document received.',
  description: [
    'Once the documents from the query are exhausted, this input shuts down, allowing the pipeline to gracefully terminate (or the next input in a `sequence` to execute).',
    '',
    'The query is a mapping run once, without a message: a filter for `find`, an array of stages for `aggregate`. Each',
    'document is a message of extended JSON (`json_marshal_mode`), with the metadata `mongo_database` and',
    '`mongo_collection`. Without `batch_size` each document is a batch of its own; with it, a batch holds what one',
    "reply of the server's cursor held.",
  ].join('\n'),
  config: spec,
  examples: [
    `input:
  mongodb:
    url: mongodb://127.0.0.1:27017
    database: shop
    collection: orders
    query: |
      root.status = "paid"
      root.total = {"$gte": 100}
    sort: { created_at: 1 }
    batch_size: 100`,
  ],
  factory: (conf, ctx) => {
    const none = new Message('');
    let query: unknown;
    try {
      query = compileMapping(conf.query).exec(none, { batch: [none], index: 0 }).root;
    } catch (err) {
      throw new Error(`mongodb input: query: ${errorMessage(err)}`);
    }
    return new MongodbInput(conf, query, ctx.logger);
  },
});
