/**
 * Metrics and tracing through the `engine` CLI with the built-in components: the default
 * Prometheus exporter serves /metrics while the stream runs and writes `file_path` at exit.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { sample } from '../testing/prom-text.js';
import { waitFor } from '../testing/services.js';

const ENGINE = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-obs-cli-'));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('engine CLI: metrics', () => {
  it('writes file_path at exit with the exact counts of a pooled pipeline', () => {
    const out = join(dir, 'metrics.prom');
    const cfg = file(
      'm.yaml',
      `http: { enabled: false }
logger: { level: WARN }
input:
  generate: { mapping: 'root = this.or("x")', interval: '', count: 5000, batch_size: 50 }
pipeline:
  threads: 2
  processors:
    - mapping: 'root = if count("c") % 10 == 0 { deleted() } else { this }'
output:
  drop: {}
metrics:
  prometheus: { file_path: ${JSON.stringify(out)} }
`,
    );
    const r = spawnSync(process.execPath, [ENGINE, '-c', cfg], { encoding: 'utf8', timeout: 60_000, cwd: dir });
    assert.equal(r.status, 0, r.stderr);
    const text = readFileSync(out, 'utf8');
    assert.equal(sample(text, 'svc_input_received', { path: 'root.input', label: 'generate' }), 5000);
    const P = { path: 'root.pipeline.processors.0', label: 'mapping' };
    assert.equal(sample(text, 'svc_processor_processed', P), 5000);
    // count() is per thread: each worker drops every tenth message it sees.
    const dropped = sample(text, 'svc_processor_dropped', P);
    assert.ok(dropped >= 490 && dropped <= 510, `dropped ${dropped}`);
    assert.equal(sample(text, 'svc_output_sent', { path: 'root.output' }), 5000 - dropped);
    assert.equal(sample(text, 'svc_threads_active', { path: 'root.pipeline' }), 2);
  });

  it('serves /metrics on the service-wide server while running', async () => {
    const cfg = file(
      'serve.yaml',
      `http: { address: "127.0.0.1:0" }
logger: { level: INFO, format: json }
input:
  generate: { mapping: 'root = "x"', interval: 5ms, count: 0 }
output:
  drop: {}
`,
    );
    const child = spawn(process.execPath, [ENGINE, '-c', cfg], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    try {
      const port = await waitFor(
        'the service HTTP server to listen',
        async () => {
          const m = /"address":"127\.0\.0\.1:(\d+)"/.exec(stderr);
          return m ? Number(m[1]) : undefined;
        },
        20_000,
        20,
      );
      const received = await waitFor(
        'some messages to be counted',
        async () => {
          const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) });
          const v = sample(await res.text(), 'svc_input_received', { path: 'root.input' });
          return v >= 3 ? v : undefined;
        },
        20_000,
        50,
      );
      assert.ok(received >= 3);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });
});
