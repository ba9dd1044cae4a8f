#!/usr/bin/env node
// Runs the benchmarks and writes bench/RESULTS.md.
//   npm run bench                 all of them
//   node bench/run.mjs --quick    smaller inputs, for a quick look
//   node bench/run.mjs NAME...    only these (generate-drop, stdin-stdout, threads-cpu, memory, mapping, http, metrics, kafka, amqp, avro, ratelimit, http-body-memory, streams, config-lint)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, machine } from './lib.mjs';

const ALL = ['generate-drop', 'stdin-stdout', 'threads-cpu', 'memory', 'mapping', 'http', 'metrics', 'kafka', 'amqp', 'avro', 'ratelimit', 'http-body-memory', 'streams', 'config-lint'];
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const names = args.filter((a) => !a.startsWith('--'));
const selected = names.length ? names : ALL;

const rows = [];
for (const name of selected) {
  const mod = await import(`./${name}.mjs`);
  process.stderr.write(`running ${name}...\n`);
  for (const row of await mod.run({ quick })) {
    rows.push(row);
    process.stderr.write(`  ${row.bench}: ${row.result} vs ${row.baseline} = ${row.ratio.toFixed(2)}× ${row.pass === false ? 'BELOW TARGET' : ''}\n`);
  }
}

const cmd = `node bench/run.mjs${quick ? ' --quick' : ''}${names.length ? ' ' + names.join(' ') : ''}`;
const table = [
  '| benchmark | result | baseline (same run) | ratio | target | met |',
  '|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.bench} | ${r.result} | ${r.baseline} | ${r.ratio.toFixed(2)}× | ${r.target} | ${r.pass === undefined ? '' : r.pass ? 'yes' : 'no'} |`),
].join('\n');
const md = `# Benchmark results

Machine: ${machine()}. Date: ${new Date().toISOString().slice(0, 10)}.
Command: \`${cmd}\` (after \`npm run build\`).

${table}

Ratios: generate → drop is the engine's rate over a bare loop that only builds the same
batches; stdin → stdout is the engine's speed over \`cat | cat\`; threads is threads 2 over
threads 1; memory is the late peak RSS over the early peak; config lint is \`engine lint\` over a
bare \`yaml.parse\` of the same text (time, and peak RSS of a 10 MB config). Engine runs are whole CLI
processes, timed best-of-N, with start-up time (a run of one message) subtracted.
`;
if (!names.length || args.includes('--write')) writeFileSync(join(ROOT, 'bench', 'RESULTS.md'), md);
process.stdout.write(table + '\n');
