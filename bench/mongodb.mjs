// MongoDB on FerretDB: documents/s of the engine storing generated messages (`generate` → `mongodb`
// output, insert-one, batches of 100 as one unordered bulk write, one write at a time) against a raw
// mongodb driver loop doing the same (bulkWrite of 100 insertOne, unordered, awaited one after the
// other), in the same run. The Benthos peer here has no mongodb, so the raw driver is the baseline.
// Each side is a process of its own; the rate is taken from 5% of the documents to all (the
// engine's by its /metrics counter), so start-up is not counted.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, config, engineMetricRate, fmt, rawRate } from './lib.mjs';

const require = createRequire(join(ROOT, 'plugins', 'package.json'));
const MONGO_MODULE = require.resolve('mongodb');
const { MongoClient } = require('mongodb');
const URL = process.env.SVC_MONGODB_URL ?? 'mongodb://127.0.0.1:27117';
const DB = `svc_bench_${process.pid}`;
const TEXT = 'x'.repeat(200);
const BATCH = 100;

/** The raw writer: `count` documents { id, text }, bulkWrite of 100 insertOne one after the other. */
const RAW = (collection, count) => `const { MongoClient, Long } = require(${JSON.stringify(MONGO_MODULE)});
(async () => {
  const c = new MongoClient(${JSON.stringify(URL)});
  await c.connect();
  const coll = c.db(${JSON.stringify(DB)}).collection(${JSON.stringify(collection)});
  let t0;
  for (let i = 0; i < ${count}; i += ${BATCH}) {
    if (t0 === undefined && i >= ${count} * 0.05) t0 = { at: performance.now(), n: i };
    const ops = Array.from({ length: Math.min(${BATCH}, ${count} - i) }, (_, j) => ({ insertOne: { document: { id: Long.fromNumber(i + j), text: ${JSON.stringify(TEXT)} } } }));
    await coll.bulkWrite(ops, { ordered: false });
  }
  console.log(JSON.stringify({ moved: ${count} - t0.n, seconds: (performance.now() - t0.at) / 1000 }));
  await c.close();
})();`;

export async function run({ quick = false } = {}) {
  const count = quick ? 5000 : 20000;
  const port = 19900 + (process.pid % 90);
  const client = new MongoClient(URL);
  try {
    const rawRateV = rawRate('mongodb-raw-insert', RAW('raw', count));
    const engRate = await engineMetricRate(
      config(
        'mongodb-out',
        `http: { address: 127.0.0.1:${port} }
logger: { level: WARN }
input:
  generate: { count: ${count}, interval: '', batch_size: ${BATCH}, mapping: 'root = {"id": counter(), "text": "${TEXT}"}' }
output:
  mongodb:
    url: ${URL}
    database: ${DB}
    collection: engine
    operation: insert-one
    document_map: 'root = this'
    max_in_flight: 1
    batching: { count: ${BATCH} }
`,
      ),
      port,
      'output_sent',
      count,
    );
    const db = (await client.connect()).db(DB);
    const stored = { raw: await db.collection('raw').countDocuments(), engine: await db.collection('engine').countDocuments() };
    if (stored.raw !== count || stored.engine !== count) throw new Error(`stored ${JSON.stringify(stored)}, expected ${count} each`);
    return [
      {
        bench: `generate → MongoDB (FerretDB 1.24 on PostgreSQL), ${count} documents of 2 fields, insert-one, one bulk write of ${BATCH} at a time`,
        result: `${fmt(engRate)} docs/s`,
        baseline: `raw mongodb driver bulkWrite loop ${fmt(rawRateV)} docs/s`,
        ratio: engRate / rawRateV,
        target: '≥ 1× docs/s',
        pass: engRate / rawRateV >= 1,
      },
    ];
  } finally {
    await client
      .db(DB)
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run({ quick: process.argv.includes('--quick') })) console.log(r);
}
