// generate → noop → drop (100-byte messages, batches of 100) with metrics and tracing: what
// observability costs the runtime per batch, with a processor in the chain so that the input,
// processor and output probes all count. Baseline: the same pipeline with `metrics: none` and
// `tracer: none`, measured in the same run.
// Tracing goes to sinks in a child process (the engine runs are timed with spawnSync, which
// blocks this one): a UDP socket standing for a Jaeger agent and an HTTP server standing for an
// OTLP/HTTP collector, both discarding what they get. The spans are built, encoded and sent for real.
//
// The headline comparison runs both streams in this process, in pairs (off then on), many
// times: the ratio of a pair's CPU times is what metrics add per message, and the median over the
// pairs keeps start-up, JIT warm-up and a busy machine's neighbours (which swing single runs by
// ±20% here) out of the picture. Whole CLI processes are measured too, per
// CPU-second of the engine process (user + system, best of N, start-up subtracted). The
// sampled-out rows run each variant in processes of its own (bench/stream-cpu.mjs), round after
// round: within one process, whichever variant ran first shapes the JIT for the other.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import '@svc/plugins';
// The engine's own components (generate, drop, mapping ...): registered by importing them, as the CLI does.
import '../engine/dist/components/index.js';
import { Message } from '@svc/engine';
import { ENGINE, ROOT, best, config, fmt } from './lib.mjs';
import { cfgText, inProcess } from './stream-cpu.mjs';
import { Observability } from '../engine/dist/observability/observability.js';
import { StreamMetrics, NOOP_EXPORTER } from '../engine/dist/observability/metrics.js';
import { InputProbe, OutputProbe, ProcessorProbe } from '../engine/dist/observability/probes.js';
import { createPrometheusExporter } from '../engine/dist/observability/prometheus.js';
import { silentLogger } from '../engine/dist/observability/logger.js';

function cfg(name, count, metrics, tracer) {
  return config(name, cfgText(count, metrics, tracer));
}

/** CPU seconds (user + system) the engine process spends on a config. */
function cpuEngine(cfg) {
  const r = spawnSync('bash', ['-c', `TIMEFORMAT='%3U %3S'; time node ${ENGINE} -c ${cfg} > /dev/null`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`engine failed on ${cfg}: ${r.stderr}`);
  const [user, sys] = r.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return user + sys;
}

/** Messages per CPU-second of a variant: best of `runs`, start-up (a run of one message) subtracted. */
function rate(name, count, metrics, tracer, runs) {
  const startup = best(3, () => cpuEngine(cfg(`${name}-startup`, 1, metrics, tracer)));
  const total = best(runs, () => cpuEngine(cfg(name, count, metrics, tracer)));
  return count / Math.max(1e-3, total - startup);
}

/**
 * Nanoseconds per batch of 100 that the runtime's probes add at an input, a processor and an
 * output (in-process, best of 5 loops): with `metrics`, or with metrics and tracing both off
 * (probes forced in, which the runtime does not do: it builds none then), against the same loop
 * without probes.
 */
async function probeCost(metrics) {
  let obs;
  let probes;
  if (metrics) {
    obs = new Observability(
      await createPrometheusExporter(
        {
          prefix: 'svc',
          push_interval: '',
          push_job_name: 'x',
          push_url: '',
          push_basic_auth: { enabled: false, username: '', password: '' },
          file_path: '',
          use_histogram_timing: false,
          histogram_buckets: [],
          add_process_metrics: false,
        },
        { logger: silentLogger },
      ),
    );
    probes = [obs.input('root.input', 'in', 'in'), obs.processor('root.pipeline.processors.0', 'p', 'p'), obs.output('root.output', 'out', 'out')];
  } else {
    const c = (path) => ({ metrics: new StreamMetrics(NOOP_EXPORTER), tracer: undefined, path, label: 'x', type: 'x' });
    probes = [new InputProbe(c('root.input')), new ProcessorProbe(c('root.pipeline.processors.0'), undefined), new OutputProbe(c('root.output'))];
  }
  const [ip, pp, op] = probes;
  const noop = { process: (b) => [b] };
  const wrapped = pp.wrap(noop);
  const buf = Buffer.from('x'.repeat(100));
  const batch = Array.from({ length: 100 }, () => new Message(buf));
  const ack = () => {};
  const loop = (n, probed) => {
    let x = 0;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      if (probed) {
        const tx = ip.read({ batch, ack });
        x += wrapped.process(tx.batch).length;
        const t = op.begin();
        op.attempted(100, t, op.weight, undefined);
        op.finished(undefined, undefined);
        tx.ack();
      } else {
        const tx = { batch, ack };
        x += noop.process(tx.batch).length;
        tx.ack();
      }
    }
    if (x !== n) throw new Error('probe loop miscounted');
    return Number(process.hrtime.bigint() - t0) / n;
  };
  let withProbes = Infinity;
  let without = Infinity;
  for (let r = 0; r < 5; r++) {
    withProbes = Math.min(withProbes, loop(1_000_000, true));
    without = Math.min(without, loop(1_000_000, false));
  }
  await obs?.close();
  return Math.max(0, withProbes - without);
}

/** `probeCost` in a fresh process: JIT feedback from the streams run here would make it look worse. */
function probeCostInChild(metrics) {
  const r = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--probe-cost', metrics ? 'on' : 'off'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`probe cost run failed: ${r.stderr}`);
  return Number(r.stdout.trim());
}

if (process.argv[2] === '--probe-cost') {
  process.stdout.write(`${await probeCost(process.argv[3] === 'on')}\n`);
}

const SINKS = `
const dgram = require('node:dgram');
const http = require('node:http');
const udp = dgram.createSocket('udp4');
udp.on('message', () => {});
const collector = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
});
udp.bind(0, '127.0.0.1', () =>
  collector.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ udp: udp.address().port, http: collector.address().port }) + '\\n')),
);
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

export async function run({ quick = false } = {}) {
  const sinks = spawn(process.execPath, ['-e', SINKS], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = await once(sinks.stdout, 'data');
  const ports = JSON.parse(String(line));
  const agent = `127.0.0.1:${ports.udp}`;
  const otlp = `127.0.0.1:${ports.http}`;
  const jaeger = (p) => `{ jaeger: { agent_address: "${agent}", sampler_type: probabilistic, sampler_param: ${p} } }`;
  const otel = (p) => `{ open_telemetry_collector: { http: [ { address: "${otlp}" } ], sampling: { enabled: true, ratio: ${p} } } }`;
  const n = quick ? 10_000_000 : 30_000_000;
  const runs = quick ? 3 : 5;
  const rounds = quick ? 4 : 8;
  const OFF = '{ none: {} }';
  const ON = '{ prometheus: { prefix: svc } }';
  try {
    // The three close calls run interleaved, round after round, each keeping its best: a slow
    // patch of the machine hits them alike.
    const close = { off: [OFF, OFF], on: [ON, OFF], again: [OFF, OFF] };
    const startup = {};
    const total = {};
    for (const [v, [m, t]] of Object.entries(close)) startup[v] = best(3, () => cpuEngine(cfg(`${v}-startup`, 1, m, t)));
    for (let i = 0; i < rounds; i++) {
      for (const [v, [m, t]] of Object.entries(close)) total[v] = Math.min(total[v] ?? Infinity, cpuEngine(cfg(v, n, m, t)));
    }
    const rateOf = (v) => n / Math.max(1e-3, total[v] - startup[v]);
    const cliOff = rateOf('off');
    const cliOn = rateOf('on');
    const off2 = rateOf('again');
    // In this process: pairs of runs, the median of their ratios.
    const m = 5_000_000;
    const pairs = [];
    for (let i = 0; i < (quick ? 9 : 25); i++) {
      const off = await inProcess(m, OFF);
      const metricsOn = await inProcess(m, ON);
      pairs.push({ off, on: metricsOn, ratio: off / metricsOn });
    }
    const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    // Sampled out: tracing on at ratio 0 against tracing off, metrics on in both. Each variant
    // runs in processes of its own (a shared JIT skews pairs run in one process either way), one
    // long stream each (short runs would rebuild the tracer's client between them), round after
    // round; the ratio is of the medians over the rounds.
    const long = quick ? 5_000_000 : 20_000_000;
    const sampledOut = [
      ['jaeger, UDP', jaeger(0)],
      ['OTLP/HTTP', otel(0)],
    ].map(([backend, tracer]) => ({ backend, tracer, ms: [] }));
    const offMs = [];
    const child = (tracer) => {
      const r = spawnSync(process.execPath, [join(ROOT, 'bench', 'stream-cpu.mjs'), String(long), '1', ON, tracer], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`stream-cpu.mjs failed: ${r.stderr}`);
      return JSON.parse(r.stdout).median;
    };
    for (let i = 0; i < (quick ? 3 : 5); i++) {
      offMs.push(child(OFF));
      for (const so of sampledOut) so.ms.push(child(so.tracer));
    }
    const baseline = m / (median(pairs.map((p) => p.off)) / 1000);
    const on = m / (median(pairs.map((p) => p.on)) / 1000);
    const pairRatio = median(pairs.map((p) => p.ratio));
    const tracing = [
      ['jaeger, UDP', 0.01, jaeger(0.01), n / 20],
      ['jaeger, UDP', 1, jaeger(1), n / 500],
      ['OTLP/HTTP', 0.01, otel(0.01), n / 20],
      ['OTLP/HTTP', 1, otel(1), n / 200],
    ].map(([backend, p, tracer, count]) => ({
      backend,
      p,
      r: rate(`tracing-${backend.split(',')[0].replace('/', '-').toLowerCase()}-${p}`, Math.round(count), ON, tracer, runs),
    }));
    const base_ = `metrics off, tracing off ${fmt(baseline)} msg/CPU-s (median)`;
    const cliBase = `metrics off, tracing off ${fmt(cliOff)} msg/CPU-s (CLI)`;
    // The engine's own time per batch of 100, to weigh the probes' nanoseconds against.
    const batchNs = 1e9 / (baseline / 100);
    const probesOff = probeCostInChild(false);
    const probesOn = probeCostInChild(true);
    return [
      {
        bench: `generate → noop → drop, metrics on (prometheus), tracing off (in-process, median of ${pairs.length} paired runs)`,
        result: `${fmt(on)} msg/CPU-s`,
        baseline: base_,
        ratio: pairRatio,
        target: 'metrics cost < 5% (≥ 0.95×)',
        pass: pairRatio >= 0.95,
      },
      {
        bench: 'generate → noop → drop, metrics on, tracing off (whole CLI processes, start-up subtracted)',
        result: `${fmt(cliOn)} msg/CPU-s`,
        baseline: cliBase,
        ratio: cliOn / cliOff,
        target: '',
        pass: undefined,
      },
      {
        bench: 'tracing off: what probes with tracer none (and no-op metrics) add per batch of 100, in-process',
        result: `${probesOff.toFixed(1)} ns/batch`,
        baseline: `the engine's ${batchNs.toFixed(0)} ns/batch (metrics off run)`,
        ratio: batchNs / (batchNs + probesOff),
        target: 'tracing off costs < 1% (≥ 0.99×)',
        pass: batchNs / (batchNs + probesOff) >= 0.99,
      },
      {
        bench: 'metrics on, tracing off: what the probes add per batch of 100, in-process',
        result: `${probesOn.toFixed(1)} ns/batch`,
        baseline: `the engine's ${batchNs.toFixed(0)} ns/batch (metrics off run)`,
        ratio: batchNs / (batchNs + probesOn),
        target: '',
        pass: undefined,
      },
      {
        bench: 'generate → noop → drop, metrics off, tracing off, CLI measured again (the noise between identical runs)',
        result: `${fmt(off2)} msg/CPU-s`,
        baseline: cliBase,
        ratio: off2 / cliOff,
        target: '',
        pass: undefined,
      },
      ...sampledOut.map(({ backend, ms }) => {
        const ratio = median(offMs) / median(ms);
        return {
          bench: `a sampled-out message: tracing on at ratio 0 (${backend}) vs tracing off, metrics on (a process a run, median of ${ms.length} rounds)`,
          result: `${ratio.toFixed(3)}× the speed of tracing off (${median(ms).toFixed(0)} ms CPU for ${fmt(long)} messages)`,
          baseline: `tracing off, metrics on ${median(offMs).toFixed(0)} ms, the same rounds`,
          ratio,
          target: 'costs ≤ 5% (≥ 0.95×)',
          pass: ratio >= 0.95,
        };
      }),
      ...tracing.map(({ backend, p, r }) => ({
        bench: `generate → noop → drop, metrics on, tracing on at ratio ${p === 1 ? '1.0' : p} (${backend})`,
        // Three spans a message: the input's root, the processor's and the output write's.
        result: `${fmt(r)} msg/CPU-s${p === 1 ? ` = ${fmt(3 * r)} spans/CPU-s` : ''}`,
        baseline: cliBase,
        ratio: r / cliOff,
        target: p === 1 ? (backend.startsWith('jaeger') ? '≥ 50 k spans/s' : '≥ 100 k spans/s') : '',
        pass: p === 1 ? 3 * r >= (backend.startsWith('jaeger') ? 50_000 : 100_000) : undefined,
      })),
    ];
  } finally {
    sinks.stdin.end();
  }
}
