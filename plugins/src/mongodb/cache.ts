/**
 * The `mongodb` cache (Redpanda Connect's): a document per key in a collection, the key in
 * `key_field` and the value, as a string, in `value_field`. A set is an upsert of the value. An
 * add inserts only when no document has the key (an upsert that sets the value on insert only),
 * so it refuses a key already stored even without a unique index on `key_field` (Benthos' insert
 * needs one); with the index, two processes adding the same key at once get one success. One
 * client for every pipeline thread (`mainThread`), connected when the cache is built.
 */
import { ErrorCode, SvcError, f, registerCache, type Cache, type Infer } from '@svc/engine';
import type { Collection, Document } from 'mongodb';
import { clientFields, connectMongo, scrubbed, type MongoConnection } from './client.js';

const spec = f.object({
  ...clientFields,
  collection: f.string().describe('The name of the target collection.'),
  key_field: f.string().describe('The field in the document that is used as the key.'),
  value_field: f.string().describe('The field in the document that is used as the value.'),
});

type Conf = Infer<typeof spec>;

/** MongoDB's code for a write that broke a unique index. */
const DUPLICATE_KEY = 11000;

class MongodbCache implements Cache {
  private readonly coll: Collection<Document>;

  constructor(
    private readonly conf: Conf,
    private readonly conn: MongoConnection,
  ) {
    this.coll = conn.db.collection(conf.collection);
  }

  private failed(what: string, err: unknown): SvcError {
    return new SvcError(ErrorCode.Processing, `mongodb cache: cannot ${what}: ${scrubbed(this.conf, err)}`);
  }

  async get(key: string): Promise<Buffer | undefined> {
    let doc: Document | null;
    try {
      doc = await this.coll.findOne({ [this.conf.key_field]: key }, { projection: { [this.conf.value_field]: 1 } });
    } catch (err) {
      throw this.failed('get a document', err);
    }
    if (doc === null) return undefined;
    const v: unknown = doc[this.conf.value_field];
    if (typeof v === 'string') return Buffer.from(v);
    if (v !== null && typeof v === 'object' && (v as { _bsontype?: string })._bsontype === 'Binary') return Buffer.from((v as { buffer: Uint8Array }).buffer);
    throw new SvcError(ErrorCode.Processing, `mongodb cache: error getting field from document ${this.conf.value_field}: not a string`);
  }

  async set(key: string, value: Buffer): Promise<void> {
    try {
      await this.coll.updateOne({ [this.conf.key_field]: key }, { $set: { [this.conf.value_field]: value.toString() } }, { upsert: true });
    } catch (err) {
      throw this.failed('set a document', err);
    }
  }

  async add(key: string, value: Buffer): Promise<boolean> {
    try {
      const res = await this.coll.updateOne({ [this.conf.key_field]: key }, { $setOnInsert: { [this.conf.value_field]: value.toString() } }, { upsert: true });
      return res.upsertedCount === 1;
    } catch (err) {
      if ((err as { code?: unknown }).code === DUPLICATE_KEY) return false;
      throw this.failed('add a document', err);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.coll.deleteOne({ [this.conf.key_field]: key });
    } catch (err) {
      throw this.failed('delete a document', err);
    }
  }

  async close(): Promise<void> {
    await this.conn.client.close().catch(() => undefined);
  }
}

registerCache('mongodb', {
  summary: 'Use a MongoDB instance as a cache.',
  description: [
    'A document per key in `collection`: the key in `key_field`, the value (as a string) in `value_field`. A set',
    'replaces the value (or creates the document); an add creates the document only when no document has the key, and',
    'refuses the key otherwise. A unique index on `key_field` makes adds from several processes at once safe. Items',
    'have no TTL. One client serves every pipeline thread.',
  ].join('\n'),
  config: spec,
  mainThread: true,
  examples: [
    'cache_resources:\n  - label: seen\n    mongodb:\n      url: mongodb://127.0.0.1:27017\n      database: dedupe\n      collection: seen\n      key_field: key\n      value_field: value\n',
  ],
  factory: async (conf) => new MongodbCache(conf, await connectMongo(conf, 'mongodb cache')),
});
