// Streams mode: two generate → drop streams built with the public stream builder and run in one
// process by `Streams`, against one stream alone in the same process. Both share one event loop,
// so the aim is that running several streams costs nothing beyond the work itself: the two
// together should move as many messages per second as the one alone.
import '@svc/plugins';
import { buildStream, createLogger, defineStream, Streams } from '@svc/engine';
import { fmt } from './lib.mjs';

const PAYLOAD = 'x'.repeat(100);
const yaml = (count) => `http: { enabled: false }
logger: { level: WARN }
metrics: { none: {} }
input:
  generate: { mapping: 'root = "${PAYLOAD}"', interval: '', count: ${count}, batch_size: 100 }
pipeline: { threads: 1 }
output:
  drop: {}
`;

// Both sides time the build too (Streams builds a stream when it is created).
async function alone(count) {
  const def = await defineStream({ yaml: yaml(count) });
  const t0 = process.hrtime.bigint();
  const stream = await buildStream(def, { logger: createLogger({ level: 'WARN' }) });
  await stream.start();
  await stream.wait();
  return count / (Number(process.hrtime.bigint() - t0) / 1e9);
}

async function together(count) {
  const streams = new Streams({ logger: createLogger({ level: 'WARN' }), drainTimeoutMs: 5000 });
  const defs = await Promise.all(['a', 'b'].map((id) => streams.define(id, { yaml: yaml(count) })));
  const t0 = process.hrtime.bigint();
  await Promise.all(['a', 'b'].map((id, i) => streams.create(id, defs[i])));
  // A finite stream stays listed, inactive, once its input ended and everything was delivered.
  while (streams.ids().some((id) => streams.info(id).active)) await new Promise((r) => setTimeout(r, 1));
  const rate = (2 * count) / (Number(process.hrtime.bigint() - t0) / 1e9);
  await streams.stop(5000);
  return rate;
}

export async function run({ quick = false } = {}) {
  const n = quick ? 1_000_000 : 5_000_000;
  await alone(100_000); // warm up the JIT on both paths
  await together(100_000);
  const one = Math.max(await alone(n), await alone(n));
  const two = Math.max(await together(n / 2), await together(n / 2));
  return [
    {
      bench: 'streams mode: two generate → drop streams in one process (Streams)',
      result: `${fmt(two)} msg/s`,
      baseline: `one stream alone ${fmt(one)} msg/s`,
      ratio: two / one,
      target: '≥ 0.90×',
      pass: two / one >= 0.9,
    },
  ];
}
