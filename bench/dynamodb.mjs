// DynamoDB on moto: items/s of the engine putting generated messages into a table (`generate` →
// `aws_dynamodb` output, 25 items to a BatchWriteItem, one request at a time) against a raw AWS SDK
// v3 loop of BatchWriteItem of 25, one after the other, in the same run. Benthos' core build has no
// aws_dynamodb, so the raw client is the baseline. Each side is a process of its own; the rate is
// taken from 5% of the items to all (the engine's by its /metrics counter), so start-up is not counted.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, config, engineMetricRate, fmt, rawRate } from './lib.mjs';

const require = createRequire(join(ROOT, 'plugins', 'package.json'));
const DDB_MODULE = require.resolve('@aws-sdk/client-dynamodb');
const d = require('@aws-sdk/client-dynamodb');
const MOTO = process.env.SVC_MOTO_URL ?? 'http://127.0.0.1:15000';
const OPTIONS = { region: 'us-east-1', endpoint: MOTO, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };
const TEXT = 'x'.repeat(200);

const client = new d.DynamoDBClient(OPTIONS);

/** The raw writer: `count` items { id, text }, BatchWriteItem of 25 one after the other. */
const RAW = (table, count) => `const d = require(${JSON.stringify(DDB_MODULE)});
const c = new d.DynamoDBClient(${JSON.stringify(OPTIONS)});
(async () => {
  let t0;
  for (let i = 0; i < ${count}; i += 25) {
    if (t0 === undefined && i >= ${count} * 0.05) t0 = { at: performance.now(), n: i };
    const reqs = Array.from({ length: Math.min(25, ${count} - i) }, (_, j) => ({ PutRequest: { Item: { id: { S: String(i + j) }, text: { S: ${JSON.stringify(TEXT)} } } } }));
    await c.send(new d.BatchWriteItemCommand({ RequestItems: { ${JSON.stringify(table)}: reqs } }));
  }
  console.log(JSON.stringify({ moved: ${count} - t0.n, seconds: (performance.now() - t0.at) / 1000 }));
  c.destroy();
})();`;

async function tempTable(name) {
  await client.send(
    new d.CreateTableCommand({
      TableName: name,
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
}

export async function run({ quick = false } = {}) {
  const count = quick ? 2000 : 10000;
  const port = 19400 + (process.pid % 500);
  const raw = `svc-bench-ddb-raw-${process.pid}`;
  const eng = `svc-bench-ddb-eng-${process.pid}`;
  try {
    await tempTable(raw);
    await tempTable(eng);
    const rawRateV = rawRate('dynamodb-raw-put', RAW(raw, count));
    const engRate = await engineMetricRate(
      config(
        'dynamodb-out',
        `http: { address: 127.0.0.1:${port} }
logger: { level: WARN }
input:
  generate: { count: ${count}, interval: '', mapping: 'root = {"id": counter().string(), "text": "${TEXT}"}' }
output:
  aws_dynamodb:
    table: ${eng}
    string_columns: { id: '\${! json("id") }', text: '\${! json("text") }' }
    batching: { count: 25 }
    max_in_flight: 1
    region: ${OPTIONS.region}
    endpoint: ${MOTO}
    credentials: { id: test, secret: test }
`,
      ),
      port,
      'output_sent',
      count,
    );
    return [
      {
        bench: `generate → DynamoDB (moto), ${count} items of 2 string columns, one BatchWriteItem of 25 at a time`,
        result: `${fmt(engRate)} items/s`,
        baseline: `raw @aws-sdk/client-dynamodb BatchWriteItem loop ${fmt(rawRateV)} items/s`,
        ratio: engRate / rawRateV,
        target: '≥ 1× items/s',
        pass: engRate / rawRateV >= 1,
      },
    ];
  } finally {
    for (const t of [raw, eng]) await client.send(new d.DeleteTableCommand({ TableName: t })).catch(() => undefined);
    client.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run({ quick: process.argv.includes('--quick') })) console.log(r);
}
