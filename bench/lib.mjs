// Shared helpers for the benchmarks: run the engine CLI on a config, time it, describe the machine.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';

export const ROOT = new URL('..', import.meta.url).pathname;
export const DATA = join(ROOT, 'bench', '.data');
export const ENGINE = join(ROOT, 'engine', 'dist', 'cli', 'main.js');
mkdirSync(DATA, { recursive: true });

export function machine() {
  const c = cpus();
  return `${c.length} × ${c[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** Writes a config file under bench/.data and returns its path. */
export function config(name, yaml) {
  const p = join(DATA, `${name}.yaml`);
  writeFileSync(p, yaml);
  return p;
}

/** Quotes a string for a single-quoted YAML scalar. */
export const yamlQuote = (s) => `'${s.replace(/'/g, "''")}'`;

/**
 * Writes a generate → `processor` → drop config (batches of 100, as fast as possible, quiet, no
 * HTTP server) and returns its path: the shape of every processor benchmark. Without plugins the
 * config is plain Benthos YAML, which Benthos runs unchanged.
 */
export function processorConfig(name, { plugins, mapping, count, threads, processor }) {
  return config(
    name,
    `http: { enabled: false }
logger: { level: WARN }
${plugins.length ? `plugins: [ ${plugins.join(', ')} ]\n` : ''}input:
  generate: { mapping: ${yamlQuote(mapping)}, interval: '', count: ${count}, batch_size: 100 }
pipeline:
  threads: ${threads}
  processors:
    - ${processor}
output:
  drop: {}
`,
  );
}

/** Runs a shell command, returns seconds of wall time; throws on a non-zero exit. */
export function timeShell(cmd) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('bash', ['-o', 'pipefail', '-c', cmd], { stdio: ['ignore', 'ignore', 'pipe'] });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr}`);
  return s;
}

/** Runs the engine on a config (or, given its binary, a peer such as Benthos); returns seconds of wall time. */
export function timeEngine(cfg, peerBin) {
  return timeShell(peerBin ? `${peerBin} -c ${cfg}` : `node ${ENGINE} -c ${cfg}`);
}

/** Runs the engine and samples its RSS (kB) every `everyMs` until it exits. */
export function sampleRss(cfg, everyMs = 200) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ENGINE, '-c', cfg], { stdio: ['ignore', 'ignore', 'inherit'] });
    const samples = [];
    const timer = setInterval(() => {
      const r = spawnSync('ps', ['-o', 'rss=', '-p', String(child.pid)]);
      const kb = Number(String(r.stdout).trim());
      if (kb > 0) samples.push(kb);
    }, everyMs);
    child.on('exit', (code) => {
      clearInterval(timer);
      if (code === 0) resolve(samples);
      else reject(new Error(`engine exited ${code}`));
    });
  });
}

/**
 * Messages per second of an engine run of `count` messages, best of `runs`, with start-up (the
 * best of `startupRuns` runs of one message) subtracted. `configFor(count, startup)` writes the
 * config for a run and returns its path. With `peerBin` the same config runs on that peer binary.
 */
export function engineRate(configFor, count, { startupRuns = 2, runs = 2, peerBin } = {}) {
  const startup = best(startupRuns, () => timeEngine(configFor(1, true), peerBin));
  const total = best(runs, () => timeEngine(configFor(count, false), peerBin));
  return count / Math.max(1e-3, total - startup);
}

/** Best (minimum) of `n` runs of `f`. */
export function best(n, f) {
  let m = Infinity;
  for (let i = 0; i < n; i++) m = Math.min(m, f());
  return m;
}

export const fmt = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} k` : n.toFixed(1));

/** Records/s of a raw client script `source` run as a process of its own: it prints `{ moved, seconds }` last. */
export function rawRate(name, source) {
  const file = join(DATA, `${name}.cjs`);
  writeFileSync(file, source);
  const r = spawnSync(process.execPath, [file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${name} failed: ${r.stderr}`);
  const { moved, seconds } = JSON.parse(r.stdout.trim().split('\n').at(-1));
  return moved / seconds;
}

/** Records/s of the engine on `cfg`, from 5% of `count` to all, by its `metric` counter (its /metrics on `port`). */
export async function engineMetricRate(cfg, port, metric, count) {
  const child = spawn(process.execPath, [ENGINE, '-c', cfg], { stdio: ['ignore', 'ignore', 'inherit'], cwd: ROOT });
  // An engine whose input ends exits once all was sent, maybe between two samples: its exit is the end.
  let exitedAt;
  child.once('exit', () => (exitedAt = performance.now()));
  try {
    const deadline = Date.now() + 300_000;
    let start;
    for (;;) {
      const text = await fetch(`http://127.0.0.1:${port}/metrics`)
        .then((r) => r.text())
        .catch(() => '');
      const m = new RegExp(`^svc_${metric}\\{[^}]*\\} (\\d+)`, 'm').exec(text);
      const n = m ? Number(m[1]) : 0;
      const now = performance.now();
      if (!start && n >= count * 0.05) start = { at: now, n };
      if (start && n >= count) return (n - start.n) / ((now - start.at) / 1000);
      if (start && exitedAt !== undefined && child.exitCode === 0) return (count - start.n) / ((exitedAt - start.at) / 1000);
      if (child.exitCode !== null) throw new Error(`the engine exited ${child.exitCode} after ${n} of ${count}`);
      if (Date.now() > deadline) throw new Error(`the engine moved ${n} of ${count} within 300 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
  }
}
