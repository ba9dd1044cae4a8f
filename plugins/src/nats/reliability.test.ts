/**
 * At least once, end to end, against the real nats-server: the `engine` CLI moves 1,000 messages
 * from one JetStream stream to another (a durable consumer, acked after delivery) and is SIGKILLed
 * mid-run, then restarted. Every message must arrive, and none twice: the output sets
 * `Nats-Msg-Id` to the message's id, and the stream drops a second copy within its duplicate
 * window, which is how a user gets exactly-once out of the at-least-once redelivery.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineProcess, waitFor } from '@svc/engine/testing';
import { NATS_URL, publishAll, readStream, storedIn, tempStream } from './test-support.js';

const TOTAL = 1000;

function pipeline(source: string, sink: string): EngineProcess {
  return new EngineProcess(`http: { enabled: false }
logger: { level: INFO, format: logfmt }
input:
  nats_jetstream:
    urls: [ ${NATS_URL} ]
    subject: ${source}.>
    durable: svc_reliability
    ack_wait: 2s
pipeline:
  threads: 1
  processors:
    # Slow enough that the kill lands mid-run (about 5 s for the whole stream).
    - sleep: { duration: 5ms }
output:
  # Messages wait in the broker's batch, up to 50: acked at the source before delivery, a kill would lose them.
  broker:
    batching: { count: 50, period: 500ms }
    outputs:
      - nats_jetstream:
          urls: [ ${NATS_URL} ]
          subject: ${sink}.copied
          headers:
            Nats-Msg-Id: \${! json("id") }
`);
}

describe('nats_jetstream reliability (1,000 messages, SIGKILL mid-run, restart)', () => {
  it('none lost, none duplicated', async (t) => {
    const source = await tempStream('rel_src');
    const sink = await tempStream('rel_sink');
    await publishAll(`${source}.in`, TOTAL);
    const first = pipeline(source, sink);
    let halfway: number;
    try {
      await waitFor('a fifth through', async () => ((await storedIn(sink)) >= TOTAL / 5 ? true : undefined), 60_000, 20);
      await first.kill();
      halfway = await storedIn(sink);
    } finally {
      if (!first.done) await first.kill();
    }
    assert.ok(halfway < TOTAL, `killed mid-run (${halfway} of ${TOTAL} through)`);
    const second = pipeline(source, sink);
    try {
      await waitFor('the rest through after the restart', async () => ((await storedIn(sink)) >= TOTAL ? true : undefined), 120_000, 100);
      // Redeliveries of what was in flight at the kill come within ack_wait: give them the time to (not) land.
      await new Promise((r) => setTimeout(r, 3000));
    } finally {
      if (!second.done) assert.equal(await second.stop(), 0, second.output().slice(-2000));
    }
    const ids = (await readStream(sink)).map((b) => (JSON.parse(b.toString()) as { id: number }).id);
    assert.equal(new Set(ids).size, TOTAL, `${TOTAL - new Set(ids).size} lost`);
    assert.equal(ids.length, TOTAL, `${ids.length - TOTAL} duplicated`);
    t.diagnostic(`killed with ${halfway} of ${TOTAL} through`);
  });
});
