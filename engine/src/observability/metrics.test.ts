import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ErrorCode, SvcError } from '../errors.js';
import { registry } from '../plugin/registry.js';
import { Stream } from '../runtime/stream.js';
import { StatusBoard } from '../runtime/status.js';
import { ServiceServer } from '../service/http-server.js';
import { parseExposition, sample, samples } from '../testing/prom-text.js';
import { configOf, streamOf, TEST_PLUGIN } from '../testing/run-config.js';
import { seen } from '../testing/test-plugin.js';
import { createLogger, silentLogger, type LogSink } from './logger.js';
import { checkMetric, metricsFor, NOOP_EXPORTER, StreamMetrics } from './metrics.js';
import type { PrometheusExporter } from './prometheus.js';
import { countRateLimitErrors } from './probes.js';
import { RecordingExporter } from './worker-metrics.js';

async function runAndRead(yaml: string): Promise<string> {
  const s = streamOf(yaml);
  await s.run();
  return (s.observability.metrics.exporter as PrometheusExporter).text();
}

const P0 = { path: 'root.pipeline.processors.0' };
const P1 = { path: 'root.pipeline.processors.1' };
const IN = { path: 'root.input' };
const OUT = { path: 'root.output' };

describe('metrics: the runtime counts every component', () => {
  it('counts messages and batches exactly on the main thread (threads: 1)', async () => {
    const text = await runAndRead(`
input: { test_source: { name: m1, count: 250, batch_size: 7 } }
pipeline:
  threads: 1
  processors: [ { test_split: {} } ]
output: { test_sink: { name: m1 } }
`);
    assert.equal(sample(text, 'svc_input_received', { ...IN, label: 'test_source' }), 250);
    assert.equal(sample(text, 'svc_input_batch_received', IN), 36);
    assert.equal(sample(text, 'svc_processor_processed', { ...P0, label: 'test_split' }), 250);
    assert.equal(sample(text, 'svc_processor_batch_processed', P0), 36);
    assert.equal(sample(text, 'svc_processor_dropped', P0), 0);
    assert.equal(sample(text, 'svc_output_sent', { ...OUT, label: 'test_sink' }), 250);
    assert.equal(sample(text, 'svc_output_batch_sent', OUT), 250, 'test_split made batches of one');
    assert.equal(sample(text, 'svc_output_error', OUT), 0);
    assert.equal(sample(text, 'svc_threads_active', { path: 'root.pipeline' }), 1);
  });

  it('counts exactly across worker threads: counts ride back with each batch result', async () => {
    const text = await runAndRead(`
input: { test_source: { name: m2, count: 1000, batch_size: 10 } }
pipeline:
  threads: 2
  processors:
    - label: counted
      test_metric: { kind: x }
    - test_throw: { on: ["5", "17"] }
    - test_drop: { on: ["1", "2", "3"] }
output: { test_sink: { name: m2 } }
`);
    assert.equal(sample(text, 'svc_threads_active', { path: 'root.pipeline' }), 2);
    assert.equal(sample(text, 'svc_processor_processed', { ...P0, label: 'counted' }), 1000);
    assert.equal(sample(text, 'svc_processor_batch_processed', P0), 100);
    // The plugin's own metrics, with the standard labels, from every thread.
    assert.equal(sample(text, 'svc_test_items', { ...P0, label: 'counted', kind: 'x' }), 1000);
    assert.equal(sample(text, 'svc_test_calls', P0), 100);
    // test_throw fails on the batches holding "5" and "17": every message of both is flagged.
    assert.equal(sample(text, 'svc_processor_error', P1), 20);
    assert.equal(sample(text, 'svc_processor_batch_error', P1), 2);
    const P2 = { path: 'root.pipeline.processors.2' };
    assert.equal(sample(text, 'svc_processor_processed', P2), 1000);
    assert.equal(sample(text, 'svc_processor_dropped', P2), 3);
    assert.equal(sample(text, 'svc_processor_batch_dropped', P2), 0);
    // Benthos' names for the same counts: received in, sent on (what was dropped is not sent).
    assert.equal(sample(text, 'svc_processor_received', P2), 1000);
    assert.equal(sample(text, 'svc_processor_batch_received', P2), 100);
    assert.equal(sample(text, 'svc_processor_sent', P2), 997);
    assert.equal(sample(text, 'svc_processor_batch_sent', P2), 100);
    assert.equal(sample(text, 'svc_output_sent', OUT), 997);
    assert.equal(sample(text, 'svc_input_received', IN), 1000);
    assert.equal(sample(text, 'svc_processor_latency_count', P0), 100, 'one timing per batch');
  });

  it('counts a whole batch filtered out as a dropped batch', async () => {
    const text = await runAndRead(`
input: { test_source: { name: m3, count: 6, batch_size: 3 } }
pipeline:
  threads: 1
  processors: [ { test_drop: { on: ["0", "1", "2", "4"] } } ]
output: { test_sink: { name: m3 } }
`);
    assert.equal(sample(text, 'svc_processor_dropped', P0), 4);
    assert.equal(sample(text, 'svc_processor_batch_dropped', P0), 1);
    assert.equal(sample(text, 'svc_output_sent', OUT), 2);
    assert.equal(sample(text, 'svc_input_received', IN), 6);
  });

  it('counts failed writes as output errors, and replays deliver every message once more', async () => {
    const text = await runAndRead(`
input: { test_source: { name: m4, count: 10, batch_size: 2 } }
pipeline: { threads: 1 }
output: { test_sink: { name: m4, fail_writes: 3 } }
`);
    assert.equal(sample(text, 'svc_output_batch_error', OUT), 3);
    assert.equal(sample(text, 'svc_output_error', OUT), 6);
    assert.equal(sample(text, 'svc_output_sent', OUT), 10);
    assert.equal(sample(text, 'svc_input_received', IN), 10, 'replays are not read again');
    assert.equal(sample(text, 'svc_input_latency_count', IN), 5, 'one read→ack timing per transaction');
  });

  it('keeps the input and output of a broker apart, each under its own path', async () => {
    const text = await runAndRead(`
input:
  broker:
    inputs:
      - test_source: { name: b1, count: 4 }
      - test_source: { name: b2, count: 6 }
pipeline: { threads: 1 }
output:
  broker:
    pattern: fan_out
    outputs:
      - test_sink: { name: b1 }
      - label: second
        test_sink: { name: b2 }
`);
    assert.equal(sample(text, 'svc_input_received', { path: 'root.input.broker.inputs.0' }), 4);
    assert.equal(sample(text, 'svc_input_received', { path: 'root.input.broker.inputs.1' }), 6);
    assert.equal(sample(text, 'svc_input_received', { path: 'root.input', label: 'broker' }), 10);
    assert.equal(sample(text, 'svc_output_sent', { path: 'root.output.broker.outputs.0', label: 'test_sink' }), 10);
    assert.equal(sample(text, 'svc_output_sent', { path: 'root.output.broker.outputs.1', label: 'second' }), 10);
  });

  it('exports timers as summaries by default, with quantiles, sum and count', async () => {
    const text = await runAndRead(`
input: { test_source: { name: t1, count: 20, batch_size: 4 } }
pipeline: { threads: 1 }
output: { test_sink: { name: t1 } }
`);
    assert.match(text, /# TYPE svc_output_batch_latency summary/);
    const qs = samples(text, 'svc_output_batch_latency', OUT).map((s) => s.labels.quantile);
    assert.deepEqual(qs, ['0.5', '0.9', '0.99']);
    assert.equal(sample(text, 'svc_output_batch_latency_count', OUT), 5);
    assert.ok(sample(text, 'svc_output_batch_latency_sum', OUT) > 0);
    const p50 = sample(text, 'svc_output_batch_latency', { ...OUT, quantile: '0.5' });
    assert.ok(p50 > 0 && p50 < 1, `p50 ${p50} s`);
  });

  it('exports histograms with use_histogram_timing and histogram_buckets (seconds)', async () => {
    const text = await runAndRead(`
input: { test_source: { name: h1, count: 12, batch_size: 4 } }
pipeline: { threads: 1 }
output: { test_sink: { name: h1, delay_ms: 20 } }
metrics:
  prometheus:
    prefix: hist
    use_histogram_timing: true
    histogram_buckets: [0.001, 0.01, 5]
`);
    assert.match(text, /# TYPE hist_output_batch_latency histogram/);
    const buckets = samples(text, 'hist_output_batch_latency_bucket', OUT);
    assert.deepEqual(
      buckets.map((b) => b.labels.le),
      ['0.001', '0.01', '5', '+Inf'],
    );
    assert.deepEqual(
      buckets.map((b) => b.value),
      [0, 0, 3, 3],
      'each write waited 20 ms',
    );
    assert.equal(sample(text, 'hist_output_batch_latency_count', OUT), 3);
    assert.ok(sample(text, 'hist_output_batch_latency_sum', OUT) >= 0.055);
    assert.equal(sample(text, 'hist_input_received', IN), 12, 'the prefix applies to every metric');
  });

  it('lists every metric name of the stream spec, and process metrics', async () => {
    const text = await runAndRead(`
input: { test_source: { name: l1, count: 1 } }
pipeline: { threads: 1 }
output: { test_sink: { name: l1 } }
`);
    const types = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
    for (const n of ['input_count', 'input_connection_up', 'buffer_available', 'threads_active']) assert.equal(types.get(`svc_${n}`), 'gauge', n);
    for (const n of ['input_received', 'processor_batch_dropped', 'cache_hit', 'buffer_batch_nack', 'resource_rate_limit_error']) {
      assert.equal(types.get(`svc_${n}`), 'counter', n);
    }
    for (const n of ['input_latency', 'condition_batch_latency', 'buffer_latency']) assert.equal(types.get(`svc_${n}`), 'summary', n);
    assert.ok(types.has('process_cpu_user_seconds_total'), 'CPU');
    assert.ok(types.has('process_resident_memory_bytes'), 'memory');
    assert.ok(types.has('nodejs_eventloop_lag_seconds'), 'event loop lag');
  });

  it("counts failed and lost connections under Benthos' names", async () => {
    const text = await runAndRead(`
input: { test_source: { name: c1, count: 5, fail_connects: 2 } }
output: { test_sink: { name: c1, disconnect_writes: 1 } }
`);
    assert.equal(sample(text, 'svc_input_connection_failed', IN), 2);
    assert.equal(sample(text, 'svc_input_connection_lost', IN), 0);
    assert.equal(sample(text, 'svc_output_connection_failed', OUT), 0);
    assert.equal(sample(text, 'svc_output_connection_lost', OUT), 1);
    assert.equal(sample(text, 'svc_output_sent', OUT), 5, 'the write after the loss delivered');
  });

  it('keeps the connection and running gauges', async () => {
    const s = streamOf(`
input: { test_source: { name: g1, count: 3 } }
pipeline: { threads: 1 }
output: { test_sink: { name: g1 } }
`);
    await s.build();
    const exporter = s.observability.metrics.exporter as PrometheusExporter;
    assert.equal(sample(await exporter.text(), 'svc_input_running', IN), 1);
    assert.equal(sample(await exporter.text(), 'svc_output_count', OUT), 1);
    await s.run();
    const text = await exporter.text();
    assert.equal(sample(text, 'svc_input_connection_up', IN), 0, 'closed at the end');
    assert.equal(sample(text, 'svc_input_running', IN), 0);
    assert.equal(sample(text, 'svc_output_running', OUT), 0);
  });

  it("metrics.mapping renames, drops and relabels series as Benthos' does", async () => {
    // Benthos v4.51 on the same mapping (json_api, generate count 5, a mapping processor, drop):
    // {"output_sent{env=\"test\",path=\"root.output\"}":5, "source_received{env=\"test\",path=\"root.input\"}":5, ...}
    // and no processor_* series.
    const text = await runAndRead(`
input: { test_source: { name: mm, count: 5 } }
pipeline: { threads: 1, processors: [ { test_split: {} } ] }
output: { test_sink: { name: mm } }
metrics:
  mapping: |
    root = if this.has_prefix("processor_") { deleted() } else { this.replace_all("input_", "source_") }
    meta label = deleted()
    meta env = "test"
  prometheus: {}
`);
    assert.equal(sample(text, 'svc_source_received', { env: 'test', path: 'root.input' }), 5);
    assert.equal(sample(text, 'svc_output_sent', { env: 'test', path: 'root.output' }), 5);
    assert.match(text, /^svc_output_sent\{env="test",path="root\.output"\} 5$/m, 'labels as mapped: label dropped, env added, names sorted');
    assert.doesNotMatch(text, /^svc_processor_/m, 'dropped');
    assert.doesNotMatch(text, /^svc_input_received/m, 'renamed');
  });

  it('counts nothing and adds no probe with metrics: none', async () => {
    const s = streamOf(`
input: { test_source: { name: n1, count: 3 } }
pipeline: { threads: 2, processors: [ { test_metric: {} } ] }
output: { test_sink: { name: n1 } }
metrics: { none: {} }
`);
    await s.run();
    assert.equal(s.observability.active, false);
    assert.equal(s.observability.metrics.enabled, false);
  });
});

describe('metrics: served, pushed and written', () => {
  it('serves /metrics on the service-wide server, and writes file_path at shutdown', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-metrics-'));
    const file = join(dir, 'sub', 'metrics.prom');
    const status = new StatusBoard();
    const service = new ServiceServer(
      {
        enabled: true,
        address: '127.0.0.1:0',
        root_path: '/svc',
        debug_endpoints: false,
        cert_file: '',
        key_file: '',
        cors: { enabled: false, allowed_origins: [] },
        basic_auth: { enabled: false, realm: 'restricted', username: '', password_hash: '', algorithm: 'sha256', salt: '' },
      },
      { status, logger: silentLogger, version: 'test' },
    );
    await service.start();
    try {
      const s = new Stream({
        config: configOf(`
input: { test_source: { name: f1, count: 40, batch_size: 8 } }
pipeline: { threads: 1 }
output: { test_sink: { name: f1 } }
metrics: { metricsexp: { file_path: ${JSON.stringify(file)} } }
`),
        registry: registry(),
        logger: silentLogger,
        plugins: [TEST_PLUGIN],
        service,
        status,
      });
      await s.build();
      const { port } = service.address();
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const before = await res.text();
      assert.equal(sample(before, 'svc_input_received', IN), 0);
      assert.equal((await fetch(`http://127.0.0.1:${port}/svc/metrics`)).status, 200, 'also under root_path');
      await s.run();
      const written = await readFile(file, 'utf8');
      assert.equal(sample(written, 'svc_input_received', IN), 40);
      assert.equal(sample(written, 'svc_output_batch_sent', OUT), 5);
      assert.equal((await fetch(`http://127.0.0.1:${port}/metrics`)).status, 404, 'unmounted once the stream closed');
    } finally {
      await service.close();
    }
  });

  it('pushes with basic auth to push_url under push_job_name, and once more at shutdown', async () => {
    const pushes: Array<{ method?: string; url?: string; auth?: string; body: string }> = [];
    const gw = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        pushes.push({ method: req.method, url: req.url, auth: req.headers.authorization, body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => gw.listen(0, '127.0.0.1', r));
    try {
      const port = (gw.address() as AddressInfo).port;
      await runAndRead(`
input: { test_source: { name: p1, count: 30, batch_size: 3 } }
pipeline: { threads: 1 }
output: { test_sink: { name: p1, delay_ms: 10 } }
metrics:
  prometheus:
    push_url: http://127.0.0.1:${port}
    push_interval: 20ms
    push_job_name: my_job
    push_basic_auth: { enabled: true, username: user, password: "p@ss" }
`);
      assert.ok(pushes.length >= 2, `pushed ${pushes.length} times`);
      for (const p of pushes) {
        assert.equal(p.method, 'PUT');
        assert.equal(p.url, '/metrics/job/my_job');
        assert.equal(p.auth, `Basic ${Buffer.from('user:p@ss').toString('base64')}`);
      }
      const last = pushes.at(-1)!;
      assert.equal(sample(last.body, 'svc_output_sent', OUT), 30, 'the last push, at shutdown, holds the final counts');
    } finally {
      await new Promise((r) => gw.close(r));
    }
  });

  it('logs an unreachable Pushgateway (rate-limited) and never stalls the stream', async () => {
    const lines: string[] = [];
    const sink: LogSink = { write: (l) => void lines.push(l) };
    const s = new Stream({
      config: configOf(`
input: { test_source: { name: u1, count: 20, batch_size: 1 } }
pipeline: { threads: 1 }
output: { test_sink: { name: u1, delay_ms: 5 } }
metrics: { prometheus: { push_url: "http://127.0.0.1:1", push_interval: 5ms } }
`),
      registry: registry(),
      logger: createLogger({ level: 'WARN' }, sink),
      plugins: [TEST_PLUGIN],
    });
    await s.run();
    assert.equal(seen.delivered.get('u1')!.flat().length, 20, 'the stream ran to its end with every message delivered');
    const failures = lines.filter((l) => l.includes('Failed to push metrics'));
    assert.equal(failures.length, 1, `one report per 30 s, got ${failures.length}: ${failures.join('')}`);
    assert.match(failures[0]!, /127\.0\.0\.1:1/);
  });
});

describe('metrics: the plugin API', () => {
  it('checks names and labels, and says what to change', () => {
    assert.doesNotThrow(() => checkMetric('gateway_requests', ['api_id', 'status']));
    assert.throws(
      () => checkMetric('bad-name'),
      (e: unknown) => e instanceof SvcError && e.code === ErrorCode.Metrics && /bad-name/.test(e.message),
    );
    assert.throws(() => checkMetric('9lives'), /invalid metric name/);
    assert.throws(() => checkMetric('ok', ['path']), /reserved/);
    assert.throws(() => checkMetric('ok', ['__x']), /invalid label name/);
    assert.throws(() => checkMetric('ok', ['a', 'a']), /twice/);
  });

  it('binds the standard labels, caches children, and refuses conflicting declarations', () => {
    const m = new StreamMetrics(NOOP_EXPORTER);
    const a = m.forComponent('root.pipeline.processors.0', 'gw');
    const c = a.counter('requests', { labels: ['status'] });
    assert.equal(c.labels('200'), c.labels('200'), 'one child per label values');
    assert.throws(() => c.inc(), /has labels \[status\]: call \.labels/);
    assert.throws(() => c.labels('200', 'extra'), /takes 1 label value/);
    assert.throws(() => a.gauge('requests'), /already declared as a counter/);
    assert.throws(() => a.counter('requests', { labels: ['code'] }), /already declared/);
    assert.throws(() => a.gauge('input_received'), /standard counter/);
    assert.doesNotThrow(() => a.counter('input_received').inc(0), 'a standard counter can be fed by a plugin');
    const t = a.timer('work');
    const stop = t.start();
    stop();
  });

  it('metricsFor gives hand-built contexts metrics that validate and count nothing', () => {
    const m = metricsFor({ path: 'root.x', label: 'x' });
    m.counter('fine').inc(3);
    assert.throws(() => m.counter('not fine'), /invalid metric name/);
  });

  it('refuses to start a stream whose plugin declares a bad metric, naming it', async () => {
    const s = streamOf(`
input: { test_source: { name: bad1, count: 1 } }
pipeline:
  threads: 1
  processors: [ { test_metric: { name: "bad name!" } } ]
output: { test_sink: { name: bad1 } }
`);
    await assert.rejects(s.build(), (e: unknown) => e instanceof SvcError && e.code === ErrorCode.Metrics && /bad name!/.test(e.message));
  });

  it('passes the key and cost of an access through the error counter', () => {
    const seen: Array<[string | undefined, number | undefined]> = [];
    const rl = countRateLimitErrors(
      {
        access(key?: string, cost?: number) {
          seen.push([key, cost]);
          return 0;
        },
      },
      new StreamMetrics(new RecordingExporter(0)),
      'root.rate_limit_resources.0',
      'api',
    );
    rl.access();
    rl.access('api-1', 3);
    assert.deepEqual(seen, [
      [undefined, undefined],
      ['api-1', 3],
    ]);
  });

  it('counts failed accesses of a rate limit resource', async () => {
    const rec = new RecordingExporter(7);
    const m = new StreamMetrics(rec);
    let n = 0;
    const rl = countRateLimitErrors(
      {
        access() {
          if (++n % 2 === 0) throw new Error('backend down (test)');
          return n === 3 ? Promise.reject(new Error('async down (test)')) : 0;
        },
      },
      m,
      'root.rate_limit_resources.0',
      'api',
    );
    assert.equal(rl.access(), 0);
    assert.throws(() => rl.access(), /backend down/);
    await assert.rejects(Promise.resolve(rl.access()), /async down/);
    const d = rec.drain()!;
    assert.equal(d.thread, 7);
    const def = d.defs!.find((x) => x.name === 'resource_rate_limit_error')!;
    assert.deepEqual(def.values, ['root.rate_limit_resources.0', 'api']);
    assert.deepEqual(d.counts, [def.id, 2]);
  });

  it('parses its own exposition text (test helper sanity)', () => {
    const parsed = parseExposition('# HELP a x\n# TYPE a counter\na{path="p",label="l"} 3\nb 1.5e-7\n');
    assert.deepEqual(parsed, [
      { name: 'a', labels: { path: 'p', label: 'l' }, value: 3 },
      { name: 'b', labels: {}, value: 1.5e-7 },
    ]);
  });
});
