/**
 * Against the real Prometheus and Pushgateway (Debian's packages) that `scripts/services.sh up`
 * starts: Prometheus scrapes the stream's /metrics, and reads back what the stream pushed.
 * Every wait is bounded polling; Prometheus' first scrape of a new target lands seconds after.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { parseAddress } from '../http/address.js';
import { ServiceServer } from '../service/http-server.js';
import { registry } from '../plugin/registry.js';
import { Stream } from '../runtime/stream.js';
import { StatusBoard } from '../runtime/status.js';
import { sample } from '../testing/prom-text.js';
import { fetchWithin, serviceAddress, waitFor } from '../testing/services.js';
import { configOf, TEST_PLUGIN } from '../testing/run-config.js';
import { silentLogger } from './logger.js';

const PROMETHEUS = serviceAddress('SVC_PROMETHEUS_URL');
const PUSHGATEWAY = serviceAddress('SVC_PUSHGATEWAY_URL');
const TARGET = serviceAddress('SVC_METRICS_TARGET_ADDRESS');

/** The value of a PromQL query with one result, or undefined while it has none. */
async function query(promql: string): Promise<number | undefined> {
  const res = await fetchWithin(`${PROMETHEUS}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await res.json()) as { status: string; data: { result: Array<{ value: [number, string] }> } };
  assert.equal(body.status, 'success');
  if (body.data.result.length === 0) return undefined;
  assert.equal(body.data.result.length, 1, `one series for ${promql}`);
  return Number(body.data.result[0]!.value[1]);
}

/** Polls a query until it returns `expected` (bounded). */
function until(promql: string, expected: number, timeoutMs = 40_000): Promise<number> {
  return waitFor(
    `Prometheus to report ${promql} = ${expected}`,
    async () => {
      const v = await query(promql);
      return v === expected ? v : undefined;
    },
    timeoutMs,
    250,
  );
}

describe('Prometheus (real server, from scripts/services.sh)', () => {
  before(async () => {
    await waitFor(
      `Prometheus at ${PROMETHEUS} and the Pushgateway at ${PUSHGATEWAY} (start them with scripts/services.sh up)`,
      async () => {
        const [a, b] = await Promise.all([fetchWithin(`${PROMETHEUS}/-/ready`, {}, 2000), fetchWithin(`${PUSHGATEWAY}/-/ready`, {}, 2000)]);
        return a.ok && b.ok ? true : undefined;
      },
      15_000,
    );
  });

  it('scrapes /metrics of a running stream and reports the exact counts', async () => {
    const run = `scrape_${randomBytes(4).toString('hex')}`;
    const status = new StatusBoard();
    const { host, port } = parseAddress(TARGET);
    const service = new ServiceServer(
      {
        enabled: true,
        address: `${host}:${port}`,
        root_path: '/svc',
        debug_endpoints: false,
        cert_file: '',
        key_file: '',
        cors: { enabled: false, allowed_origins: [] },
        basic_auth: { enabled: false, realm: 'restricted', username: '', password_hash: '', algorithm: 'sha256', salt: '' },
      },
      { status, logger: silentLogger, version: 'test' },
    );
    // The scrape target's port is fixed (Prometheus' config names it): another test run on this
    // machine may hold it for a while, so wait for it (bounded) rather than fail.
    await waitFor(
      `port ${port} (Prometheus' scrape target) to be free`,
      () =>
        service.start().then(
          () => true,
          (err: unknown) => {
            if (!/EADDRINUSE/.test(String((err as Error).message))) throw err;
            return undefined;
          },
        ),
      60_000,
      500,
    );
    try {
      const s = new Stream({
        config: configOf(`
input:
  label: ${run}
  test_source: { name: ${run}, count: 1234, batch_size: 17, hold: true }
pipeline:
  threads: 2
  processors:
    - label: ${run}_p
      test_metric: { kind: scraped }
output:
  label: ${run}_out
  test_sink: { name: ${run} }
`),
        registry: registry(),
        logger: silentLogger,
        plugins: [TEST_PLUGIN],
        service,
        status,
      });
      const running = s.run();
      try {
        // The input holds after its messages: the stream keeps serving /metrics while Prometheus scrapes.
        assert.equal(await until(`svc_input_received{job="svc_engine",label="${run}"}`, 1234), 1234);
        assert.equal(await until(`svc_input_batch_received{label="${run}"}`, 73), 73);
        assert.equal(await until(`svc_output_sent{label="${run}_out"}`, 1234), 1234);
        assert.equal(await until(`svc_processor_processed{label="${run}_p",path="root.pipeline.processors.0"}`, 1234), 1234);
        assert.equal(await until(`svc_test_items{label="${run}_p",kind="scraped"}`, 1234), 1234);
        assert.equal(await until(`svc_output_connection_up{label="${run}_out"}`, 1), 1);
      } finally {
        assert.equal(await s.stop(10_000), true);
        await running;
      }
    } finally {
      await service.close();
    }
  });

  it('pushes to the Pushgateway, periodically and at shutdown, and Prometheus reads the series back', async () => {
    const job = `svc_test_${randomBytes(4).toString('hex')}`;
    const s = new Stream({
      config: configOf(`
input: { test_source: { name: ${job}, count: 500, batch_size: 10, hold: true } }
pipeline: { threads: 1 }
output: { test_sink: { name: ${job} } }
metrics:
  prometheus:
    push_url: ${PUSHGATEWAY}
    push_interval: 200ms
    push_job_name: ${job}
`),
      registry: registry(),
      logger: silentLogger,
      plugins: [TEST_PLUGIN],
    });
    const running = s.run();
    try {
      // Pushed while running ...
      await waitFor(
        `the Pushgateway to hold job ${job}`,
        async () => {
          const text = await (await fetchWithin(`${PUSHGATEWAY}/metrics`)).text();
          return text.includes(`job="${job}"`) && sample(text, 'svc_output_sent', { job, path: 'root.output' }) === 500 ? true : undefined;
        },
        15_000,
      );
      // ... and read back through Prometheus (honor_labels keeps the pushed job label).
      assert.equal(await until(`svc_input_received{job="${job}",path="root.input"}`, 500), 500);
      assert.equal(await until(`svc_output_batch_sent{job="${job}"}`, 50), 50);
      assert.equal(await s.stop(10_000), true);
      await running;
      // The push at shutdown carries the final state: the input is no longer running.
      const text = await (await fetchWithin(`${PUSHGATEWAY}/metrics`)).text();
      assert.equal(sample(text, 'svc_input_running', { job, path: 'root.input' }), 0);
      assert.equal(await until(`svc_input_running{job="${job}"}`, 0), 0);
    } finally {
      await s.stop(1000);
      await running;
      await fetchWithin(`${PUSHGATEWAY}/metrics/job/${job}`, { method: 'DELETE' }).catch(() => undefined);
    }
  });
});
