// Kafka → Kafka: 1 KB messages on a 4-partition topic, consumed in a group and produced to another
// 4-partition topic. The engine (`kafka` input → `kafka` output) against a hand-written kafkajs
// consume → produce loop (eachBatch, one send per fetched batch, offsets committed after the send),
// both in their own process against the same broker in the same run. The rate is taken between the
// first and the last message landing in the output topic (read from its high watermarks), so that
// start-up and the group join count for neither. Both forward key and value only: the engine's
// output excludes the input's logbus_* and kafka_* metadata, which it would otherwise send as 15
// headers per record (kafkajs encodes each header into a buffer of its own: the 8 kafka_* ones
// alone took the rate from 14.8 k to 9.7 k msg/s in one run; see docs/guide/components.md).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { ENGINE, ROOT, config, fmt } from './lib.mjs';
import { createServedTopics } from '../plugins/dist/kafka/topic-test-support.js';

const { Kafka, logLevel } = kafkajs;
const PARTITIONS = 4;
const SIZE = 1024;

function brokers() {
  if (process.env.SVC_KAFKA_BROKERS) return process.env.SVC_KAFKA_BROKERS;
  try {
    const m = /^SVC_KAFKA_BROKERS=(.*)$/m.exec(readFileSync(join(ROOT, '.services/env'), 'utf8'));
    if (m) return m[1];
  } catch {
    // no services env file: the default address
  }
  return '127.0.0.1:9092';
}

/** The raw loop, run in a child process: consume `from` in a group, send each fetched batch to `to`. */
const RAW = (broker, from, to, group) => `
import kafkajs from 'kafkajs';
const kafka = new kafkajs.Kafka({ clientId: 'raw', brokers: [${JSON.stringify(broker)}], logLevel: kafkajs.logLevel.ERROR });
const producer = kafka.producer();
const consumer = kafka.consumer({ groupId: ${JSON.stringify(group)} });
await producer.connect();
await consumer.connect();
await consumer.subscribe({ topics: [${JSON.stringify(from)}], fromBeginning: true });
await consumer.run({
  partitionsConsumedConcurrently: ${PARTITIONS},
  eachBatchAutoResolve: false,
  eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
    const messages = batch.messages.map((m) => ({ key: m.key, value: m.value }));
    if (messages.length === 0) return;
    await producer.send({ topic: ${JSON.stringify(to)}, messages, acks: 1 });
    resolveOffset(batch.messages[batch.messages.length - 1].offset);
    await heartbeat();
  },
});
process.on('SIGINT', async () => { await consumer.disconnect(); await producer.disconnect(); process.exit(0); });
`;

const ENGINE_CONFIG = (broker, from, to, group) => `
http:
  enabled: false
input:
  kafka:
    addresses: [${broker}]
    topics: [${from}]
    consumer_group: ${group}
    start_from_oldest: true
output:
  kafka:
    addresses: [${broker}]
    topic: ${to}
    key: \${! meta("logbus_key") }
    partitioner: murmur2_hash
    max_in_flight: 64
    metadata:
      exclude_prefixes: [ logbus_, kafka_ ]   # the raw loop forwards no headers either
logger:
  level: WARN
`;

async function fill(kafka, topic, count) {
  const producer = kafka.producer();
  await producer.connect();
  const value = randomBytes(SIZE / 2).toString('hex');
  for (let i = 0; i < count;) {
    const messages = [];
    for (let j = 0; j < 2000 && i < count; j++, i++) messages.push({ key: `k${i}`, value });
    await producer.send({ topic, messages, acks: 1 });
  }
  await producer.disconnect();
}

async function landed(admin, topic) {
  const offsets = await admin.fetchTopicOffsets(topic);
  return offsets.reduce((n, p) => n + Number(p.high), 0);
}

/** Starts `args` as a child; resolves with messages/s between the first and the `count`th landing in `to`. */
async function rate(admin, to, count, args) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'], cwd: ROOT });
  try {
    let first;
    const deadline = Date.now() + 300_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited ${child.exitCode}`);
      const n = await landed(admin, to);
      const now = performance.now();
      if (n > 0 && first === undefined) first = { n, t: now };
      if (n >= count) return (n - first.n) / ((now - first.t) / 1000);
      if (Date.now() > deadline) throw new Error(`only ${n} of ${count} messages arrived`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGINT');
      await new Promise((r) => {
        const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => (clearTimeout(t), r()));
      });
    }
  }
}

export async function run({ quick = false } = {}) {
  const count = quick ? 50_000 : 200_000;
  const broker = brokers();
  const kafka = new Kafka({ clientId: 'bench', brokers: [broker], logLevel: logLevel.ERROR });
  const admin = kafka.admin();
  await admin.connect();
  const id = randomBytes(4).toString('hex');
  const from = `bench-in-${id}`;
  const topics = [from, `bench-raw-${id}`, `bench-engine-${id}`];
  try {
    await createServedTopics(
      admin,
      topics.map((topic) => ({ topic, numPartitions: PARTITIONS })),
    );
    await fill(kafka, from, count);
    const raw = await rate(admin, topics[1], count, ['--input-type=module', '-e', RAW(broker, from, topics[1], `bench-raw-${id}`)]);
    const cfg = config('kafka-kafka', ENGINE_CONFIG(broker, from, topics[2], `bench-engine-${id}`));
    const engine = await rate(admin, topics[2], count, [ENGINE, '-c', cfg]);
    const ratio = engine / raw;
    return [
      {
        bench: `kafka → kafka, 1 KB, ${PARTITIONS} partitions (${fmt(count)} messages)`,
        result: `${fmt(engine)} msg/s`,
        baseline: `${fmt(raw)} msg/s (kafkajs eachBatch → send loop)`,
        ratio,
        target: '≥ 0.90×',
        pass: ratio >= 0.9,
        // Benthos core (bench/peers/benthos/) has no kafka components; the module proxy here serves
        // no Redpanda Connect build that has them.
        peer: 'not run: Benthos core has no kafka (needs a Redpanda Connect build)',
      },
    ];
  } finally {
    await admin.deleteTopics({ topics }).catch(() => {});
    await admin.disconnect();
  }
}
