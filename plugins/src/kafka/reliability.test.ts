/**
 * At least once, end to end, against the real broker: a Kafka → mapping → Kafka pipeline run by
 * the `engine` CLI is killed with SIGKILL mid-stream and restarted, and separately loses its broker
 * for 10 s; every input message must be in the output topic (distinct keys counted), none lost.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import kafkajs, { type Admin, type Kafka as KafkaClient } from 'kafkajs';
import { serviceAddress, waitFor, EngineProcess, TcpOutage } from '@svc/engine/testing';
import { createServedTopics } from './topic-test-support.js';

const { Kafka, logLevel } = kafkajs;
const BROKER = serviceAddress('SVC_KAFKA_BROKERS');
const OUTAGE_PORT = Number(serviceAddress('SVC_KAFKA_OUTAGE_PORT'));
const OUTAGE_PROXY_PORT = Number(serviceAddress('SVC_KAFKA_OUTAGE_PROXY_PORT'));

let kafka: KafkaClient;
let admin: Admin;
const topics: string[] = [];

before(async () => {
  kafka = new Kafka({ clientId: 'reliability-test', brokers: [BROKER], logLevel: logLevel.NOTHING });
  admin = kafka.admin();
  await admin.connect();
});
after(async () => {
  await admin.deleteTopics({ topics }).catch(() => {});
  await admin.disconnect();
});

async function topic(name: string, partitions = 4): Promise<string> {
  const t = `${name}-${randomBytes(4).toString('hex')}`;
  topics.push(t);
  await createServedTopics(admin, [{ topic: t, numPartitions: partitions }]);
  return t;
}

async function produce(t: string, from: number, to: number): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  for (let i = from; i < to;) {
    const messages = [];
    for (let j = 0; j < 5000 && i < to; j++, i++) messages.push({ key: `id-${i}`, value: JSON.stringify({ id: i }) });
    await producer.send({ topic: t, messages });
  }
  await producer.disconnect();
}

async function landed(t: string): Promise<number> {
  return (await admin.fetchTopicOffsets(t)).reduce((n, p) => n + Number(p.high), 0);
}

/** Reads the whole topic; resolves with the distinct keys once there are `want` of them (or times out). */
async function distinctKeys(t: string, want: number, timeoutMs = 120_000): Promise<{ keys: Set<string>; total: number; bad: number }> {
  const consumer = kafka.consumer({ groupId: `reader-${randomBytes(4).toString('hex')}` });
  const keys = new Set<string>();
  let total = 0;
  let bad = 0;
  await consumer.connect();
  await consumer.subscribe({ topics: [t], fromBeginning: true });
  await consumer.run({
    eachBatch: async ({ batch }) => {
      for (const m of batch.messages) {
        total++;
        const key = m.key?.toString() ?? '';
        const doc = JSON.parse(m.value!.toString()) as { id: number; piped?: boolean };
        if (key !== `id-${doc.id}` || doc.piped !== true) bad++;
        keys.add(key);
      }
    },
  });
  try {
    await waitFor(`${want} distinct keys in ${t}`, async () => (keys.size >= want ? true : undefined), timeoutMs, 250);
  } catch (err) {
    throw new Error(`${(err as Error).message} (have ${keys.size})`);
  } finally {
    await consumer.disconnect();
  }
  return { keys, total, bad };
}

function pipeline(brokers: string, from: string, to: string, group: string): string {
  return `
http:
  enabled: false
input:
  kafka:
    addresses: [${brokers}]
    topics: [${from}]
    consumer_group: ${group}
    commit_period: 500ms
pipeline:
  threads: 1
  processors:
    - mapping: |
        root = this
        root.piped = true
output:
  kafka:
    addresses: [${brokers}]
    topic: ${to}
    key: \${! meta("logbus_key") }
    max_in_flight: 16
logger:
  level: WARN
`;
}

describe('kafka → kafka at least once (engine CLI, real broker)', { timeout: 300_000 }, () => {
  it('loses nothing when the engine is killed with SIGKILL mid-stream and restarted', async () => {
    const N = 100_000;
    const from = await topic('kill-in');
    const to = await topic('kill-out');
    await produce(from, 0, N);
    const yaml = pipeline(BROKER, from, to, `kill-${randomBytes(4).toString('hex')}`);

    const first = new EngineProcess(yaml);
    await waitFor(
      'the first engine to copy 20,000 messages',
      async () => (first.done ? Promise.reject(new Error(first.output())) : (await landed(to)) >= 20_000 ? true : undefined),
      120_000,
      20,
    );
    await first.kill();
    const atKill = await landed(to);
    assert.ok(atKill < N, `the engine was killed mid-stream (${atKill} of ${N} copied)`);

    const second = new EngineProcess(yaml);
    const { keys, total, bad } = await distinctKeys(to, N);
    assert.equal(await second.stop(), 0, second.output());
    assert.equal(keys.size, N, 'every input message is in the output');
    assert.equal(bad, 0, 'every output message went through the mapping with its key');
    assert.ok(total >= N, `${total} messages in the output (duplicates allowed: at least once)`);
  });

  it('resumes without loss when the broker goes away for 10 s mid-stream', async () => {
    const N = 30_000;
    const from = await topic('outage-in');
    const to = await topic('outage-out');
    const proxy = new TcpOutage({ host: '127.0.0.1', port: OUTAGE_PORT }, OUTAGE_PROXY_PORT);
    await proxy.start();
    try {
      const engine = new EngineProcess(pipeline(`127.0.0.1:${OUTAGE_PROXY_PORT}`, from, to, `outage-${randomBytes(4).toString('hex')}`));
      await produce(from, 0, N / 3);
      await waitFor(
        'the engine to copy the first third',
        async () => (engine.done ? Promise.reject(new Error(engine.output())) : (await landed(to)) >= N / 3 ? true : undefined),
        60_000,
        50,
      );
      proxy.cut(10_000);
      // The producer here talks to the broker directly: messages keep arriving during the outage.
      await produce(from, N / 3, N);
      const during = await landed(to);
      await proxy.restored();
      const { keys } = await distinctKeys(to, N, 120_000);
      assert.ok(during < N, 'the outage happened mid-stream');
      assert.ok(proxy.accepted > 1, 'the engine reconnected through the proxy');
      assert.equal(keys.size, N, 'every message arrived after the broker came back');
      assert.equal(await engine.stop(), 0, `the engine exits 0 after SIGINT: ${engine.output()}`);
    } finally {
      await proxy.stop();
    }
  });
});
