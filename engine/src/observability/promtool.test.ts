/**
 * /metrics as Prometheus' own linter and Benthos' dashboards read it, from a real `engine streams`
 * process running two streams whose components have the same paths:
 *
 * - every series carries `stream` (Benthos' streams-mode label), so the two never add up;
 * - every timer is there twice: in seconds under the name docs/spec/streams.md gives it, and under Benthos' `*_ns` name
 *   (a summary in nanoseconds), with the same count;
 * - `promtool check metrics` (Debian's prometheus package) reports nothing but what the names
 *   forbid, listed in ALLOWED: the spec's counters without `_total` and its `*_count` gauges, and
 *   Benthos' `*_ns` timers ("abbreviated units").
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../testing/free-port.js';
import { parseExposition, sample } from '../testing/prom-text.js';
import { waitFor } from '../testing/services.js';
import { STANDARD_METRICS } from './metric-names.js';

const ENGINE = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PROMTOOL = [join(ROOT, '.services/prometheus/bin/promtool'), '/usr/bin/promtool'].find((p) => existsSync(p));

/** The promtool problems the names forbid fixing, by rule: `true` when `name` may break `rule`. */
const ALLOWED: Record<string, (name: string) => boolean> = {
  // The spec's counters (docs/spec/streams.md) are named as Benthos names them: input_received, not input_received_total.
  'counter metrics should have "_total" suffix': (n) => STANDARD_METRICS[n.replace(/^svc_/, '')]?.type === 'counter',
  // The spec's gauges input_count, output_count, processor_count ... (active components).
  'non-histogram and non-summary metrics should not have "_count" suffix': (n) => STANDARD_METRICS[n.replace(/^svc_/, '')]?.type === 'gauge',
  // Benthos' timer names (input_latency_ns), kept beside the spec's seconds for Benthos' dashboards.
  'metric names should not contain abbreviated units': (n) =>
    n.endsWith('_latency_ns') && STANDARD_METRICS[n.replace(/^svc_/, '').slice(0, -3)]?.type === 'timer',
};

const dir = mkdtempSync(join(tmpdir(), 'svc-promtool-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe(
  '/metrics for Prometheus and Benthos users (engine streams, promtool)',
  { skip: PROMTOOL === undefined && 'promtool not found (apt-get install prometheus)' },
  () => {
    it('labels each stream, adds *_ns timers beside the seconds, and passes promtool but for the names', async () => {
      const port = await freePort();
      writeFileSync(join(dir, 'obs.yaml'), `http: { address: 127.0.0.1:${port} }\nlogger: { level: WARN }\nmetrics:\n  prometheus: {}\n`);
      const stream = (n: number): string =>
        `input:\n  generate: { mapping: 'root = "x"', interval: 1ms, count: ${n} }\npipeline:\n  processors:\n    - mapping: root = content().uppercase()\noutput:\n  drop: {}\n`;
      writeFileSync(join(dir, 'three.yaml'), stream(3));
      writeFileSync(join(dir, 'five.yaml'), stream(5));
      const child = spawn(process.execPath, [ENGINE, 'streams', '--no-api', '-o', join(dir, 'obs.yaml'), join(dir, 'three.yaml'), join(dir, 'five.yaml')], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let log = '';
      for (const s of [child.stdout, child.stderr]) s.on('data', (d: Buffer) => (log += d.toString()));
      try {
        const text = await waitFor(
          'both streams to have sent everything',
          async () => {
            if (child.exitCode !== null) throw new Error(`engine exited ${child.exitCode}: ${log}`);
            const body = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
            const sent = parseExposition(body).filter((s) => s.name === 'svc_output_sent');
            return sent.reduce((a, s) => a + s.value, 0) === 8 ? body : undefined;
          },
          30_000,
        );

        assert.equal(sample(text, 'svc_input_received', { path: 'root.input', stream: 'three' }), 3);
        assert.equal(sample(text, 'svc_input_received', { path: 'root.input', stream: 'five' }), 5);
        for (const stream of ['three', 'five']) {
          const labels = { path: 'root.output', stream };
          assert.equal(sample(text, 'svc_output_latency_ns_count', labels), sample(text, 'svc_output_latency_count', labels));
          const ns = sample(text, 'svc_output_latency_ns_sum', labels);
          const s = sample(text, 'svc_output_latency_sum', labels);
          assert.ok(Math.abs(ns - s * 1e9) <= 1e-6 * ns, `svc_output_latency_ns_sum ${ns} is svc_output_latency_sum ${s} in nanoseconds`);
        }
        assert.ok(!/^nodejs_active_\w+_total/m.test(text), 'no gauge named like a counter');

        const check = spawnSync(PROMTOOL!, ['check', 'metrics'], { input: text, encoding: 'utf8' });
        const problems = `${check.stdout}${check.stderr}`
          .split('\n')
          .filter(Boolean)
          .map((line) => {
            const [name, ...rest] = line.split(' ');
            return { name: name!, rule: rest.join(' ') };
          });
        const unexpected = problems.filter((p) => !ALLOWED[p.rule]?.(p.name));
        assert.deepEqual(unexpected, [], 'promtool problems the names do not explain');
        assert.ok(problems.length > 0, 'promtool ran and reported the names listed in ALLOWED');
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
      }
    });
  },
);
