// Three engine processes (generate → rate_limit → stdout), one limit: with the `redis` kind they
// admit the limit per interval between them; the same three with `local` limits admit one limit
// each, about three times as much, which the first test's bound would not let through.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { serviceAddress, waitFor, EngineProcess } from '@svc/engine/testing';

const COUNT = 20;
const INTERVAL_MS = 500;
/** How long the arrivals are counted, once all three processes deliver: six intervals. */
const SPAN_MS = 6 * INTERVAL_MS;

function yaml(id: number, resource: string): string {
  return `http: { enabled: false }
logger: { level: WARN }
input:
  generate: { mapping: 'root = "p${id}"', interval: '', count: 0, batch_size: 1 }
pipeline:
  threads: 1
  processors: [ { rate_limit: { resource: shared } } ]
output: { stdout: {} }
rate_limit_resources:
  - label: shared
    ${resource}
`;
}

/** Runs three engines on the resource; the lines each printed within SPAN_MS after all three delivered. */
async function admittedBy3(resource: string): Promise<number[]> {
  const procs = [1, 2, 3].map((id) => new EngineProcess(yaml(id, resource)));
  const arrivals: number[][] = [[], [], []];
  procs.forEach((p, i) =>
    p.child.stdout!.on('data', (d: Buffer) => {
      const now = Date.now();
      for (const ch of d) if (ch === 0x0a) arrivals[i]!.push(now);
    }),
  );
  try {
    await waitFor(
      'all three engines to deliver',
      async () => {
        const dead = procs.find((p) => p.done);
        if (dead) throw new Error(`an engine exited: ${dead.output()}`);
        return arrivals.every((a) => a.length > 0) ? true : undefined;
      },
      30_000,
      20,
    );
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, SPAN_MS));
    return arrivals.map((a) => a.filter((t) => t >= t0 && t < t0 + SPAN_MS).length);
  } finally {
    await Promise.all(procs.map((p) => p.stop(10_000)));
  }
}

describe('redis rate limit shared by three engine processes', () => {
  // A span of six intervals overlaps at most seven fixed windows; one more for lines still in
  // the pipes at its start. A limit per process would admit 3 × 6 × COUNT = 360.
  const bound = (6 + 2) * COUNT;

  it(`admits about count per interval between them (at most ${(6 + 2) * COUNT} in six intervals, not three times that)`, async (t) => {
    const key = `svc-test:rl-processes:${randomUUID()}`;
    const admitted = await admittedBy3(`redis: { url: ${serviceAddress('SVC_REDIS_URL')}, count: ${COUNT}, interval: ${INTERVAL_MS}ms, key: '${key}' }`);
    const total = admitted.reduce((a, b) => a + b, 0);
    t.diagnostic(`redis: ${admitted.join(' + ')} = ${total}`);
    assert.ok(total <= bound, `three processes admitted ${total} (${admitted.join(' + ')}) in six intervals of ${COUNT}`);
    assert.ok(total >= 4 * COUNT, `the limit still admits: ${total} (${admitted.join(' + ')})`);
  });

  it('the same three with a local limit each admit well over that bound (the check above tells them apart)', async (t) => {
    const admitted = await admittedBy3(`local: { count: ${COUNT}, interval: ${INTERVAL_MS}ms }`);
    const total = admitted.reduce((a, b) => a + b, 0);
    t.diagnostic(`local: ${admitted.join(' + ')} = ${total}`);
    assert.ok(total > bound, `three local limits admitted ${total} (${admitted.join(' + ')}), expected over ${bound}`);
  });
});
