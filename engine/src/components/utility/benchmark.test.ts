import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runEngine } from '../parse/cli-run.js';

const config = (countBytes: boolean) => `http: { enabled: false }
input:
  generate:
    count: 1000
    interval: ''
    mapping: 'root = "0123456789"'
pipeline:
  threads: 2
  processors:
    - benchmark: { interval: 0s, count_bytes: ${countBytes} }
output:
  drop: {}
`;

// Benthos v4.51 for the same config logged (rates vary with the machine):
//   level=info msg="total stats: 15267.750153 msg/sec, 153 kB/sec" @service=benthos bytes/sec=152677.50152734757 label="" msg/sec=15267.750152734756 path=root.pipeline.processors.0
test('benchmark logs its total once at shutdown, counting every message of every thread once (engine CLI)', async () => {
  const r = await runEngine(config(true));
  assert.equal(r.code, 0, r.stderr);
  const lines = (r.stdout + r.stderr).split('\n').filter((l) => l.includes('stats:'));
  assert.equal(lines.length, 1, lines.join('\n'));
  const m = /msg="total stats: ([\d.]+) msg\/sec, [\d.]+ [kMG]?B\/sec" .*path=root\.pipeline\.processors\.0.* msg\/sec=([\d.e+]+) bytes\/sec=([\d.e+]+)/.exec(
    lines[0]!,
  );
  assert.ok(m, lines[0]);
  // 10 bytes per message: what it counted, whatever the rate
  assert.ok(Math.abs(Number(m[3]) / Number(m[2]) - 10) < 1e-9, lines[0]);

  const plain = await runEngine(config(false));
  assert.match(plain.stdout + plain.stderr, /msg="total stats: [\d.]+ msg\/sec" /);
});
