/**
 * The `mongodb` processor (Redpanda Connect's): per batch, the same writes as the `mongodb` output
 * (each collection's as one unordered bulk write), the messages left as they were; or, with
 * `find-one`, each message replaced by the document its `filter_map` finds, as extended JSON. A
 * message whose write or find failed (nothing found included: "mongo: no documents in result",
 * the Go driver's words) is flagged with the error and goes on. One client for every pipeline
 * thread (`mainThread`), connected when the processor is built, as Benthos connects it.
 */
import { compileInterpolation, f, registerProcessor, type Batch, type Infer, type Interpolation, type Processor } from '@svc/engine';
import type { WriteConcernSettings } from 'mongodb';
import { writeBatch } from './bulk-write.js';
import { clientFields, connectMongo, scrubbed, type MongoConnection } from './client.js';
import { WriteMaps, processorOperations, writeConcern, writeConcernField, writeMapFields } from './operations.js';
import { jsonMarshalModes, toExtJson } from './values.js';

const spec = f.object({
  ...clientFields,
  collection: f.string().interpolated().describe('The name of the target collection.'),
  operation: f.enum(processorOperations).default('insert-one').describe('The mongodb operation to perform.'),
  write_concern: writeConcernField,
  ...writeMapFields,
  json_marshal_mode: f
    .enum(jsonMarshalModes)
    .default('canonical')
    .advanced()
    .describe(
      'The json_marshal_mode setting is optional and controls the format of the output message (find-one). `canonical`: a string format that emphasizes type preservation at the expense of readability and interoperability. `relaxed`: a string format that emphasizes readability and interoperability at the expense of type preservation.',
    ),
});

type Conf = Infer<typeof spec>;

class MongodbProcessor implements Processor {
  private readonly collection: Interpolation;
  private readonly concern: WriteConcernSettings;

  constructor(
    private readonly conf: Conf,
    private readonly maps: WriteMaps,
    private readonly conn: MongoConnection,
  ) {
    this.collection = compileInterpolation(conf.collection);
    this.concern = writeConcern(conf.write_concern);
  }

  async process(batch: Batch): Promise<Batch[]> {
    if (this.conf.operation === 'find-one') {
      await Promise.all(batch.map((_, i) => this.findOne(batch, i)));
      return [batch];
    }
    const failures = await writeBatch('mongodb processor', this.conf, this.conn, this.maps, this.collection, this.concern, batch);
    for (const [i, err] of failures) batch[i]!.setError(err.message);
    return [batch];
  }

  private async findOne(batch: Batch, i: number): Promise<void> {
    const msg = batch[i]!;
    try {
      const { filter, hint } = this.maps.request(this.conn.mongo, batch, i);
      const name = this.collection.value(msg, { batch, index: i });
      const doc = await this.conn.db.collection(name).findOne(filter!, { promoteValues: false, ...(hint ? { hint } : {}) });
      if (doc === null) {
        msg.setError('mongodb processor: mongo: no documents in result');
        return;
      }
      msg.content = Buffer.from(toExtJson(this.conn.mongo, doc, this.conf.json_marshal_mode));
    } catch (err) {
      msg.setError(`mongodb processor: find-one: ${scrubbed(this.conf, err)}`);
    }
  }

  async close(): Promise<void> {
    await this.conn.client.close().catch(() => undefined);
  }
}

registerProcessor('mongodb', {
  summary: 'Performs operations against MongoDB for each message, allowing you to store or retrieve data within message payloads.',
  description: [
    'The write operations (insert-one, the default, delete-one, delete-many, replace-one, update-one) work as the',
    "`mongodb` output's, the batch's writes to a collection as one unordered bulk write, and leave the messages as they",
    'were. `find-one` replaces each message with the document `filter_map` finds, as extended JSON (`json_marshal_mode`).',
    'A message whose operation failed, or found nothing, is flagged with the error and can be caught with error handling.',
    'One client serves every pipeline thread.',
  ].join('\n'),
  config: spec,
  mainThread: true,
  examples: [
    `pipeline:
  processors:
    - branch:
        processors:
          - mongodb:
              url: mongodb://127.0.0.1:27017
              database: shop
              collection: customers
              operation: find-one
              json_marshal_mode: relaxed
              filter_map: 'root._id = this.customer_id'
        result_map: 'root.customer = this'`,
  ],
  factory: async (conf) => {
    // The maps are checked before connecting: a config Benthos refuses never opens a connection.
    const maps = new WriteMaps(conf.operation, conf);
    return new MongodbProcessor(conf, maps, await connectMongo(conf, 'mongodb processor'));
  },
});
