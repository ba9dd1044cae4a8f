/**
 * The json_api and logger metrics exporters through the `engine` CLI. The keys and log lines
 * expected are those Benthos v4.51 gave for the same config (metrics `json_api: {}` read with
 * `curl 127.0.0.1:4195/metrics`; `logger: {}` printed at shutdown): `/tmp/peers/bin/benthos -c <config>`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { waitFor } from '../testing/services.js';
import { runEngine } from '../components/parse/cli-run.js';

const ENGINE = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-local-metrics-'));

const PIPELINE = `input:
  label: in
  stdin: {}
pipeline:
  threads: 1
  processors:
    - label: upper
      mapping: 'root = content().uppercase()'
    - label: count
      metric: { type: counter, name: hits, labels: { city: "Zürich \\"q\\"" } }
output:
  label: out
  drop: {}
`;

describe('metrics json_api and logger (engine CLI, against Benthos v4.51)', () => {
  it('json_api serves every series as one JSON object at /metrics and /stats, keyed as Benthos keys them', async () => {
    const cfg = join(dir, 'json-api.yaml');
    writeFileSync(cfg, `http: { address: "127.0.0.1:0" }\nlogger: { level: INFO, format: json }\n${PIPELINE}metrics:\n  json_api: {}\n`);
    const child = spawn(process.execPath, [ENGINE, '-c', cfg], { cwd: dir, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.stdin.write('a\nb\nc\nd\ne\nf\ng\n');
    try {
      const port = await waitFor('the service HTTP server', async () => Number(/"address":"127\.0\.0\.1:(\d+)"/.exec(stderr)?.[1]) || undefined, 20_000, 20);
      const doc = await waitFor(
        'seven messages to be counted',
        async () => {
          const d = (await (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) })).json()) as Record<string, unknown>;
          return d['output_sent{label="out",path="root.output"}'] === 7 ? d : undefined;
        },
        20_000,
        50,
      );
      assert.equal(doc['input_received{label="in",path="root.input"}'], 7);
      assert.equal(doc['input_connection_up{label="in",path="root.input"}'], 1);
      // a label value quoted as Go's strconv.QuoteToASCII, labels sorted by name
      assert.equal(doc['hits{city="Z\\u00fcrich \\"q\\"",label="count",path="root.pipeline.processors.1"}'], 7);
      for (const key of [
        'input_latency_ns{label="in",path="root.input"}',
        'output_latency_ns{label="out",path="root.output"}',
        'processor_latency_ns{label="upper",path="root.pipeline.processors.0"}',
      ]) {
        const t = doc[key] as { p50: number; p90: number; p99: number };
        assert.deepEqual(Object.keys(t), ['p50', 'p90', 'p99'], key);
        assert.ok(t.p50 > 0 && t.p50 <= t.p90 && t.p90 <= t.p99, `${key}: ${JSON.stringify(t)}`);
      }
      const stats = await fetch(`http://127.0.0.1:${port}/stats`);
      assert.equal(stats.headers.get('content-type'), 'application/json');
      assert.equal(((await stats.json()) as Record<string, unknown>)['input_received{label="in",path="root.input"}'], 7);
    } finally {
      child.stdin.end();
      await new Promise((r) => child.once('exit', r));
    }
  });

  it('logger prints each counter and timer at shutdown as Benthos does (name, value; p50, p90, p99 in ns)', async () => {
    const r = await runEngine(
      `http: { enabled: false }\nlogger: { level: INFO, format: logfmt }\n${PIPELINE}metrics:\n  logger: { flush_metrics: true }\n`,
      'a\nb\nc\n',
    );
    assert.equal(r.code, 0, r.stderr);
    const lines = (r.stdout + r.stderr).split('\n');
    assert.ok(
      lines.some((l) => /msg="Counter metric".* name=input_received value=3\b/.test(l)),
      r.stderr,
    );
    assert.ok(
      lines.some((l) => /msg="Counter metric".* name=output_sent value=3\b/.test(l)),
      r.stderr,
    );
    assert.ok(
      lines.some((l) => /msg="Counter metric".* name=hits value=3\b/.test(l)),
      r.stderr,
    );
    assert.equal(lines.filter((l) => /msg="Counter metric".* name=input_received /.test(l)).length, 1);
    const timing = lines.find((l) => /msg="Timing metric".* name=processor_latency_ns /.test(l));
    assert.match(timing ?? '', / p50=[0-9.e+]+ p90=[0-9.e+]+ p99=[0-9.e+]+/);
  });
});
