/**
 * The worker round trip, one pool task at a time: contents, metadata and error flags encoded and
 * decoded, results split into batches, each result message re-attached to its origin's ctx,
 * crossing ctx writes and results applied on this thread, metric counts sent back, a processor
 * that throws flagging its batch, and a ctx value that cannot be cloned refused with a reason.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { contextKey } from '../message/context.js';
import { Message } from '../message/message.js';
import { ResultStore } from '../message/result-store.js';
import { Observability } from '../observability/observability.js';
import type { MetricsDelta } from '../observability/worker-metrics.js';
import { NOOP_EXPORTER } from '../observability/metrics.js';
import { TEST_PLUGIN, configOf } from '../testing/run-config.js';
import { TEST_LIVE, TEST_SEEN, TEST_TENANT } from '../testing/test-plugin.js';
import { WorkerPool } from './worker-pool.js';

/** Keeps what workers send back for metrics. */
class CapturingObservability extends Observability {
  readonly deltas: MetricsDelta[] = [];
  override fromWorker(delta: MetricsDelta): void {
    this.deltas.push(delta);
  }
}

const UNCLONABLE = contextKey<() => void>('test.pool.unclonable', { crossesThreads: true });

describe('worker pool round trip', () => {
  const processors = configOf(`
input: { test_source: {} }
pipeline:
  processors:
    - test_ctx_probe: {}
    - test_throw: { on: [ boom ] }
    - test_split: {}
    - test_metric: { kind: rt }
output: { test_sink: {} }
`).pipeline.processors;
  const obs = new CapturingObservability(NOOP_EXPORTER);
  const pool = new WorkerPool(
    1,
    {
      plugins: [TEST_PLUGIN],
      processors,
      resources: {},
      scope: 'test',
      shared: [],
      logger: { level: 'NONE' } as never,
      telemetry: { metrics: true, tracing: false },
    },
    obs,
  );
  after(() => pool.close());

  it('carries contents, metadata and flags, re-attaches ctx, applies crossing writes and results', async () => {
    await pool.start();
    const texts = ['a', 'answer', 'drop', 'b'];
    const batch = texts.map((t, i) => new Message(t, { i: String(i), nested: { n: i } }));
    batch[3]!.error = 'failed earlier';
    const store = new ResultStore(batch);
    const live = batch.map((_, i) => () => `live-${i}`);
    batch.forEach((m, i) => {
      m.ctx.set(TEST_TENANT, `t${i}`);
      m.ctx.set(TEST_LIVE, live[i]!);
    });
    const out = await pool.process(batch);
    // test_split makes batches of one and drops "drop"; the answered message left after the probe.
    assert.deepEqual(
      out.map((b) => b.map((m) => m.text())),
      [['a'], ['b']],
    );
    const [a, b] = [out[0]![0]!, out[1]![0]!];
    assert.deepEqual(a.metaObject(), { i: '0', nested: { n: 0 } });
    assert.equal(a.error, undefined);
    assert.equal(b.error, 'failed earlier', 'a flag crosses both ways');
    assert.equal(a.ctx, batch[0]!.ctx, 'the result message shares its origin’s ctx');
    assert.equal(b.ctx.get(TEST_LIVE), live[3], 'the main-only value is the same object');
    assert.equal(a.ctx.get(TEST_SEEN), 'tenant=t0 live=false worker=true');
    assert.equal(batch[2]!.ctx.get(TEST_SEEN), 'tenant=t2 live=false worker=true', 'writes come back for a filtered message too');
    assert.deepEqual(
      store.results().map((r) => {
        const x = r as { status: number; body: Uint8Array };
        return [x.status, Buffer.from(x.body).toString()];
      }),
      [
        [201, 'answered'],
        [200, 'stored drop'],
      ],
    );
    const names = obs.deltas.flatMap((d) => d.defs ?? []).map((d) => d.name);
    assert.ok(names.includes('test_items'), `the worker's counts came back (${names.join(', ')})`);
  });

  it('flags every message of a batch its processor threw on, and refuses an unclonable crossing value', async () => {
    const out = await pool.process([new Message('boom'), new Message('x')]);
    assert.deepEqual(
      out.flat().map((m) => `${m.text()}:${m.error}`),
      ['boom:boom (test)', 'x:boom (test)'],
    );
    const m = new Message('x');
    m.ctx.set(UNCLONABLE, () => {});
    await assert.rejects(pool.process([m]), /ctx value cannot cross .* structured-clonable/);
  });
});
