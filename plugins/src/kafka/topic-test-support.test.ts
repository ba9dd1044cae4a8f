/**
 * createServedTopics against the real broker: once it resolves, a fresh client that does not
 * retry can use every partition; a topic the broker never serves fails the wait within its bound,
 * naming the topic.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import kafkajs, { type Admin } from 'kafkajs';
import { serviceAddress } from '@svc/engine/testing';
import { createServedTopics, waitServed } from './topic-test-support.js';

const BROKER = serviceAddress('SVC_KAFKA_BROKERS');
const NO_RETRY = { retries: 0 };
const kafka = new kafkajs.Kafka({ clientId: 'topic-support-test', brokers: [BROKER], logLevel: kafkajs.logLevel.NOTHING, retry: NO_RETRY });
let admin: Admin;
const topics: string[] = [];

before(async () => {
  admin = kafka.admin();
  await admin.connect();
});
after(async () => {
  await admin.deleteTopics({ topics }).catch(() => undefined);
  await admin.disconnect();
});

describe('createServedTopics (real broker)', { timeout: 120_000 }, () => {
  it('resolves once every partition of every topic takes offsets requests and writes from a client that does not retry', async () => {
    const names = [`served-a-${randomBytes(4).toString('hex')}`, `served-b-${randomBytes(4).toString('hex')}`];
    topics.push(...names);
    await createServedTopics(
      admin,
      names.map((topic) => ({ topic, numPartitions: 3 })),
    );

    const fresh = kafka.admin({ retry: NO_RETRY });
    const producer = kafka.producer({ retry: NO_RETRY });
    await fresh.connect();
    await producer.connect();
    try {
      for (const topic of names) {
        assert.deepEqual((await fresh.fetchTopicOffsets(topic)).map((p) => [p.partition, p.high]).sort(), [
          [0, '0'],
          [1, '0'],
          [2, '0'],
        ]);
        await producer.send({ topic, acks: -1, messages: [0, 1, 2].map((partition) => ({ partition, value: `p${partition}` })) });
        assert.deepEqual(
          (await fresh.fetchTopicOffsets(topic)).map((p) => p.high),
          ['1', '1', '1'],
        );
      }
    } finally {
      await producer.disconnect();
      await fresh.disconnect();
    }
  });

  it('a topic the broker does not serve fails the wait within its bound, naming the topic', async () => {
    const missing = `never-created-${randomBytes(4).toString('hex')}`;
    await assert.rejects(waitServed(admin, missing, 1, 1_500), (err: Error) => {
      assert.match(err.message, new RegExp(`timed out after 1500 ms waiting for the broker to serve topic ${missing}`));
      return true;
    });
  });
});
