/**
 * Kafka as the scale-out engine of pipelines, on the real broker: engine processes (the `engine`
 * CLI) in one consumer group share a topic's partitions. One is killed with SIGKILL mid-run, the
 * other takes its partitions from their committed offsets, and a third that joins gets a share:
 * every message reaches the output. What arrives twice is what a member had written and not yet
 * committed when it lost its partitions: the killed one at the kill, the survivor at each of the
 * two rebalances after it (Kafka's eager protocol takes every partition back). So duplicates are
 * bounded by three times the most that was ever written and not committed, sampled throughout.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import kafkajs, { type Admin, type Kafka as KafkaClient } from 'kafkajs';
import { serviceAddress, waitFor, EngineProcess } from '@svc/engine/testing';
import { createServedTopics } from './topic-test-support.js';

const { Kafka, logLevel, AssignerProtocol } = kafkajs;
const BROKER = serviceAddress('SVC_KAFKA_BROKERS');
const N = 100_000;

let kafka: KafkaClient;
let admin: Admin;
const topics: string[] = [];

before(async () => {
  kafka = new Kafka({ clientId: 'scale-out-test', brokers: [BROKER], logLevel: logLevel.NOTHING });
  admin = kafka.admin();
  await admin.connect();
});
after(async () => {
  await admin.deleteTopics({ topics }).catch(() => {});
  await admin.disconnect();
});

async function topic(name: string): Promise<string> {
  const t = `${name}-${randomBytes(4).toString('hex')}`;
  topics.push(t);
  await createServedTopics(admin, [{ topic: t, numPartitions: 4 }]);
  return t;
}

async function produce(t: string): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  for (let i = 0; i < N;) {
    const messages = [];
    for (let j = 0; j < 5000 && i < N; j++, i++) messages.push({ key: `id-${i}`, value: JSON.stringify({ id: i }) });
    await producer.send({ topic: t, messages });
  }
  await producer.disconnect();
}

async function landed(t: string): Promise<number> {
  return (await admin.fetchTopicOffsets(t)).reduce((n, p) => n + Number(p.high), 0);
}

async function committed(group: string, t: string): Promise<number> {
  const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [t] });
  return offsets!.partitions.reduce((n, p) => n + Math.max(0, Number(p.offset)), 0);
}

/** The partitions of `t` each member of `group` holds, by member (members without any left out). */
async function assignments(group: string, t: string): Promise<number[][]> {
  const { groups } = await admin.describeGroups([group]);
  return groups[0]!.members.map((m) => AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment[t] ?? []).filter((ps) => ps.length > 0);
}

/** Every record of `t`: distinct keys and the total. */
async function readAll(t: string): Promise<{ keys: Set<string>; total: number }> {
  const consumer = kafka.consumer({ groupId: `reader-${randomBytes(4).toString('hex')}` });
  const keys = new Set<string>();
  let total = 0;
  await consumer.connect();
  await consumer.subscribe({ topics: [t], fromBeginning: true });
  const end = await landed(t);
  await consumer.run({
    eachBatch: async ({ batch }) => {
      for (const m of batch.messages) {
        total++;
        keys.add(m.key?.toString() ?? '');
      }
    },
  });
  try {
    await waitFor(`all ${end} records of ${t}`, async () => (total >= end ? true : undefined), 120_000, 250);
  } finally {
    await consumer.disconnect();
  }
  return { keys, total };
}

function pipeline(from: string, to: string, group: string): string {
  return `
http:
  enabled: false
input:
  kafka:
    addresses: [${BROKER}]
    topics: [${from}]
    consumer_group: ${group}
    commit_period: 500ms
pipeline:
  threads: 1
  processors:
    - mapping: root = this
output:
  kafka:
    addresses: [${BROKER}]
    topic: ${to}
    key: \${! meta("kafka_key") }
    max_in_flight: 16
logger:
  level: WARN
`;
}

describe('engines in one consumer group (engine CLI, real broker)', { timeout: 400_000 }, () => {
  it('one killed with SIGKILL: the other takes its partitions, a third joining gets a share; none lost, duplicates bounded', async (t) => {
    const from = await topic('scale-in');
    const to = await topic('scale-out');
    await produce(from);
    const group = `scale-${randomBytes(4).toString('hex')}`;
    const yaml = pipeline(from, to, group);

    const a = new EngineProcess(yaml);
    const b = new EngineProcess(yaml);
    let c: EngineProcess | undefined;
    // Written and not committed, at its most, sampled until every input record is committed.
    let mostUncommitted = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const done = await committed(group, from).catch(() => 0);
        mostUncommitted = Math.max(mostUncommitted, (await landed(to)) - done);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    try {
      await waitFor(
        'two members holding two partitions each',
        async () => ((await assignments(group, from)).map((ps) => ps.length).join() === '2,2' ? true : undefined),
        120_000,
        100,
      );
      await waitFor(
        '10,000 messages through before the kill',
        async () => (a.done || b.done ? Promise.reject(new Error(a.output() + b.output())) : (await landed(to)) >= 10_000 ? true : undefined),
        120_000,
        20,
      );
      await a.kill();
      const writtenAtKill = await landed(to);
      assert.ok(writtenAtKill < N, `killed mid-run (${writtenAtKill} of ${N} through)`);

      c = new EngineProcess(yaml);
      // Done when the group has committed every input record: a record is committed once its
      // output is acked (the output's count alone also counts the duplicates).
      await waitFor(
        'the group to commit every input record',
        async () => (b.done || c!.done ? Promise.reject(new Error(b.output() + c!.output())) : (await committed(group, from)) >= N ? true : undefined),
        240_000,
        250,
      );
      sampling = false;
      await sampler;
      const shares = await waitFor(
        'the survivor and the newcomer to share the partitions',
        async () => {
          const held = await assignments(group, from);
          return held.length === 2 && held.flat().length === 4 ? held : undefined;
        },
        60_000,
        250,
      );
      assert.equal(shares.length, 2, 'the third member got a share');

      const { keys, total } = await readAll(to);
      assert.equal(keys.size, N, `${N - keys.size} lost`);
      const twice = total - N;
      t.diagnostic(`killed with ${writtenAtKill} written; at most ${mostUncommitted} written and not committed; ${twice} written twice`);
      assert.ok(twice <= 3 * mostUncommitted, `${twice} written twice, more than 3 × the ${mostUncommitted} ever written and not committed`);
    } finally {
      sampling = false;
      await sampler;
      await a.kill().catch(() => undefined);
      await b.stop();
      await c?.stop();
    }
  });
});
