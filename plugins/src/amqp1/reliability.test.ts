/**
 * At least once, end to end, with the real RabbitMQ over AMQP 1.0: the `engine` CLI moves 1,000
 * messages from one queue to another (`amqp_1` input → `amqp_1` output) and
 *
 * - is SIGKILLed mid-run, then restarted: every message arrives; only the messages the output had
 *   written and the input had not yet accepted at the kill arrive twice, since RabbitMQ has no
 *   de-duplication (counted from the broker once the dead connection is gone: what reached the
 *   sink less what left the source; about `credit` of them, more when accepts were still in the
 *   killed process's socket);
 * - is stopped gracefully (SIGINT) mid-run, then restarted: every message exactly once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineProcess, waitFor } from '@svc/engine/testing';
import { RABBITMQ_URL, consumers, depth, distinctIn, fill, queueAddress, tempQueue } from './test-support.js';

const TOTAL = 1000;
const CREDIT = 50;

function pipeline(source: string, sink: string): EngineProcess {
  return new EngineProcess(`http: { enabled: false }
logger: { level: INFO, format: logfmt }
input:
  amqp_1:
    urls: [ "${RABBITMQ_URL}" ]
    source_address: ${queueAddress(source)}
    credit: ${CREDIT}
pipeline:
  threads: 1
  processors:
    # Slow enough that the stop lands mid-run (about 5 s for the whole queue).
    - sleep: { duration: 5ms }
output:
  amqp_1:
    urls: [ "${RABBITMQ_URL}" ]
    target_address: ${queueAddress(sink)}
    persistent: true
`);
}

interface Run {
  /** Messages in the sink once the first engine was gone. */
  halfway: number;
  /** Of those, how many the source had not seen accepted (they are back in the source). */
  unaccepted: number;
  distinct: number;
  total: number;
}

async function run(stop: 'kill' | 'stop'): Promise<Run> {
  const source = await tempQueue(`rel-${stop}-src`);
  const sink = await tempQueue(`rel-${stop}-sink`);
  await fill(source, TOTAL);
  const first = pipeline(source, sink);
  try {
    await waitFor('a fifth through', async () => ((await depth(sink)) >= TOTAL / 5 ? true : undefined), 60_000, 20);
    if (stop === 'kill') await first.kill();
    else assert.equal(await first.stop(), 0, first.output().slice(-2000));
  } finally {
    if (!first.done) await first.kill();
  }
  // The broker puts back what the dead connection held unaccepted when it sees the connection go.
  await waitFor('the first engine gone from the source', async () => ((await consumers(source)) === 0 ? true : undefined), 30_000, 20);
  const halfway = await depth(sink);
  const unaccepted = halfway - (TOTAL - (await depth(source)));
  assert.ok(halfway < TOTAL, `stopped mid-run (${halfway} of ${TOTAL} through)`);
  const second = pipeline(source, sink);
  try {
    await waitFor('the source drained', async () => ((await depth(source)) === 0 && (await depth(sink)) >= TOTAL ? true : undefined), 120_000, 100);
  } finally {
    if (!second.done) assert.equal(await second.stop(), 0, second.output().slice(-2000));
  }
  assert.equal(await depth(source), 0, 'every message accepted at the source');
  const { distinct, total } = await distinctIn(sink);
  return { halfway, unaccepted, distinct: distinct.size, total };
}

describe('amqp_1 reliability (1,000 messages, engine stopped mid-run, restart)', () => {
  it('SIGKILL: none lost; duplicates at most what was unaccepted at the kill', async (t) => {
    const r = await run('kill');
    assert.equal(r.distinct, TOTAL, `${TOTAL - r.distinct} lost`);
    assert.ok(r.total - TOTAL <= r.unaccepted, `${r.total - TOTAL} duplicated, more than the ${r.unaccepted} written and not accepted at the kill`);
    t.diagnostic(`killed with ${r.halfway} of ${TOTAL} through, ${r.unaccepted} of them unaccepted (credit ${CREDIT}); ${r.total - TOTAL} delivered twice`);
  });

  it('SIGINT: none lost, none duplicated', async (t) => {
    const r = await run('stop');
    assert.equal(r.distinct, TOTAL, `${TOTAL - r.distinct} lost`);
    assert.equal(r.total, TOTAL, `${r.total - TOTAL} duplicated`);
    t.diagnostic(`stopped with ${r.halfway} of ${TOTAL} through`);
  });
});
