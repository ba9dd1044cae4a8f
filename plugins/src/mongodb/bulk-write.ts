/**
 * A batch's writes, as the `mongodb` output and processor send them: message i's write goes to
 * the collection its `collection` interpolation names, and each collection's writes go as one
 * unordered bulk write. What did not happen is reported per message: a message whose maps failed,
 * a write MongoDB refused (by its index in the bulk write), and every write of a bulk write that
 * failed without saying which (a lost connection, an unmet write concern: some may have been
 * applied, so writing them again is at least once).
 */
import { errorMessage, type Batch, type Interpolation } from '@svc/engine';
import type { AnyBulkWriteOperation, WriteConcernSettings } from 'mongodb';
import { scrubbed, type ClientConfig, type MongoConnection } from './client.js';
import type { WriteMaps } from './operations.js';

/** The writes to one collection, and the message each came from. */
interface Group {
  indexes: number[];
  models: AnyBulkWriteOperation[];
}

/** The writes MongoDB refused, by index in the bulk write, when it says which (none were then lost otherwise). */
function refusedWrites(err: unknown): { index: number; errmsg?: string }[] | undefined {
  const e = err as { name?: string; writeErrors?: unknown; writeConcernError?: unknown };
  if (e?.name !== 'MongoBulkWriteError' || e.writeConcernError) return undefined;
  const list = (Array.isArray(e.writeErrors) ? e.writeErrors : e.writeErrors ? [e.writeErrors] : []) as { index: number; errmsg?: string }[];
  return list.length > 0 ? list : undefined;
}

/** Writes `batch`; resolves with the messages whose write did not happen (index → why). */
export async function writeBatch(
  what: string,
  conf: ClientConfig,
  conn: MongoConnection,
  maps: WriteMaps,
  collection: Interpolation,
  concern: WriteConcernSettings,
  batch: Batch,
): Promise<Map<number, Error>> {
  const failures = new Map<number, Error>();
  const groups = new Map<string, Group>();
  for (let i = 0; i < batch.length; i++) {
    try {
      const name = collection.value(batch[i]!, { batch, index: i });
      const model = maps.model(conn.mongo, batch, i);
      let g = groups.get(name);
      if (!g) groups.set(name, (g = { indexes: [], models: [] }));
      g.indexes.push(i);
      g.models.push(model);
    } catch (err) {
      failures.set(i, new Error(`${what}: ${errorMessage(err)}`));
    }
  }
  await Promise.all(
    [...groups].map(async ([name, g]) => {
      try {
        await conn.db.collection(name, { writeConcern: concern }).bulkWrite(g.models, { ordered: false });
      } catch (err) {
        const why = `${what}: cannot write to collection ${name}: `;
        const refused = refusedWrites(err);
        if (refused) {
          for (const w of refused) failures.set(g.indexes[w.index]!, new Error(why + (w.errmsg ?? scrubbed(conf, err))));
          return;
        }
        const e = new Error(why + scrubbed(conf, err));
        for (const i of g.indexes) failures.set(i, e);
      }
    }),
  );
  return failures;
}
