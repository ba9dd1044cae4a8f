// generate → noop → drop (100-byte messages, batches of 100) timed in this process: the CPU
// milliseconds one stream of `count` messages takes, built before timing. bench/metrics.mjs uses it
// in-process, and as a child process (`node bench/stream-cpu.mjs <count> <runs> <metrics> <tracer>`
// prints the median of `runs` runs) where variants must not share a JIT: code compiled while one
// variant ran would be reused, or deoptimised, by the next.
import '@svc/plugins';
// The engine's own components (generate, drop, mapping ...): registered by importing them, as the CLI does.
import '../engine/dist/components/index.js';
import { registry } from '@svc/engine';
import { parseConfig, validateConfig } from '../engine/dist/config/load.js';
import { registerCoreComponents } from '../engine/dist/runtime/core-components.js';
import { Stream } from '../engine/dist/runtime/stream.js';
import { silentLogger } from '../engine/dist/observability/logger.js';

const PAYLOAD = 'x'.repeat(100);

/** The config text of the stream: `metrics` and `tracer` are YAML flow mappings. */
export function cfgText(count, metrics, tracer) {
  return `http: { enabled: false }
logger: { level: WARN }
input:
  generate: { mapping: 'root = "${PAYLOAD}"', interval: '', count: ${count}, batch_size: 100 }
pipeline:
  threads: 1
  processors: [ { noop: {} } ]
output:
  drop: {}
metrics: ${metrics}
tracer: ${tracer}
`;
}

/** CPU milliseconds a stream of `count` messages takes in this process (built before timing). */
export async function inProcess(count, metrics, tracer = '{ none: {} }') {
  registerCoreComponents();
  const parsed = parseConfig(cfgText(count, metrics, tracer), 'bench.yaml');
  const { config, issues } = validateConfig(parsed, registry());
  if (issues.length) throw new Error(issues.map((i) => i.message).join('; '));
  const s = new Stream({ config, registry: registry(), logger: silentLogger, plugins: [] });
  await s.build();
  const c0 = process.cpuUsage();
  await s.run();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1e3;
}

if (import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const [count, runs, metrics, tracer] = process.argv.slice(2);
  const ms = [];
  for (let i = 0; i < Number(runs); i++) ms.push(await inProcess(Number(count), metrics, tracer));
  ms.sort((a, b) => a - b);
  process.stdout.write(`${JSON.stringify({ median: ms[ms.length >> 1] })}\n`);
}
