/**
 * 1,000 messages through the `engine` CLI and back, on the real Redis, across a restart of the
 * engine in the middle of the run:
 *
 * - redis_streams (a consumer group) → redis_list, the engine SIGKILLed: nothing is lost (the
 *   restarted engine, same client_id, reads its pending entries again); only what was delivered
 *   and not yet acknowledged at the kill arrives twice.
 * - the same, stopped gracefully (SIGINT) and restarted: every message exactly once.
 * - redis_list → redis_list stopped gracefully and restarted: every message exactly once (a list
 *   has no acknowledgement, so a crash would lose what was popped: not promised, not tested).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitFor, EngineProcess } from '@svc/engine/testing';
import { REDIS_URL, listOf, redis, tempKey } from './test-support.js';

const TOTAL = 1_000;

function streamsPipeline(source: string, sink: string): string {
  return `http: { enabled: false }
logger: { level: INFO, format: logfmt }
input:
  redis_streams:
    url: ${REDIS_URL}
    streams: [ ${source} ]
    consumer_group: svc
    client_id: svc-1
    limit: 10
    commit_period: 200ms
pipeline:
  threads: 1
  processors:
    - sleep: { duration: 20ms }
    - mapping: 'root = content().string() + "!"'
output:
  redis_list:
    url: ${REDIS_URL}
    key: ${sink}
`;
}

function listPipeline(source: string, sink: string): string {
  return `http: { enabled: false }
logger: { level: INFO, format: logfmt }
input:
  redis_list:
    url: ${REDIS_URL}
    key: ${source}
    timeout: 200ms
pipeline:
  threads: 1
  processors:
    - sleep: { duration: 100ms }
output:
  redis_list:
    url: ${REDIS_URL}
    key: ${sink}
`;
}

async function length(list: string): Promise<number> {
  return Number(await (await redis()).send(['LLEN', list]));
}

async function pending(stream: string): Promise<number> {
  const r = await (await redis()).send<[number]>(['XPENDING', stream, 'svc']);
  return Number(r[0]);
}

async function fillStream(stream: string): Promise<void> {
  const r = await redis();
  await Promise.all(Array.from({ length: TOTAL }, (_, i) => r.send(['XADD', stream, '*', 'body', `m${i}`])));
}

/**
 * Runs the pipeline until `atLeast` messages reached the sink (distinct ones with `distinct`: a
 * redelivery must not count for the original still unread), then ends it with `how`.
 */
async function runUntil(yaml: string, sink: string, atLeast: number, how: 'kill' | 'stop', distinct = false): Promise<void> {
  const engine = new EngineProcess(yaml);
  try {
    await waitFor(
      `${atLeast} messages in the sink`,
      async () => {
        if (engine.done) throw new Error(`the engine exited: ${engine.output().slice(-2000)}`);
        const n = distinct ? (await sinkCount(sink)).distinct.size : await length(sink);
        return n >= atLeast ? true : undefined;
      },
      60_000,
      20,
    );
    if (how === 'kill') await engine.kill();
    else assert.equal(await engine.stop(), 0, engine.output().slice(-2000));
  } finally {
    if (!engine.done) await engine.kill();
  }
}

/** The sink's contents: distinct messages and the total. */
async function sinkCount(sink: string): Promise<{ distinct: Set<string>; total: number }> {
  const all = await listOf(sink);
  return { distinct: new Set(all), total: all.length };
}

describe('redis reliability: 1,000 messages across an engine restart', () => {
  it('redis_streams: SIGKILL mid-run, restart: none lost, only the unacknowledged in flight again', async (t) => {
    const source = tempKey('rel-kill-src');
    const sink = tempKey('rel-kill-sink');
    await fillStream(source);
    await runUntil(streamsPipeline(source, sink), sink, 200, 'kill');
    const atKill = await length(sink);
    assert.ok(atKill < TOTAL, `killed mid-run (${atKill} of ${TOTAL} through)`);
    const left = await pending(source);
    assert.ok(left > 0, 'the kill left entries pending (read, not acknowledged)');
    await runUntil(streamsPipeline(source, sink), sink, TOTAL, 'stop', true);
    const { distinct, total } = await sinkCount(sink);
    assert.equal(distinct.size, TOTAL, `${TOTAL - distinct.size} message(s) lost`);
    assert.ok(total - TOTAL <= left, `${total - TOTAL} duplicates, more than the ${left} pending at the kill`);
    assert.equal(await pending(source), 0, 'all acknowledged at the end');
    t.diagnostic(`killed with ${atKill} through and ${left} pending; ${total} delivered in all, ${total - TOTAL} twice`);
  });

  it('redis_streams: SIGINT mid-run, restart: every message exactly once', async () => {
    const source = tempKey('rel-stop-src');
    const sink = tempKey('rel-stop-sink');
    await fillStream(source);
    await runUntil(streamsPipeline(source, sink), sink, 200, 'stop');
    const atStop = await length(sink);
    assert.ok(atStop < TOTAL, `stopped mid-run (${atStop} of ${TOTAL} through)`);
    assert.equal(await pending(source), 0, 'a graceful stop acknowledges what it delivered');
    await runUntil(streamsPipeline(source, sink), sink, TOTAL, 'stop');
    const { distinct, total } = await sinkCount(sink);
    assert.equal(distinct.size, TOTAL);
    assert.equal(total, TOTAL, `${total - TOTAL} duplicates`);
  });

  it('redis_list: SIGINT mid-run, restart: every message exactly once', async () => {
    const source = tempKey('rel-list-src');
    const sink = tempKey('rel-list-sink');
    await (await redis()).send(['RPUSH', source, ...Array.from({ length: TOTAL }, (_, i) => `m${i}`)]);
    await runUntil(listPipeline(source, sink), sink, 200, 'stop');
    const atStop = await length(sink);
    assert.ok(atStop < TOTAL, `stopped mid-run (${atStop} of ${TOTAL} through)`);
    assert.equal(atStop + (await length(source)), TOTAL, 'what was not delivered is back in the source');
    await runUntil(listPipeline(source, sink), sink, TOTAL, 'stop');
    const { distinct, total } = await sinkCount(sink);
    assert.equal(distinct.size, TOTAL);
    assert.equal(total, TOTAL, `${total - TOTAL} duplicates`);
    assert.equal(await length(source), 0);
  });
});
