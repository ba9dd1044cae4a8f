#!/usr/bin/env node
// Runs the benchmarks and writes their rows to a results file of this run's own,
// bench/results/<date>T<time>-<names>.md (never over bench/RESULTS.md, whose rows are written by
// hand from such files).
//   npm run bench                 all of them
//   node bench/run.mjs --quick    smaller inputs, for a quick look
//   node bench/run.mjs NAME...    only these (the names in ALL below)
// generate-drop, stdin-stdout, threads-cpu, mapping, http, flow and core-components also run Benthos on the same YAML
// (bench/peers.mjs: built once with Go into $SVC_PEERS, default /tmp/peers; GO=none skips it).
// gateway runs Tyk Gateway v5.14.0 beside the svc gateway (built the same way, once; needs Redis and wrk).
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ROOT, machine } from './lib.mjs';
import { BENTHOS_VERSION } from './peers.mjs';

const ALL = [
  'generate-drop',
  'stdin-stdout',
  'threads-cpu',
  'memory',
  'mapping',
  'http',
  'metrics',
  'kafka',
  'kafka-kcat',
  'amqp',
  'avro',
  'ratelimit',
  'cache',
  'flow',
  'core-components',
  'http-body-memory',
  'streams',
  'config-lint',
  'router',
  'gateway',
  'gateway-processes',
  'gateway-origins',
  'gateway-checks',
  'gateway-traffic',
  'gateway-validation',
  'gateway-mtls',
  'gateway-oauth',
  'governance',
  'governance-tyk',
  'file-scanners',
  'redis',
  'sql',
  'socket',
  'aws',
  'nats',
  'mqtt',
  'amqp1',
  'nats-kv',
  'kinesis',
  'dynamodb',
  'mongodb',
];
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const names = args.filter((a) => !a.startsWith('--'));
const selected = names.length ? names : ALL;

// The load average says how much of the 2 cores the run had: other work on the machine skews every row.
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
const loadBefore = load();
const rows = [];
for (const name of selected) {
  const mod = await import(`./${name}.mjs`);
  process.stderr.write(`running ${name}...\n`);
  for (const row of await mod.run({ quick })) {
    rows.push(row);
    const peer = row.peer ? `; Benthos ${row.peer}${row.peerRatio ? ` (svc ${row.peerRatio.toFixed(2)}×)` : ''}` : '';
    process.stderr.write(`  ${row.bench}: ${row.result} vs ${row.baseline} = ${row.ratio.toFixed(2)}× ${row.pass === false ? 'BELOW TARGET' : ''}${peer}\n`);
  }
}

const cmd = `node bench/run.mjs${quick ? ' --quick' : ''}${names.length ? ' ' + names.join(' ') : ''}`;
const loadAfter = load();
const table = [
  `| benchmark | result | baseline (same run) | ratio | target | met | Benthos ${BENTHOS_VERSION}, same YAML (same run) | svc / Benthos |`,
  '|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.bench} | ${r.result} | ${r.baseline} | ${r.ratio.toFixed(2)}× | ${r.target} | ${r.pass === undefined ? '' : r.pass ? 'yes' : 'no'} | ${r.peer ?? ''} | ${r.peerRatio === undefined ? '' : `${r.peerRatio.toFixed(2)}×`} |`,
  ),
].join('\n');
const md = `# Benchmark results

Machine: ${machine()}. Date: ${new Date().toISOString().slice(0, 10)}.
Load average (1, 5, 15 min): ${loadBefore} before the run, ${loadAfter} after.
Command: \`${cmd}\` (after \`npm run build\`).

${table}

Ratios: generate → drop is the engine's rate over a bare loop that only builds the same
batches; stdin → stdout is the engine's speed over \`cat | cat\`; threads is threads 2 over
threads 1; memory is the late peak RSS over the early peak; config lint is \`engine lint\` over a
bare \`yaml.parse\` of the same text (time, and peak RSS of a 10 MB config). Engine runs are whole CLI
processes, timed best-of-N, with start-up time (a run of one message) subtracted.
svc / Benthos is the engine's rate over Benthos' (core build from bench/peers/benthos/) running
the same YAML file in the same run, timed the same way (fewer messages, as it is slower); empty
where Benthos has no equivalent, "skipped: no Go" where it could not be built.
`;
const stamp = new Date().toISOString().slice(0, 19).replace(/:/g, '');
const file = join(ROOT, 'bench', 'results', `${stamp}-${names.length ? names.join('+') : 'all'}${quick ? '-quick' : ''}.md`);
mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
writeFileSync(file, md);
process.stdout.write(`load average ${loadBefore} before, ${loadAfter} after\n${table}\nwritten to ${file}\n`);
