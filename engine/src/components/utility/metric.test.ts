import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../testing/free-port.js';
import { waitFor } from '../../testing/services.js';

// Benthos v4.51 with the same pipeline (json_api metrics, the core build has no prometheus) gave:
//   docs_total{type="a"} 2, docs_total{type="b"} 1, bytes_by 8 (its counters hold integers: 1.5+3+4.5
//   truncated per add), last_n 3, took_ns p50 2000000, bad 0, and for each message:
//   level=error msg="Handler error: strconv.ParseFloat: parsing \"x1\": invalid syntax"
test('metric processor: counter, counter_by, gauge and timing with interpolated labels (engine CLI)', async (t) => {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'svc-metric-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const config = join(dir, 'metric.yaml');
  writeFileSync(
    config,
    `http: { address: 127.0.0.1:${port} }
input:
  stdin: {}
pipeline:
  threads: 1
  processors:
    - metric: { type: counter, name: docs_total, labels: { type: '\${! this.t }' } }
    - metric: { type: counter_by, name: bytes_by, value: '\${! this.n * 1.5 }' }
    - metric: { type: gauge, name: last_n, value: '\${! this.n }' }
    - metric: { type: timing, name: took_ns, value: '\${! this.n * 1000000 }' }
    - metric: { type: gauge, name: bad, value: 'x\${! this.n }' }
output:
  drop: {}
metrics:
  prometheus: {}
logger: { level: error }
`,
  );
  const child = spawn(process.execPath, [fileURLToPath(new URL('../../cli/main.js', import.meta.url)), '-c', config], { stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => child.kill('SIGKILL'));
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  child.stdin.write('{"n":1,"t":"a"}\n{"n":2,"t":"b"}\n{"n":3,"t":"a"}\n');
  const text = await waitFor('the three messages counted', async () => {
    const r = await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => undefined);
    const body = r?.ok ? await r.text() : '';
    return body.includes('svc_took_ns_count{path="root.pipeline.processors.3",label="metric"} 3') ? body : undefined;
  });
  child.stdin.end();
  assert.equal(await exited, 0, output);
  const series = text.split('\n').filter((l) => /^svc_(docs_total|bytes_by|last_n|took_ns_sum|took_ns_count|bad)\{/.test(l));
  assert.deepEqual(series.sort(), [
    'svc_bad{path="root.pipeline.processors.4",label="metric"} 0',
    'svc_bytes_by{path="root.pipeline.processors.1",label="metric"} 9',
    'svc_docs_total{path="root.pipeline.processors.0",label="metric",type="a"} 2',
    'svc_docs_total{path="root.pipeline.processors.0",label="metric",type="b"} 1',
    'svc_last_n{path="root.pipeline.processors.2",label="metric"} 3',
    'svc_took_ns_count{path="root.pipeline.processors.3",label="metric"} 3',
    'svc_took_ns_sum{path="root.pipeline.processors.3",label="metric"} 0.006',
  ]);
  assert.equal(output.match(/level=error msg="Handler error: strconv\.ParseFloat: parsing \\"x\d\\": invalid syntax"/g)?.length, 3, output);
});
