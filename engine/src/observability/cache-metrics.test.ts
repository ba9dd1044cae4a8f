/**
 * A cache resource's metrics, with Benthos' names: what a stream's cache operations count, at
 * threads 1 and (for a main-thread cache, counted once where it lives) threads 2.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseExposition, sample } from '../testing/prom-text.js';
import { streamOf } from '../testing/run-config.js';
import type { PrometheusExporter } from './prometheus.js';

async function run(threads: number): Promise<ReturnType<typeof parseExposition>> {
  const name = `cm${threads}`;
  const s = streamOf(`
input:
  broker:
    inputs:
      - test_source: { name: ${name}a, count: 10, batch_size: 2 }
      - test_source: { name: ${name}b, count: 10, batch_size: 5 }
pipeline:
  threads: ${threads}
  dispatch: pool
  processors: [ { test_first_seen: { resource: keys } } ]
output: { test_sink: { name: ${name} } }
cache_resources:
  - label: keys
    test_map: {}
`);
  await s.run();
  return parseExposition(await (s.observability.metrics.exporter as PrometheusExporter).text());
}

describe('cache metrics', () => {
  for (const threads of [1, 2]) {
    it(`counts each add as cache_success or cache_duplicate (operation add), threads ${threads}`, async () => {
      const m = await run(threads);
      const labels = { path: 'root.cache_resources.0', label: 'keys', operation: 'add' };
      assert.equal(sample(m, 'svc_cache_success', labels), 10, 'ten keys added once');
      assert.equal(sample(m, 'svc_cache_duplicate', labels), 10, 'and found again from the other input');
      assert.equal(sample(m, 'svc_cache_latency_count', { path: 'root.cache_resources.0', label: 'keys' }), 20);
    });
  }
});
