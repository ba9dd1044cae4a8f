// A CPU-heavy processor (JSON parse + re-serialise of 1 KB messages): threads 2 vs threads 1.
import { join } from 'node:path';
import { ROOT, engineRate, fmt, processorConfig } from './lib.mjs';

const doc = {};
for (let i = 0; doc && JSON.stringify(doc).length < 1000; i++) doc[`field_${i}`] = `value number ${i} of the document`;
const DOC = JSON.stringify(doc);
const PLUGIN = join(ROOT, 'bench', 'plugins', 'json-roundtrip.mjs');

function cfg(name, count, threads) {
  return processorConfig(name, { plugins: [PLUGIN], mapping: `root = ${DOC}`, count, threads, processor: 'bench_json_roundtrip: {}' });
}

export async function run({ quick = false } = {}) {
  const n = quick ? 300_000 : 1_500_000;
  const rates = {};
  for (const threads of [1, 2]) {
    rates[threads] = engineRate((c, startup) => cfg(startup ? `cpu-startup-${threads}` : `cpu-${threads}`, c, threads), n);
  }
  const speedup = rates[2] / rates[1];
  return [
    {
      bench: 'JSON parse + re-serialise of 1 KB messages, threads 2',
      result: `${fmt(rates[2])} msg/s`,
      baseline: `threads 1 ${fmt(rates[1])} msg/s`,
      ratio: speedup,
      target: '≥ 1.7× on 2 cores',
      pass: speedup >= 1.7,
    },
  ];
}
