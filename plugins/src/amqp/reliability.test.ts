/**
 * At least once, end to end, with the real RabbitMQ: a stream queue → mapping → queue run by the
 * `engine` CLI (a) is SIGKILLed in the middle of 100,000 messages and restarted, and (b) loses
 * the broker for 10 s (a TcpOutage between the engine and RabbitMQ). Every message must arrive
 * in the output queue at least once: the distinct ids are counted.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor, EngineProcess, TcpOutage } from '@svc/engine/testing';
import { AMQP_PLUGIN, RABBITMQ_URL, brokerTarget, depth, distinctIn, fill, tempQueue, urlOnPort } from './test-support.js';

/** A stream from `source` to `sink` that rewrites each message (keeping its id). */
function pipeline(url: string, source: string, sink: string): string {
  return `http: { enabled: false }
logger: { level: INFO, format: logfmt }
input:
  amqp_0_9:
    urls: [ "${url}" ]
    queue: ${source}
    prefetch_count: 500
pipeline:
  threads: 1
  processors:
    - mapping: |
        root.id = this.id
        root.seen_by = "svc"
output:
  amqp_0_9:
    urls: [ "${url}" ]
    exchange: ""
    key: ${sink}
    content_type: application/json
`;
}

/**
 * Waits until the source queue is drained and the sink holds at least `atLeast` messages, then
 * stops the engine gracefully (exit 0). What it had read is delivered and acked by then; but
 * deliveries the broker had already pushed (prefetched) and the engine had not read yet go back
 * to the queue when its channel closes: RabbitMQ requeues them, nothing is lost. (The sink count
 * includes redeliveries, so it can reach `atLeast` while originals are still prefetched.) Those
 * are drained by another run, as a restart would, until the source stays empty.
 */
async function drain(engine: EngineProcess, source: string, sink: string, atLeast: number, again: () => EngineProcess): Promise<void> {
  let run = engine;
  for (let round = 0; ; round++) {
    try {
      await waitFor(
        'the source queue drained and the sink complete',
        async () => ((await depth(source)) === 0 && (await depth(sink)) >= atLeast ? true : undefined),
        90_000,
        250,
      );
      assert.equal(await run.stop(), 0, run.output().slice(-2000));
    } finally {
      if (!run.done) await run.kill();
    }
    const left = await depth(source);
    if (left === 0) return;
    assert.ok(round < 3, `${left} message(s) still in the source after ${round + 1} graceful runs`);
    run = again();
  }
}

describe('amqp_0_9 reliability', () => {
  it('at least once across a SIGKILL in the middle of 100,000 messages', async (t) => {
    const total = 100_000;
    const source = await tempQueue('kill-source');
    const sink = await tempQueue('kill-sink');
    await fill(source, total);
    const first = new EngineProcess(pipeline(RABBITMQ_URL, source, sink), ['--plugin', AMQP_PLUGIN]);
    try {
      await waitFor('a fifth of the messages through', async () => ((await depth(sink)) >= total / 5 ? true : undefined), 60_000, 50);
      await first.kill();
    } finally {
      if (!first.done) await first.kill();
    }
    const halfway = await depth(sink);
    assert.ok(halfway < total, `the engine was killed mid-stream (${halfway} of ${total} through)`);
    const second = new EngineProcess(pipeline(RABBITMQ_URL, source, sink), ['--plugin', AMQP_PLUGIN]);
    try {
      await drain(second, source, sink, total, () => new EngineProcess(pipeline(RABBITMQ_URL, source, sink), ['--plugin', AMQP_PLUGIN]));
    } finally {
      if (!second.done) await second.kill();
    }
    const { distinct, total: delivered } = await distinctIn(sink);
    assert.equal(distinct.size, total, `${total - distinct.size} message(s) lost`);
    for (let i = 0; i < total; i += 9973) assert.ok(distinct.has(i));
    // Redeliveries are allowed (at least once), but only of what was in flight at the kill.
    assert.ok(delivered - total < 10_000, `${delivered - total} duplicates`);
    t.diagnostic(`killed with ${halfway} of ${total} through; ${delivered} delivered in all, ${delivered - total} redelivered`);
  });

  it('the broker goes away for 10 s mid-stream: the stream resumes and nothing is lost', async (t) => {
    const total = 30_000;
    const source = await tempQueue('outage-source');
    const sink = await tempQueue('outage-sink');
    await fill(source, total);
    const outage = new TcpOutage(brokerTarget());
    const port = await outage.start();
    const engine = new EngineProcess(pipeline(urlOnPort(port), source, sink), ['--plugin', AMQP_PLUGIN]);
    try {
      await waitFor('some messages through', async () => ((await depth(sink)) >= 3_000 ? true : undefined), 60_000, 50);
      const before = await depth(sink);
      assert.ok(before < total, 'the outage starts mid-stream');
      const accepted = outage.accepted;
      outage.cut(10_000);
      await new Promise((r) => setTimeout(r, 5_000));
      // Nothing gets through while the broker is away.
      const during = await depth(sink);
      assert.ok(during - before < 1_000, `${during - before} messages arrived during the outage`);
      await drain(engine, source, sink, total, () => new EngineProcess(pipeline(urlOnPort(port), source, sink), ['--plugin', AMQP_PLUGIN]));
      assert.ok(outage.accepted > accepted, 'the engine reconnected through the proxy');
      assert.match(engine.output(), /Lost connection, reconnecting/);
    } finally {
      if (!engine.done) await engine.kill();
      await outage.stop();
    }
    const { distinct, total: delivered } = await distinctIn(sink);
    assert.equal(distinct.size, total, `${total - distinct.size} message(s) lost`);
    t.diagnostic(`${delivered} delivered in all, ${delivered - total} redelivered after the outage`);
  });
});
