// generate → drop, 100-byte messages in batches of 100: the runtime's own cost per batch.
// Baseline: a bare loop building the same batches of messages in this process. Beside it, Benthos
// running the same YAML (with fewer messages: it is slower).
import { Message } from '@svc/engine';
import { config, engineRate, fmt } from './lib.mjs';
import { benthosRate, peerCells } from './peers.mjs';

const PAYLOAD = 'x'.repeat(100);

function cfg(name, count, threads, processors) {
  return config(
    name,
    `http: { enabled: false }
logger: { level: WARN }
input:
  generate: { mapping: 'root = "${PAYLOAD}"', interval: '', count: ${count}, batch_size: 100 }
pipeline:
  threads: ${threads}
  processors: ${processors}
output:
  drop: {}
`,
  );
}

/** Messages per second of a bare loop making the same batches (the ceiling for any runtime). */
function bareLoop(n) {
  const buf = Buffer.from(PAYLOAD);
  let bytes = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i += 100) {
    const batch = new Array(100);
    for (let j = 0; j < 100; j++) batch[j] = new Message(buf);
    for (let j = 0; j < 100; j++) bytes += batch[j].content.length;
  }
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (bytes !== n * 100) throw new Error('bare loop miscounted');
  return n / s;
}

export async function run({ quick = false } = {}) {
  const n = quick ? 5_000_000 : 30_000_000;
  const baseline = Math.max(bareLoop(n), bareLoop(n));
  const rows = [];
  /** The threads 1 noop rate: a light pipeline on more threads must not run slower (issue #11). */
  let oneThreadNoop;
  const variants = [
    ['threads 1, no processors', 1, '[]', n],
    ['threads 1, noop processor', 1, '[ { noop: {} } ]', n],
    // As many messages as threads 1 noop: its rate is this row's target, and a shorter run would
    // leave the start-up subtraction a larger share of the difference.
    ['threads 2, noop processor (dispatch auto)', 2, '[ { noop: {} } ]', n],
  ];
  for (const [label, threads, procs, count] of variants) {
    const configFor = (name) => (c, startup) => cfg(startup ? `${name}-startup` : name, c, threads, procs);
    const rate = engineRate(configFor('gen-drop'), count, { startupRuns: 3 });
    const benthos = benthosRate(configFor('gen-drop-benthos'), Math.max(200_000, Math.round(count / 20)), { startupRuns: 3 });
    if (threads === 1 && procs !== '[]') oneThreadNoop = rate;
    const light = threads > 1 && oneThreadNoop !== undefined;
    rows.push({
      bench: `generate → drop, ${label}`,
      result: `${fmt(rate)} msg/s`,
      baseline: `bare loop ${fmt(baseline)} msg/s`,
      ratio: rate / baseline,
      target:
        threads === 1 && procs === '[]' ? '≥ 5 M msg/s' : light ? `≥ threads 1 noop (${fmt(oneThreadNoop)} msg/s): ${(rate / oneThreadNoop).toFixed(2)}×` : '',
      pass: threads === 1 && procs === '[]' ? rate >= 5e6 : light ? rate >= oneThreadNoop : undefined,
      ...peerCells(rate, benthos),
    });
  }
  return rows;
}
