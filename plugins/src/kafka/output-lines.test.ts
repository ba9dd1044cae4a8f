/**
 * A file of lines into the `kafka` output, in process against the real broker: the lines the
 * engine carries together (a line is a message, and a batch of its own) go out in a few produce
 * requests, not one each (issue 39 item 2: one request per line held the output to ~4 k msg/s).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import kafkajs, { type Admin } from 'kafkajs';
import { buildStream, defineStream } from '@svc/engine';
import { serviceAddress } from '@svc/engine/testing';
import './output.js';
import { createServedTopics } from './topic-test-support.js';

const BROKERS = serviceAddress('SVC_KAFKA_BROKERS');
const LINES = 2000;

let admin: Admin;
const topic = `out-lines-${randomBytes(4).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'kafka-lines-'));
/** Produce requests sent by every kafkajs producer in this process. */
let produceRequests = 0;

before(async () => {
  // Counts what the output's client sends, as kafkajs' own instrumentation reports it.
  const producer = kafkajs.Kafka.prototype.producer;
  kafkajs.Kafka.prototype.producer = function (this: kafkajs.Kafka, ...args: Parameters<typeof producer>) {
    const p = producer.apply(this, args);
    p.on(p.events.REQUEST, (e) => void (e.payload.apiName === 'Produce' && produceRequests++));
    return p;
  };
  admin = new kafkajs.Kafka({ clientId: 'output-lines-test', brokers: [BROKERS], logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  await createServedTopics(admin, [{ topic, numPartitions: 4 }]);
});
after(async () => {
  await admin.deleteTopics({ topics: [topic] }).catch(() => {});
  await admin.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

describe('kafka output: a file of lines (real broker)', { timeout: 120_000 }, () => {
  it('sends the lines carried together in a few produce requests, not one a line, every line delivered', async () => {
    const file = join(dir, 'lines.txt');
    writeFileSync(file, Array.from({ length: LINES }, (_, i) => `line-${i}\n`).join(''));
    const def = await defineStream({
      yaml: `http: { enabled: false }
logger: { level: WARN }
input:
  file: { paths: [ ${file} ], scanner: { lines: {} } }
output:
  kafka: { addresses: [ ${BROKERS} ], topic: ${topic} }
`,
      file: 'lines.yaml',
    });
    const stream = await buildStream(def);
    await stream.run();
    const ends = await admin.fetchTopicOffsets(topic);
    assert.equal(
      ends.reduce((n, p) => n + Number(p.high), 0),
      LINES,
    );
    // 2000 short lines fit in one 256 KiB read: one transaction of 2000 one-line batches.
    assert.ok(produceRequests >= 1 && produceRequests <= 4, `${produceRequests} produce requests for ${LINES} lines`);
  });
});
