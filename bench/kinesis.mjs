// Kinesis on moto: records/s of the engine putting generated messages into a stream (`generate` →
// `aws_kinesis` output, 500 records to a PutRecords) and reading a pre-filled stream (`aws_kinesis`
// input, checkpoints in DynamoDB, → `drop`), each against a raw AWS SDK v3 client doing the same work
// in a loop of its own (PutRecords of 500, one after the other; GetRecords of 1,000 from
// TRIM_HORIZON), in the same run. Benthos' core build has no aws_kinesis, so the raw client is the
// baseline. Each side is a process of its own; the rate is taken from 5% of the records to all (the
// engine's by its /metrics counters), so neither side's start-up is counted.
// The output sends one PutRecords at a time (max_in_flight: 1), as the raw loop does: moto 5.1.22
// gives concurrent PutRecords to one shard the same sequence numbers and keeps one record of each.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, config, engineMetricRate, fmt, rawRate } from './lib.mjs';

const require = createRequire(join(ROOT, 'plugins', 'package.json'));
const KINESIS_MODULE = require.resolve('@aws-sdk/client-kinesis');
const HANDLER_MODULE = require.resolve('@smithy/node-http-handler');
const k = require('@aws-sdk/client-kinesis');
const { NodeHttpHandler } = require('@smithy/node-http-handler');
const MOTO = process.env.SVC_MOTO_URL ?? 'http://127.0.0.1:15000';
const OPTIONS = { region: 'us-east-1', endpoint: MOTO, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };
const BODY = JSON.stringify({ id: 0, name: 'svc', tags: ['a', 'b'], text: 'x'.repeat(200) });
const SESSION = `region: ${OPTIONS.region}
    endpoint: ${MOTO}
    credentials: { id: test, secret: test }`;

const client = new k.KinesisClient({ ...OPTIONS, requestHandler: new NodeHttpHandler() });
const preamble = `const k = require(${JSON.stringify(KINESIS_MODULE)});
const { NodeHttpHandler } = require(${JSON.stringify(HANDLER_MODULE)});
const c = new k.KinesisClient({ ...${JSON.stringify(OPTIONS)}, requestHandler: new NodeHttpHandler() });`;

/** The raw producer: `count` records, PutRecords of 500 one after the other; prints the seconds from 5% put to all. */
const RAW_PUT = (stream, count) => `${preamble}
(async () => {
  const data = Buffer.from(${JSON.stringify(BODY)});
  let t0;
  for (let i = 0; i < ${count}; i += 500) {
    if (t0 === undefined && i >= ${count} * 0.05) t0 = { at: performance.now(), n: i };
    const Records = Array.from({ length: Math.min(500, ${count} - i) }, (_, j) => ({ Data: data, PartitionKey: String(i + j) }));
    await c.send(new k.PutRecordsCommand({ StreamName: ${JSON.stringify(stream)}, Records }));
  }
  console.log(JSON.stringify({ moved: ${count} - t0.n, seconds: (performance.now() - t0.at) / 1000 }));
  c.destroy();
})();`;

/** The raw consumer: GetRecords from the start of the one shard until `count` records; prints the seconds from 5% read to all. */
const RAW_GET = (stream, count) => `${preamble}
(async () => {
  let it = (await c.send(new k.GetShardIteratorCommand({ StreamName: ${JSON.stringify(stream)}, ShardId: 'shardId-000000000000', ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator;
  let n = 0;
  let t0;
  while (n < ${count}) {
    if (t0 === undefined && n >= ${count} * 0.05) t0 = { at: performance.now(), n };
    const r = await c.send(new k.GetRecordsCommand({ ShardIterator: it, Limit: 1000 }));
    n += (r.Records ?? []).length;
    it = r.NextShardIterator;
  }
  console.log(JSON.stringify({ moved: n - t0.n, seconds: (performance.now() - t0.at) / 1000 }));
  c.destroy();
})();`;

async function tempStream(name) {
  await client.send(new k.CreateStreamCommand({ StreamName: name, ShardCount: 1 }));
  for (;;) {
    const s = await client.send(new k.DescribeStreamSummaryCommand({ StreamName: name }));
    if (s.StreamDescriptionSummary.StreamStatus === 'ACTIVE') return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function run({ quick = false } = {}) {
  const count = quick ? 5000 : 20000;
  const port = 19400 + (process.pid % 500);
  const out1 = `svc-bench-kin-raw-${process.pid}`;
  const out2 = `svc-bench-kin-eng-${process.pid}`;
  try {
    await tempStream(out1);
    await tempStream(out2);
    const rawPut = rawRate('kinesis-raw-put', RAW_PUT(out1, count));
    const engPut = await engineMetricRate(
      config(
        'kinesis-out',
        `http: { address: 127.0.0.1:${port} }
logger: { level: WARN }
input:
  generate: { count: ${count}, interval: '', mapping: 'root = ${BODY.replace(/'/g, "''")}' }
output:
  aws_kinesis:
    stream: ${out2}
    partition_key: \${! uuid_v4() }
    batching: { count: 500 }
    max_in_flight: 1
    ${SESSION}
`,
      ),
      port,
      'output_sent',
      count,
    );
    // The raw producer's stream is read by both consumers.
    const rawGet = rawRate('kinesis-raw-get', RAW_GET(out1, count));
    const engGet = await engineMetricRate(
      config(
        'kinesis-in',
        `http: { address: 127.0.0.1:${port} }
logger: { level: WARN }
input:
  aws_kinesis:
    streams: [ ${out1} ]
    dynamodb: { table: svc-bench-kin-${process.pid}, create: true }
    ${SESSION}
output:
  drop: {}
`,
      ),
      port,
      'input_received',
      count,
    );
    return [
      {
        bench: `generate → Kinesis (moto), ${count} × ${BODY.length}-byte records, one PutRecords of 500 at a time`,
        result: `${fmt(engPut)} rec/s`,
        baseline: `raw @aws-sdk/client-kinesis PutRecords loop ${fmt(rawPut)} rec/s`,
        ratio: engPut / rawPut,
        target: '≥ 1× rec/s',
        pass: engPut / rawPut >= 1,
      },
      {
        bench: `Kinesis (moto) → drop, ${count} records, checkpoints in DynamoDB`,
        result: `${fmt(engGet)} rec/s`,
        baseline: `raw @aws-sdk/client-kinesis GetRecords loop (1,000 a request) ${fmt(rawGet)} rec/s`,
        ratio: engGet / rawGet,
        target: '≥ 1× rec/s',
        pass: engGet / rawGet >= 1,
      },
    ];
  } finally {
    for (const s of [out1, out2]) await client.send(new k.DeleteStreamCommand({ StreamName: s })).catch(() => undefined);
    client.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run({ quick: process.argv.includes('--quick') })) console.log(r);
}
