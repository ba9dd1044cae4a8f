/**
 * The operations of the `mongodb` output and processor and what each message makes of them, as
 * Redpanda Connect builds its write models: `document_map` is required by insert-one, replace-one
 * and update-one; `filter_map` by every operation but insert-one; `hint_map` is allowed where a
 * filter is; `upsert` only for replace-one and update-one. A config that breaks one of these
 * rules is refused when the component is built, with Benthos' words.
 */
import { compileMapping, errorMessage, f, parseDuration, type Batch, type Mapping } from '@svc/engine';
import type { AnyBulkWriteOperation, Document, WriteConcernSettings } from 'mongodb';
import type { MongoModule } from './client.js';
import { fromExtJson, toBson } from './values.js';

export const writeOperations = ['insert-one', 'delete-one', 'delete-many', 'replace-one', 'update-one'] as const;
export const processorOperations = [...writeOperations, 'find-one'] as const;
export type Operation = (typeof processorOperations)[number];

const DOCUMENT = new Set<Operation>(['insert-one', 'replace-one', 'update-one']);
const FILTER = new Set<Operation>(['delete-one', 'delete-many', 'replace-one', 'update-one', 'find-one']);
const UPSERT = new Set<Operation>(['replace-one', 'update-one']);

const mapExample = '\n\nFor example: `root.a = this.foo` and `root.b = this.bar`.';

export const writeConcernField = f
  .object({
    w: f
      .string()
      .default('majority')
      .describe(
        'W requests acknowledgement that write operations propagate to the specified number of mongodb instances. Can be the string "majority" to wait for a calculated majority of nodes to acknowledge the write operation, or an integer value specifying an minimum number of nodes to acknowledge the operation, or a string specifying the name of a custom write concern configured in the cluster.',
      ),
    j: f.bool().default(false).describe('J requests acknowledgement from MongoDB that write operations are written to the journal.'),
    w_timeout: f.duration().default('').describe('The write concern timeout.'),
  })
  .describe('The write concern settings for the mongo connection.');

export const writeMapFields = {
  document_map: f
    .mapping()
    .default('')
    .describe(
      `A bloblang map representing a document to store within MongoDB. The document map is required for the operations insert-one, replace-one and update-one.${mapExample}`,
    ),
  filter_map: f
    .mapping()
    .default('')
    .describe(
      `A bloblang map representing a filter for a MongoDB command, read as extended JSON in canonical form (so \`{"$oid": "..."}\` is an ObjectId). The filter map is required for all operations except insert-one. It is used to find the document(s) for the operation. For example in a delete-one case, the filter map should have the fields required to locate the document to delete.${mapExample}`,
    ),
  hint_map: f
    .mapping()
    .default('')
    .describe(
      `A bloblang map representing the hint for the MongoDB command, read as extended JSON in canonical form. This map is optional and is used with all operations except insert-one. It is used to improve performance of finding the documents in the mongodb.${mapExample}`,
    ),
  upsert: f
    .bool()
    .default(false)
    .describe(
      'The upsert setting is optional and only applies for update-one and replace-one operations. If the filter specified in filter_map matches, the document is updated or replaced accordingly, otherwise it is created.',
    ),
};

export interface WriteMapsConfig {
  document_map: string;
  filter_map: string;
  hint_map: string;
  upsert: boolean;
}

/** The driver's write concern from the `write_concern` fields (`w` a number when it is one). */
export function writeConcern(conf: { w: string; j: boolean; w_timeout: string }): WriteConcernSettings {
  // A tag set's name goes as it is: the driver's type knows only numbers and "majority".
  const w = (/^\d+$/.test(conf.w) ? Number(conf.w) : conf.w) as WriteConcernSettings['w'];
  const wc: WriteConcernSettings = { w, journal: conf.j };
  if (conf.w_timeout !== '' && conf.w_timeout !== '0') wc.wtimeoutMS = parseDuration(conf.w_timeout);
  return wc;
}

/** What one message asks for. */
export interface Request {
  document?: Document;
  filter?: Document;
  hint?: Document;
}

/** The maps of one component, compiled once and checked against its operation. */
export class WriteMaps {
  private readonly document: Mapping | undefined;
  private readonly filter: Mapping | undefined;
  private readonly hint: Mapping | undefined;

  constructor(
    readonly operation: Operation,
    private readonly conf: WriteMapsConfig,
  ) {
    this.document = conf.document_map === '' ? undefined : compileMapping(conf.document_map);
    this.filter = conf.filter_map === '' ? undefined : compileMapping(conf.filter_map);
    this.hint = conf.hint_map === '' ? undefined : compileMapping(conf.hint_map);
    if (FILTER.has(operation)) {
      if (!this.filter) throw new Error('mongodb filter_map must be specified');
    } else if (this.filter) throw new Error(`mongodb filter_map not allowed for '${operation}' operation`);
    if (DOCUMENT.has(operation)) {
      if (!this.document) throw new Error('mongodb document_map must be specified');
    } else if (this.document) throw new Error(`mongodb document_map not allowed for '${operation}' operation`);
    if (!FILTER.has(operation) && this.hint) throw new Error(`mongodb hint_map not allowed for '${operation}' operation`);
    if (!UPSERT.has(operation) && conf.upsert) throw new Error(`mongodb upsert not allowed for '${operation}' operation`);
  }

  /** Message i's document, filter and hint; throws naming the map that failed. */
  request(mongo: MongoModule, batch: Batch, i: number): Request {
    const req: Request = {};
    if (this.filter) req.filter = fromExtJson(mongo, this.root('filter_map', this.filter, batch, i));
    if (this.document) req.document = toBson(mongo, this.root('document_map', this.document, batch, i)) as Document;
    if (this.hint) req.hint = fromExtJson(mongo, this.root('hint_map', this.hint, batch, i));
    return req;
  }

  /** Message i's write (not for find-one). */
  model(mongo: MongoModule, batch: Batch, i: number): AnyBulkWriteOperation {
    const { document, filter, hint } = this.request(mongo, batch, i);
    const upsert = this.conf.upsert;
    switch (this.operation) {
      case 'insert-one':
        return { insertOne: { document: document! } };
      case 'delete-one':
        return { deleteOne: { filter: filter!, ...(hint ? { hint } : {}) } };
      case 'delete-many':
        return { deleteMany: { filter: filter!, ...(hint ? { hint } : {}) } };
      case 'replace-one':
        return { replaceOne: { filter: filter!, replacement: document!, upsert, ...(hint ? { hint } : {}) } };
      case 'update-one':
        return { updateOne: { filter: filter!, update: document!, upsert, ...(hint ? { hint } : {}) } };
      case 'find-one':
        throw new Error('find-one is not a write');
    }
  }

  private root(name: string, mapping: Mapping, batch: Batch, i: number): object {
    let root: unknown;
    try {
      root = mapping.exec(batch[i]!, { batch, index: i }).root;
    } catch (err) {
      throw new Error(`failed to execute ${name}: ${errorMessage(err)}`);
    }
    if (root === null || typeof root !== 'object' || Array.isArray(root)) {
      throw new Error(`${name} must give an object, it gave ${root === undefined ? 'nothing' : Array.isArray(root) ? 'an array' : typeof root}`);
    }
    return root;
  }
}
