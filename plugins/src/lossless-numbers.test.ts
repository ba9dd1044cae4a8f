/**
 * Numbers are data, end to end: records whose ids are above 2^53 (and at both ends of int64) go
 * http_server → mapping (`root = this`, the id into metadata) → avro from_json → Kafka (the id as
 * key and header) in one `engine` process, and Kafka → avro to_json → mapping → http_client in a
 * second, against the real broker; the upstream must receive every body byte for byte as it was
 * sent, and the key and header with the id's exact digits. A JS double would have rounded every
 * one of these ids (1234567890123456789 → 1234567890123456800).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import kafkajs, { type Admin } from 'kafkajs';
import { freePort, serviceAddress, waitFor, EngineProcess, upstream, type Upstream } from '@svc/engine/testing';
import { request } from 'undici';
import { createServedTopics } from './kafka/topic-test-support.js';

const BROKER = serviceAddress('SVC_KAFKA_BROKERS');
const SCHEMA = JSON.stringify({
  type: 'record',
  name: 'Payment',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'account', type: 'long' },
    { name: 'amount', type: 'double' },
    { name: 'note', type: 'string' },
  ],
});
const IDS = ['1234567890123456789', '9007199254740993', '9223372036854775807', '-9223372036854775808', '-9007199254740993', '42'];
// Compact, in the schema's field order, numbers as Avro's JSON encoding writes them: what comes
// back out of `to_json` is then the same bytes when nothing was changed.
const BODIES = IDS.map((id, i) => `{"id":${id},"account":${i === 0 ? '18014398509481985' : '7'},"amount":2.5,"note":"id ${id}"}`);

let admin: Admin;
let up: Upstream;
const topic = `lossless-${randomBytes(4).toString('hex')}`;

before(async () => {
  admin = new kafkajs.Kafka({ clientId: 'lossless-test', brokers: [BROKER], logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  await createServedTopics(admin, [{ topic, numPartitions: 1 }]);
  up = await upstream((_req, _body, res) => res.writeHead(200).end());
});
after(async () => {
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
  await up.close();
});

async function ready(base: string, e: EngineProcess): Promise<void> {
  await waitFor(
    `the engine at ${base} to be ready`,
    async () => {
      if (e.done) throw new Error(`the engine exited: ${e.output()}`);
      const r = await request(`${base}/ready`);
      await r.body.text();
      return r.statusCode === 200 ? true : undefined;
    },
    30_000,
    100,
  );
}

describe('numbers are data: ids above 2^53 through mapping, avro, Kafka and HTTP', () => {
  it('arrive byte for byte, with the exact id as Kafka key and header', async () => {
    const portIn = await freePort();
    const portOut = await freePort();
    const schema = JSON.stringify(SCHEMA);
    const producer = new EngineProcess(`
http: { address: 127.0.0.1:${portIn} }
logger: { level: WARN }
input:
  http_server: { path: /payments }
pipeline:
  threads: 2
  processors:
    - mapping: |
        root = this
        meta id = this.id
    - avro: { operator: from_json, encoding: binary, schema: ${schema} }
output:
  kafka:
    addresses: [ ${BROKER} ]
    topic: ${topic}
    key: \${! @id }
`);
    const consumer = new EngineProcess(`
http: { address: 127.0.0.1:${portOut} }
logger: { level: WARN }
input:
  logbus:
    addresses: [ ${BROKER} ]
    topics: [ ${topic} ]
    consumer_group: lossless-${randomBytes(4).toString('hex')}
    start_from_oldest: true
pipeline:
  threads: 1
  processors:
    - avro: { operator: to_json, encoding: binary, schema: ${schema} }
    - mapping: 'root = this'
output:
  http_client:
    url: ${up.url}/payments
    verb: POST
    headers:
      X-Key: \${! @logbus_key }
      X-Id: \${! @id }
      X-Id-Plus-One: \${! this.id + 1 }
`);
    try {
      await ready(`http://127.0.0.1:${portIn}`, producer);
      await ready(`http://127.0.0.1:${portOut}`, consumer);
      for (const body of BODIES) {
        const r = await request(`http://127.0.0.1:${portIn}/payments`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
        await r.body.text();
        assert.equal(r.statusCode, 200, producer.output());
      }
      await waitFor(`${BODIES.length} requests at the upstream`, async () => (up.requests.length >= BODIES.length ? true : undefined), 60_000, 100).catch(
        (err: Error) => assert.fail(`${err.message}\nproducer: ${producer.output()}\nconsumer: ${consumer.output()}`),
      );
      const got = up.requests.map((r) => r.body.toString('utf8'));
      assert.deepEqual([...got].sort(), [...BODIES].sort());
      for (const r of up.requests) {
        const id = /^\{"id":(-?\d+),/.exec(r.body.toString('utf8'))![1]!;
        assert.equal(r.headers['x-key'], id);
        assert.equal(r.headers['x-id'], id);
        // arithmetic is int64, exact, and wraps as Go's does
        assert.equal(r.headers['x-id-plus-one'], BigInt.asIntN(64, BigInt(id) + 1n).toString());
      }
    } finally {
      await producer.stop();
      await consumer.stop();
    }
  });
});
