/**
 * End to end with the real broker: SIGINT while the kafka input's messages cannot be delivered
 * (an http_client output whose upstream fails). Whatever the signal time, no offset is committed
 * for a message the upstream never answered 2xx, the engine exits 1 naming what it could not
 * deliver (or 0 once everything it read was delivered), and a second engine run delivers the
 * rest: nothing is lost across the shutdown. Real engine processes, real signals.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EngineProcess, flakyUpstream, httpClientOutput, interruptAfterFirstRequest, reportedUndelivered, until } from '@svc/engine/testing';
import { BROKER, KafkaFixture, uid } from './input-test-support.js';

/** Messages per topic: half in partition 0, half in partition 1. */
const N = 200;
const PER_PARTITION = N / 2;
const ALL = Array.from({ length: N }, (_, i) => `id-${i}`);

/** The message at `offset` of `partition` (as produced by fill()). */
const idAt = (partition: number, offset: number) => `id-${partition * PER_PARTITION + offset}`;

const fixture = new KafkaFixture();
before(() => fixture.start());
after(() => fixture.stop());

/** A fresh two-partition topic holding id-0…id-99 in partition 0 and id-100…id-199 in partition 1, in order. */
async function fill(prefix: string): Promise<string> {
  const topic = await fixture.topic(prefix, 2);
  await fixture.produceIds(topic, 0, PER_PARTITION, 0);
  await fixture.produceIds(topic, PER_PARTITION, PER_PARTITION, 1);
  return topic;
}

function pipeline(topic: string, group: string, upstreamUrl: string, shutdownTimeout: string, checkpointLimit = 1024): string {
  // A short commit_period so that a commit of something not delivered would have every chance to happen.
  return `http: { enabled: false }
logger: { level: INFO }
shutdown_timeout: ${shutdownTimeout}
input:
  kafka:
    addresses: [ ${BROKER} ]
    topics: [ ${topic} ]
    consumer_group: ${group}
    commit_period: 100ms
    checkpoint_limit: ${checkpointLimit}
    group: { session_timeout: 6s, heartbeat_interval: 2s }
${httpClientOutput(upstreamUrl)}`;
}

/** The committed offsets of `group`; asserts that every message below them was answered 2xx. */
async function assertCommittedDelivered(group: string, topic: string, delivered: Set<string>, when: string): Promise<Map<number, number>> {
  const committed = await fixture.committed(group, topic);
  for (const [p, c] of committed) {
    for (let o = 0; o < c; o++)
      assert.ok(delivered.has(idAt(p, o)), `${when}: offset ${o} of partition ${p} (${idAt(p, o)}) was committed but never delivered`);
  }
  return committed;
}

/** Runs the pipeline with a healthy upstream until all of `ALL` arrived (with `before`), then stops it: exit 0, everything committed. */
async function deliverTheRest(topic: string, group: string, before: Set<string>): Promise<Set<string>> {
  const up = await flakyUpstream(0);
  const engine = new EngineProcess(pipeline(topic, group, up.up.url, '10s'));
  try {
    await until('the engine to join the group', () => /Joined the consumer group, consuming \S/.test(engine.output()), 60_000, engine);
    await until('every message delivered', () => ALL.every((id) => before.has(id) || up.delivered.has(id)), 60_000, engine);
    assert.equal(await engine.stop(30_000), 0, engine.output());
  } finally {
    if (!engine.done) await engine.kill();
    await up.up.close();
  }
  const committed = await assertCommittedDelivered(group, topic, new Set([...before, ...up.delivered]), 'after the second run');
  assert.deepEqual([...committed.values()], [PER_PARTITION, PER_PARTITION], 'the second run committed everything at its graceful stop');
  return up.delivered;
}

describe('kafka input: SIGINT while the output fails (engine CLI, real broker and upstream)', { timeout: 180_000 }, () => {
  for (const signalAfterMs of [0, 500, 1500]) {
    it(`an upstream down for good, SIGINT at +${signalAfterMs} ms → exit 1 naming the undelivered, no offset committed, a restart delivers all ${N}`, async (t) => {
      const topic = await fill('drain-down');
      const group = `drain-${uid()}`;
      const up = await flakyUpstream(Infinity);
      const engine = new EngineProcess(pipeline(topic, group, up.up.url, '1s'));
      const code = await interruptAfterFirstRequest(engine, up, signalAfterMs);
      const log = engine.output();
      assert.equal(up.delivered.size, 0);
      // A nacked message is replayed by the runtime until delivered: none was, so the drain cannot succeed.
      assert.equal(code, 1, log);
      const owed = reportedUndelivered(log);
      assert.ok(owed !== undefined && owed > 0 && owed <= N, `exit 1 says how many messages it could not deliver\n${log}`);
      assert.doesNotMatch(log, /Goodbye/);
      const committed = await assertCommittedDelivered(group, topic, up.delivered, 'after the interrupted run');
      assert.ok(
        [...committed.values()].every((c) => c <= 0),
        `nothing was delivered, so nothing is committed: ${[...committed]}`,
      );

      const second = await deliverTheRest(topic, group, up.delivered);
      t.diagnostic(`first run: exit ${code}, ${owed} message(s) reported undelivered; second run delivered ${second.size}`);
    });
  }

  it('an upstream back within shutdown_timeout, SIGINT at +200 ms → exit 0, what was read is delivered and committed, the rest is still in the topic', async (t) => {
    const topic = await fill('drain-back');
    const group = `drain-${uid()}`;
    const up = await flakyUpstream(1500);
    // At most 16 messages of a partition in flight: the signal comes while most are still unread.
    const engine = new EngineProcess(pipeline(topic, group, up.up.url, '15s', 16));
    const code = await interruptAfterFirstRequest(engine, up, 200);
    const log = engine.output();
    assert.equal(code, 0, log);
    assert.equal(reportedUndelivered(log), undefined, log);
    const committed = await assertCommittedDelivered(group, topic, up.delivered, 'after the drain');
    // Everything handed out was delivered before the exit, and the final commit covers it: the
    // committed prefix of each partition is exactly what arrived from it.
    for (let p = 0; p < 2; p++) {
      const c = Math.max(0, committed.get(p) ?? 0);
      const arrived = ALL.filter((id) => up.delivered.has(id) && Math.floor(Number(id.slice(3)) / PER_PARTITION) === p).length;
      assert.equal(arrived, c, `partition ${p}: ${arrived} delivered, committed up to ${c}`);
    }
    const read = up.delivered.size;
    assert.ok(read > 0 && read < N, `something was read before the signal, not everything (${read})`);
    // What is above the committed offsets is still in the topic: a restart delivers all of it.
    const second = await deliverTheRest(topic, group, up.delivered);
    assert.ok(
      [...second].every((id) => !up.delivered.has(id)),
      'the restart resumed at the committed offsets (no redelivery after a clean drain)',
    );
    t.diagnostic(`drained and delivered ${read} of ${N} before exiting 0; the restart delivered the other ${second.size}`);
  });
});
