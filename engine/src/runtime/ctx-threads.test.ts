/**
 * A processor sees the same ctx at any thread count: crossing values reach it on a worker and
 * what it sets comes back; main-thread-only values stay (a live object, never cloned) and are
 * there again after the hop, at the output and at the ack; results stored or answered on a worker
 * reach the input's result store, and an answered message skips the rest and the output.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { streamOf } from '../testing/run-config.js';
import { seen, type CtxAtAck } from '../testing/test-plugin.js';

const bodyText = (r: unknown) => {
  const a = r as { status: number; body?: Uint8Array };
  return `${a.status} ${a.body ? Buffer.from(a.body).toString() : ''}`;
};

async function runAt(threads: number): Promise<{ acks: CtxAtAck[]; outputs: string[] }> {
  const name = `ctx${threads}`;
  const s = streamOf(`
input: { test_ctx_source: { name: ${name}, texts: [ a, answer, store, drop, b ] } }
pipeline:
  threads: ${threads}
  dispatch: pool
  processors: [ { test_ctx_probe: {} }, { test_drop: { on: [ drop ] } } ]
output: { test_ctx_sink: { name: ${name} } }
`);
  await s.run();
  return { acks: seen.ctxAtAck.get(name)!, outputs: seen.ctxAtOutput.get(name)! };
}

describe('ctx across threads', () => {
  it('a processor sees the same crossing ctx at threads 1 and 2; main-only values stay and are re-attached', async () => {
    const one = await runAt(1);
    const two = await runAt(2);
    for (const [threads, r] of [
      [1, one],
      [2, two],
    ] as const) {
      const onWorker = threads > 1;
      assert.deepEqual(
        r.acks.map((a) => [a.text, a.tenant, a.seen, a.live]),
        ['a', 'answer', 'store', 'drop', 'b'].map((t, i) => [t, `tenant-${i}`, `tenant=tenant-${i} live=${!onWorker} worker=${onWorker}`, `live-${i}`]),
        `threads ${threads}: the crossing value reached the processor, its write came back, the live value stayed`,
      );
      assert.deepEqual(
        r.acks.map((a) => a.results.map(bodyText)),
        [[], ['201 answered'], ['200 stored store'], ['200 stored drop'], []],
        `threads ${threads}: results stored or answered (also on a message filtered later) reach the store`,
      );
      assert.deepEqual(
        r.outputs,
        ['a tenant=tenant-0 seen=true live=live-0', 'store tenant=tenant-2 seen=true live=live-2', 'b tenant=tenant-4 seen=true live=live-4'],
        `threads ${threads}: the answered and the dropped message skip the output; the output sees the whole ctx`,
      );
    }
    // The same ctx, but for where the main-only value is visible (only on the main thread).
    const crossing = (r: { acks: CtxAtAck[] }) => r.acks.map((a) => [a.tenant, a.seen?.replace(/ live=.*$/, ''), a.results.map(bodyText)]);
    assert.deepEqual(crossing(one), crossing(two));
  });
});
