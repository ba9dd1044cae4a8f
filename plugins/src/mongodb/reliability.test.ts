/**
 * At least once, end to end: the `engine` CLI moves 1,000 entries of a Redis stream (a consumer
 * group: an entry is acknowledged only once its write was) into FerretDB with the `mongodb` output
 * (insert-one, a document per entry, the server's own _id), is SIGKILLed mid-run and restarted.
 * Every entry must be stored; an entry stored twice must be one that was read and not yet
 * acknowledged at the kill, so the duplicates are at most what Redis held pending then.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineProcess, waitFor } from '@svc/engine/testing';
import { REDIS_URL, redis, tempKey } from '../redis/test-support.js';
import { DATABASE, MONGODB_URL, mongo, tempCollection } from './test-support.js';

const TOTAL = 1_000;

function pipeline(stream: string, collection: string): string {
  return `http: { enabled: false }
logger: { level: INFO, format: logfmt }
input:
  redis_streams:
    url: ${REDIS_URL}
    streams: [ ${stream} ]
    consumer_group: svc
    client_id: svc-1
    limit: 10
    commit_period: 200ms
pipeline:
  threads: 1
  processors:
    - sleep: { duration: 20ms }
output:
  mongodb:
    url: ${MONGODB_URL}
    database: ${DATABASE}
    collection: ${collection}
    operation: insert-one
    document_map: 'root.body = content().string()'
    batching: { count: 10, period: 50ms }
`;
}

async function bodies(collection: string): Promise<string[]> {
  const docs = await (
    await mongo()
  )
    .db(DATABASE)
    .collection(collection)
    .find({}, { projection: { _id: 0, body: 1 } })
    .toArray();
  return docs.map((d) => String(d.body));
}

async function pending(stream: string): Promise<number> {
  const r = await (await redis()).send<[number]>(['XPENDING', stream, 'svc']);
  return Number(r[0]);
}

/** Runs the pipeline until `atLeast` distinct entries are stored, then SIGKILLs it or stops it. */
async function runUntil(yaml: string, collection: string, atLeast: number, how: 'kill' | 'stop'): Promise<void> {
  const engine = new EngineProcess(yaml);
  try {
    await waitFor(
      `${atLeast} entries stored`,
      async () => {
        if (engine.done) throw new Error(`the engine exited: ${engine.output().slice(-2000)}`);
        return new Set(await bodies(collection)).size >= atLeast ? true : undefined;
      },
      120_000,
      50,
    );
    if (how === 'kill') await engine.kill();
    else assert.equal(await engine.stop(), 0, engine.output().slice(-2000));
  } finally {
    if (!engine.done) await engine.kill();
  }
}

describe('mongodb output reliability: 1,000 entries across a SIGKILL of the engine', () => {
  it('redis_streams → mongodb: none lost, duplicates only of what was pending at the kill', async (t) => {
    const stream = tempKey('mongo-rel');
    const collection = tempCollection('rel');
    const r = await redis();
    await Promise.all(Array.from({ length: TOTAL }, (_, i) => r.send(['XADD', stream, '*', 'body', `m${i}`])));
    await runUntil(pipeline(stream, collection), collection, 200, 'kill');
    const atKill = (await bodies(collection)).length;
    const left = await pending(stream);
    assert.ok(atKill < TOTAL, `killed mid-run (${atKill} of ${TOTAL} stored)`);
    await runUntil(pipeline(stream, collection), collection, TOTAL, 'stop');
    const all = await bodies(collection);
    const distinct = new Set(all);
    assert.equal(distinct.size, TOTAL, `${TOTAL - distinct.size} lost`);
    assert.ok(all.length - TOTAL <= left, `${all.length - TOTAL} duplicates, more than the ${left} pending at the kill`);
    assert.equal(await pending(stream), 0, 'all acknowledged at the end');
    t.diagnostic(`killed with ${atKill} stored and ${left} pending; ${all.length} stored in all, ${all.length - TOTAL} twice`);
  });
});
