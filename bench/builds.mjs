// Two builds of the engine on the same stdin pipelines, interleaved round by round (so that a
// busy shared machine slows both alike), medians of the rounds: the way a change to the runtime
// shows what it costs. Rows: the start-up (the stdin → stdout config on an empty stdin), stdin →
// stdout of 100-byte lines (the stdin-stdout row's config) and stdin JSON lines → mapping + log →
// drop; each pipeline row also gives its lines per CPU-s net of its build's start-up, the rate a
// long run settles at.
//   node bench/builds.mjs <root of the build before> [rounds=5] [MB=100]
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DATA, ROOT, config, fmt } from './lib.mjs';

const [before, roundsArg = '5', mbArg = '100'] = process.argv.slice(2);
if (!before) throw new Error('usage: node bench/builds.mjs <root of the build before> [rounds] [MB]');
const rounds = Number(roundsArg);
const bytes = Number(mbArg) * 1_000_000;

function dataFile(name, line) {
  const p = join(DATA, `${name}-${bytes}.txt`);
  if (existsSync(p) && statSync(p).size === bytes) return p;
  const l = Buffer.from(line + '\n');
  const chunk = Buffer.concat(Array.from({ length: 10_000 }, () => l));
  const fd = openSync(p, 'w');
  for (let written = 0; written < bytes; written += chunk.length) writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - written));
  closeSync(fd);
  return p;
}

/** A JSON document of 99 bytes (a line of 100 with its newline). */
const JSON_LINE = (() => {
  const head = '{"id":1,"name":"abc","v":[1,2,3],"s":"';
  return head + 'x'.repeat(99 - head.length - 2) + '"}';
})();
const rows = [
  {
    name: 'stdin → stdout, 100-byte lines',
    file: dataFile('lines', 'y'.repeat(99)),
    lines: bytes / 100,
    cfg: config('builds-stdout', 'http: { enabled: false }\nlogger: { level: WARN }\ninput: { stdin: {} }\npipeline: { threads: 1 }\noutput: { stdout: {} }\n'),
    out: '| cat > /dev/null',
  },
  {
    name: 'stdin JSON lines (100 B) → mapping + log → drop',
    file: dataFile('json', JSON_LINE),
    lines: bytes / 100,
    cfg: config(
      'builds-mapping',
      'http: { enabled: false }\nlogger: { level: WARN }\ninput: { stdin: {} }\npipeline:\n  threads: 1\n  processors:\n' +
        '    - mapping: |\n        root.id = this.id + 1\n        root.name = this.name.uppercase()\n    - log: { level: TRACE, message: hi }\noutput: { drop: {} }\n',
    ),
    out: '',
  },
];

/** Wall and CPU (user + sys, every process of the pipeline) seconds of one run. */
function run(root, row) {
  const cmd = `TIMEFORMAT='%R %U %S'; time (cat ${row.file ?? '/dev/null'} | node ${join(root, 'engine/dist/cli/main.js')} -c ${row.cfg} ${row.out})`;
  const r = spawnSync('bash', ['-o', 'pipefail', '-c', cmd], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr}`);
  const [wall, user, sys] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { wall, cpu: user + sys };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const builds = [
  { name: 'before', root: before },
  { name: 'after', root: ROOT },
];
/** Each build's runs of `row`, interleaved round by round. */
function interleaved(row) {
  const got = { before: [], after: [] };
  for (let i = 0; i < rounds; i++) {
    // Alternate which build goes first, so neither always runs on a warmer cache.
    for (const b of i % 2 ? [...builds].reverse() : builds) got[b.name].push(run(b.root, row));
  }
  return got;
}
const startup = interleaved({ cfg: rows[0].cfg, out: rows[0].out });
const startCpu = {};
console.log(`| start-up (empty stdin) | build | median wall s | median CPU s | rounds |`);
console.log(`|---|---|---|---|---|`);
for (const b of builds) {
  startCpu[b.name] = median(startup[b.name].map((r) => r.cpu));
  console.log(`| stdin → stdout | ${b.name} | ${median(startup[b.name].map((r) => r.wall)).toFixed(2)} | ${startCpu[b.name].toFixed(2)} | ${rounds} |`);
}
console.log('');
console.log(`| pipeline | build | median lines/s (wall) | median lines per CPU-s | net of start-up | rounds |`);
console.log(`|---|---|---|---|---|---|`);
for (const row of rows) {
  const got = interleaved(row);
  for (const b of builds) {
    const cpu = median(got[b.name].map((r) => r.cpu));
    console.log(
      `| ${row.name} | ${b.name} | ${fmt(row.lines / median(got[b.name].map((r) => r.wall)))} | ${fmt(row.lines / cpu)} | ${fmt(row.lines / (cpu - startCpu[b.name]))} | ${rounds} |`,
    );
  }
}
