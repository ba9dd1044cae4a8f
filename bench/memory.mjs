// Memory: peak RSS of a long generate → drop run stays flat over time (no leak).
import { config, sampleRss } from './lib.mjs';

export async function run({ quick = false } = {}) {
  const count = quick ? 20_000_000 : 100_000_000;
  const cfg = config(
    'memory',
    `http: { enabled: false }
logger: { level: WARN }
input:
  generate: { mapping: 'root = "${'x'.repeat(100)}"', interval: '', count: ${count}, batch_size: 100 }
pipeline: { threads: 1 }
output: { drop: {} }
`,
  );
  const samples = await sampleRss(cfg);
  if (samples.length < 8) throw new Error(`too few RSS samples (${samples.length}): the run was too short`);
  const q = Math.floor(samples.length / 4);
  const early = Math.max(...samples.slice(q, 2 * q));
  const late = Math.max(...samples.slice(3 * q));
  return [
    {
      bench: `memory: peak RSS over a ${count / 1e6} M message generate → drop run`,
      result: `late peak ${(late / 1024).toFixed(0)} MiB`,
      baseline: `early peak ${(early / 1024).toFixed(0)} MiB`,
      ratio: late / early,
      target: 'flat (≤ 1.1×)',
      pass: late / early <= 1.1,
    },
  ];
}
