// SQS → drop: messages/s of the engine consuming a pre-filled queue (`aws_sqs` input, deleting
// each message once `drop` took it) against a raw AWS SDK v3 consumer doing what Benthos' aws_sqs
// input does (one ReceiveMessage loop of 10, DeleteMessageBatch of what it received), in the same
// run, against the moto server of `scripts/services.sh up`. Benthos' core build has no aws_sqs,
// so the raw client is the baseline. moto answers in tens to hundreds of milliseconds (far slower
// than SQS), so this measures how well each consumer overlaps round trips, not SQS itself. Each
// consumer runs in its own process; the rate is taken from 5% consumed to empty.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ENGINE, ROOT, config, fmt } from './lib.mjs';

const require = createRequire(join(ROOT, 'plugins', 'package.json'));
const SQS_MODULE = require.resolve('@aws-sdk/client-sqs');
const sqs = require('@aws-sdk/client-sqs');
const MOTO = process.env.SVC_MOTO_URL ?? 'http://127.0.0.1:15000';
const OPTIONS = { region: 'us-east-1', endpoint: MOTO, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };
const BODY = JSON.stringify({ id: 0, name: 'svc', tags: ['a', 'b'], text: 'x'.repeat(200) });

/** The raw consumer: one receive loop, each batch deleted once received, until killed. */
const RAW = (url) => `
const { SQSClient, ReceiveMessageCommand, DeleteMessageBatchCommand } = require(${JSON.stringify(SQS_MODULE)});
const c = new SQSClient(${JSON.stringify(OPTIONS)});
(async () => {
  for (;;) {
    const r = await c.send(new ReceiveMessageCommand({ QueueUrl: ${JSON.stringify(url)}, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    const m = r.Messages ?? [];
    if (m.length) await c.send(new DeleteMessageBatchCommand({ QueueUrl: ${JSON.stringify(url)}, Entries: m.map((x, i) => ({ Id: String(i), ReceiptHandle: x.ReceiptHandle })) }));
  }
})();
process.on('SIGINT', () => process.exit(0));
`;

const client = new sqs.SQSClient(OPTIONS);

async function fill(url, count) {
  await client.send(new sqs.PurgeQueueCommand({ QueueUrl: url }));
  const sends = [];
  for (let i = 0; i < count; i += 10) {
    const entries = [];
    for (let j = i; j < Math.min(count, i + 10); j++) entries.push({ Id: String(j), MessageBody: BODY });
    sends.push(() => client.send(new sqs.SendMessageBatchCommand({ QueueUrl: url, Entries: entries })));
  }
  for (let i = 0; i < sends.length; i += 20) await Promise.all(sends.slice(i, i + 20).map((s) => s()));
}

async function left(url) {
  const a = (
    await client.send(
      new sqs.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
    )
  ).Attributes;
  return Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesNotVisible);
}

/** Messages/s of the consumer `args` starts, from 5% consumed to empty. */
async function consumeRate(url, count, args) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const deadline = Date.now() + 300_000;
    let start;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the consumer exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error(`${url} was not drained in 300 s`);
      const n = await left(url);
      const now = performance.now();
      if (!start && n <= count * 0.95) start = { at: now, left: n };
      if (start && n === 0) return start.left / ((now - start.at) / 1000);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

function engineArgs(url) {
  const cfg = config(
    'aws-sqs-drop',
    `http: { enabled: false }
logger: { level: WARN }
input:
  aws_sqs:
    url: ${url}
    wait_time_seconds: 1
    region: ${OPTIONS.region}
    endpoint: ${MOTO}
    credentials: { id: test, secret: test }
output:
  drop: {}
`,
  );
  return [ENGINE, '-c', cfg];
}

export async function run({ quick = false } = {}) {
  const count = quick ? 500 : 2000;
  const url = (await client.send(new sqs.CreateQueueCommand({ QueueName: `svc-bench-sqs-${process.pid}` }))).QueueUrl;
  try {
    let raw = 0;
    let eng = 0;
    // Best of two for each, alternating, so that both see moto in the same state.
    for (let i = 0; i < 2; i++) {
      await fill(url, count);
      raw = Math.max(raw, await consumeRate(url, count, ['-e', RAW(url)]));
      await fill(url, count);
      eng = Math.max(eng, await consumeRate(url, count, engineArgs(url)));
    }
    return [
      {
        bench: `SQS (moto) → drop, ${count} × ${BODY.length}-byte messages, each deleted once delivered`,
        result: `${fmt(eng)} msg/s`,
        baseline: `raw @aws-sdk/client-sqs consumer (Benthos' loop: receive 10, delete them) ${fmt(raw)} msg/s`,
        ratio: eng / raw,
        target: '≥ 1× msg/s',
        pass: eng / raw >= 1,
      },
    ];
  } finally {
    await client.send(new sqs.DeleteQueueCommand({ QueueUrl: url })).catch(() => undefined);
    client.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run({ quick: process.argv.includes('--quick') })) console.log(r);
}
