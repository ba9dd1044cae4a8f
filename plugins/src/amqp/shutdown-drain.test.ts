/**
 * End to end with the real RabbitMQ: SIGINT while the amqp_0_9 input's messages cannot be
 * delivered (an http_client output whose upstream fails). A failed write is handed back to the
 * broker (requeued), so the drain may end with exit 0 once everything read was handed back, or
 * with exit 1 naming what it could not settle in time; either way no message the upstream never
 * answered 2xx is acknowledged at the broker: it is still in the queue, and a second engine run
 * delivers it. Real engine processes, real signals.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineProcess, flakyUpstream, httpClientOutput, interruptAfterFirstRequest, reportedUndelivered, until } from '@svc/engine/testing';
import { RABBITMQ_URL, depth, fill, takeAll, tempQueue } from './test-support.js';

const N = 200;
const ALL = Array.from({ length: N }, (_, i) => `id-${i}`);

function pipeline(queue: string, upstreamUrl: string, shutdownTimeout: string): string {
  return `http: { enabled: false }
logger: { level: INFO }
shutdown_timeout: ${shutdownTimeout}
input:
  amqp_0_9:
    urls: [ "${RABBITMQ_URL}" ]
    queue: ${queue}
    prefetch_count: 20
${httpClientOutput(upstreamUrl)}`;
}

/** A fresh queue holding id-0…id-199. */
async function filled(prefix: string): Promise<string> {
  const queue = await tempQueue(prefix);
  await fill(queue, N, (i) => `id-${i}`);
  return queue;
}

/** Exit 0 without a report, or exit 1 with one (and no goodbye): never a silent exit over something owed. */
function assertHonestExit(code: number | null, log: string): number | undefined {
  const owed = reportedUndelivered(log);
  if (code === 0) {
    assert.equal(owed, undefined, log);
  } else {
    assert.equal(code, 1, log);
    assert.ok(owed !== undefined && owed > 0 && owed <= N, `exit 1 says how many messages it could not deliver\n${log}`);
    assert.doesNotMatch(log, /Goodbye/);
  }
  return owed;
}

describe('amqp_0_9 input: SIGINT while the output fails (engine CLI, real broker and upstream)', { timeout: 180_000 }, () => {
  for (const signalAfterMs of [0, 500, 1500]) {
    it(`an upstream down for good, SIGINT at +${signalAfterMs} ms → nothing acked, every message back in the queue, a restart delivers all ${N}`, async (t) => {
      const queue = await filled('drain-down');
      const up = await flakyUpstream(Infinity);
      const engine = new EngineProcess(pipeline(queue, up.up.url, '1s'));
      const code = await interruptAfterFirstRequest(engine, up, signalAfterMs);
      const owed = assertHonestExit(code, engine.output());
      assert.equal(up.delivered.size, 0);
      // Nothing was delivered, so nothing may be acked: once the engine's connection is gone, every
      // message is ready in the queue again (requeued by a nack, or released with the channel).
      await until(`all ${N} messages back in the queue`, async () => (await depth(queue)) === N, 10_000);

      const healthy = await flakyUpstream(0);
      const second = new EngineProcess(pipeline(queue, healthy.up.url, '10s'));
      try {
        await until('every message delivered', () => ALL.every((id) => healthy.delivered.has(id)), 60_000, second);
        await until('the queue drained', async () => (await depth(queue)) === 0, 10_000, second);
        assert.equal(await second.stop(30_000), 0, second.output());
      } finally {
        if (!second.done) await second.kill();
        await healthy.up.close();
      }
      assert.equal(await depth(queue), 0, 'the second run acked everything');
      t.diagnostic(
        `first run: exit ${code}${owed === undefined ? '' : `, ${owed} message(s) reported undelivered`}; second run delivered ${healthy.delivered.size}`,
      );
    });
  }

  it('an upstream back after 1.5 s, SIGINT at +200 ms → exit 0; delivered and still queued cover every message', async (t) => {
    const queue = await filled('drain-back');
    const up = await flakyUpstream(1500);
    const engine = new EngineProcess(pipeline(queue, up.up.url, '15s'));
    const code = await interruptAfterFirstRequest(engine, up, 200);
    const log = engine.output();
    assert.equal(code, 0, log);
    assert.equal(reportedUndelivered(log), undefined, log);
    // Counted by distinct id: a batch that partly succeeded before its nack is both delivered and requeued.
    const left = (await takeAll(queue)).map((m) => m.content.toString());
    const covered = new Set([...up.delivered, ...left]);
    const lost = ALL.filter((id) => !covered.has(id));
    assert.deepEqual(lost, [], `${lost.length} message(s) neither delivered nor in the queue`);
    t.diagnostic(`exit 0: ${up.delivered.size} delivered, ${left.length} still in the queue`);
  });

  it('a slow upstream (300 ms an answer), SIGINT at +100 ms → exit 0; the writes in flight are delivered and acked, the rest is still queued', async (t) => {
    const queue = await filled('drain-slow');
    const up = await flakyUpstream(0, 300);
    const engine = new EngineProcess(pipeline(queue, up.up.url, '15s'));
    const code = await interruptAfterFirstRequest(engine, up, 100);
    const log = engine.output();
    assert.equal(code, 0, log);
    assert.ok(up.delivered.size > 0, 'the writes in flight at the signal were delivered during the drain');
    const left = (await takeAll(queue)).map((m) => m.content.toString());
    const lost = ALL.filter((id) => !up.delivered.has(id) && !left.includes(id));
    assert.deepEqual(lost, [], `${lost.length} message(s) neither delivered nor in the queue`);
    // Their acks reached the broker before the channel closed: none of them comes back.
    const twice = left.filter((id) => up.delivered.has(id));
    assert.deepEqual(twice, [], 'a message delivered during the drain was left in the queue (its ack was lost)');
    t.diagnostic(`exit 0: ${up.delivered.size} delivered during the drain, ${left.length} still in the queue`);
  });
});
