/**
 * The `memory` and `system_window` buffers through the `engine` CLI. Expected outputs are what
 * Benthos v4.51 printed for the same config and input (`/tmp/peers/bin/benthos -c <config>`).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { runEngine } from '../components/parse/cli-run.js';
import { waitFor } from '../testing/services.js';

const ENGINE = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-buffers-'));

const generate = (items: string[]) =>
  `  generate: { count: ${items.length}, interval: '', mapping: 'root = ${JSON.stringify(items).replace(/'/g, "''")}.index(count("g") - 1)' }`;

describe('buffers (engine CLI, against Benthos v4.51)', () => {
  it('memory with batch_policy groups what it stored into batches of count, the last one at the end of input', async () => {
    const r = await runEngine(
      `http: { enabled: false }\nlogger: { level: none }\ninput:\n${generate(['a', 'b', 'c', 'd', 'e'])}\nbuffer:\n  memory:\n    limit: 1000\n    batch_policy: { enabled: true, count: 3 }\npipeline:\n  threads: 1\n  processors:\n    - mapping: 'root = content().string() + " n=" + batch_size().string() + " i=" + batch_index().string()'\noutput:\n  stdout: {}\n`,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'a n=3 i=0\nb n=3 i=1\nc n=3 i=2\nd n=2 i=0\ne n=2 i=1\n');
  });

  it('memory drops a batch larger than its limit and delivers the rest in order', async () => {
    const r = await runEngine(
      `http: { enabled: false }\nlogger: { level: none }\ninput:\n${generate(['a', 'b'.repeat(20), 'c', 'd'.repeat(10)])}\nbuffer:\n  memory: { limit: 10 }\noutput:\n  stdout: {}\n`,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'a\nc\ndddddddddd\n');
  });

  it('memory acks the input once stored: an HTTP request is answered 200 though the output cannot deliver', async () => {
    const cfg = join(dir, 'memory-http.yaml');
    // port 9 (discard) refuses on loopback: the output never delivers
    writeFileSync(
      cfg,
      `http: { address: "127.0.0.1:0" }\nlogger: { level: INFO, format: json }\ninput:\n  http_server: { path: /post }\nbuffer:\n  memory: {}\noutput:\n  http_client: { url: http://127.0.0.1:9/nowhere, verb: POST, retries: 0 }\n`,
    );
    const child = spawn(process.execPath, [ENGINE, '-c', cfg], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    try {
      const port = await waitFor('the service HTTP server', async () => Number(/"address":"127\.0\.0\.1:(\d+)"/.exec(stderr)?.[1]) || undefined, 20_000, 20);
      await waitFor('the input', async () => (stderr.includes('Input is now active') ? true : undefined), 20_000, 20);
      const res = await fetch(`http://127.0.0.1:${port}/post`, { method: 'POST', body: 'hello', signal: AbortSignal.timeout(15_000) });
      assert.equal(res.status, 200);
      await waitFor('the output to fail on it', async () => (stderr.includes('ECONNREFUSED') ? true : undefined), 20_000, 50);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
  });

  it('system_window delivers each window of event time as one batch with window_end_timestamp, and drops what is too old', async () => {
    const cfg = join(dir, 'window.yaml');
    writeFileSync(
      cfg,
      `http: { enabled: false }\nlogger: { level: INFO, format: logfmt }\ninput:\n  stdin: {}\nbuffer:\n  system_window:\n    timestamp_mapping: root = this.ts\n    size: 2s\npipeline:\n  threads: 1\n  processors:\n    - mapping: 'root = this.id + " n=" + batch_size().string() + " end=" + meta("window_end_timestamp")'\noutput:\n  stdout: {}\n`,
    );
    const child = spawn(process.execPath, [ENGINE, '-c', cfg], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    try {
      await waitFor('the input', async () => (err.includes('Input is now active') ? true : undefined), 20_000, 20);
      // Timestamps in the window the clock is in (W, W+2s], the next one, and an hour ago.
      const W = Math.floor(Date.now() / 2000) * 2000;
      const line = (id: string, ms: number) => JSON.stringify({ id, ts: ms / 1000 }) + '\n';
      child.stdin.write(line('m1', W + 300) + line('m2', W + 600) + line('m3', W + 2500) + line('old', W - 3_600_000));
      await waitFor('two windows', async () => (out.split('\n').length >= 4 ? true : undefined), 20_000, 50);
      const end = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
      assert.equal(out, `m1 n=2 end=${end(W + 2000)}\nm2 n=2 end=${end(W + 2000)}\nm3 n=1 end=${end(W + 4000)}\n`);
    } finally {
      child.stdin.end();
      await new Promise((r) => child.once('exit', r));
    }
  });

  it('system_window refuses a slide that is not lower than the size, in Benthos words', async () => {
    const r = await runEngine(`http: { enabled: false }\ninput:\n  stdin: {}\nbuffer:\n  system_window: { size: 2s, slide: 3s }\noutput:\n  stdout: {}\n`);
    assert.notEqual(r.code, 0);
    assert.match(r.stdout + r.stderr, /invalid window slide '3s' must be lower than the size '2s'/);
  });
});
