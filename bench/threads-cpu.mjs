// A CPU-heavy processor (JSON parse + re-serialise of 1 KB messages): threads 2 vs threads 1.
// And a config Benthos runs too: JSON lines from stdin → two mappings (8 fields, 3 sha256) → drop,
// threads 2 vs threads 1, Benthos beside it on the same YAML.
import { closeSync, existsSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DATA, ENGINE, ROOT, best, config, engineRate, fmt, processorConfig, timeShell } from './lib.mjs';
import { benthosBinary, peerCells } from './peers.mjs';
import { ceiling } from './threads-ceiling.mjs';

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
  // The machine's own ceiling for this work: the same parse + re-serialise on two bare threads.
  const bare = await ceiling(DOC, n);
  const bareSpeedup = bare.two / bare.one;
  return [
    await stdinMappings(quick),
    {
      bench: 'JSON parse + re-serialise of 1 KB messages, threads 2',
      result: `${fmt(rates[2])} msg/s`,
      baseline: `threads 1 ${fmt(rates[1])} msg/s`,
      ratio: speedup,
      target: '≥ 1.7× on 2 cores',
      pass: speedup >= 1.7,
    },
    {
      bench: 'JSON parse + re-serialise of 1 KB messages, threads 2 over threads 1, against the same work on two bare worker threads (no engine)',
      result: `svc ${speedup.toFixed(2)}× (${fmt(rates[2])} over ${fmt(rates[1])} msg/s)`,
      baseline: `bare threads ${bareSpeedup.toFixed(2)}× (${fmt(bare.two)} over ${fmt(bare.one)} msg/s): what two threads give here`,
      ratio: speedup / bareSpeedup,
      target: '',
    },
  ];
}

const MAPPINGS = [
  `root.id = this.id
root.name = this.user.first + " " + this.user.last
root.email_hash = this.user.email.lowercase().hash("sha256").encode("hex")
root.city = this.address.city.uppercase()
root.total = this.order.price * this.order.quantity
root.tags = this.tags.join(",")
root.status = this.status
root.notes_hash = this.notes.hash("sha256").encode("hex")`,
  `root = this
root.key = (this.id + this.email_hash).hash("sha256").encode("hex")`,
];

/** `lines` JSON documents of about 500 bytes, one a line, each with its own id. */
function jsonLines(lines) {
  const p = join(DATA, `json-lines-${lines}.txt`);
  if (existsSync(p) && statSync(p).size > 0) return p;
  const fd = openSync(p, 'w');
  const chunk = [];
  for (let i = 0; i < lines; i++) {
    const doc = {
      id: `ord-${i}`,
      user: { first: 'Ada', last: 'Lovelace', email: `Ada.${i}@Example.COM`, age: 36 },
      address: { city: 'London', country: 'gb', street: '12 St James Square', zip: 'SW1Y 4JH' },
      order: {
        price: 12.5,
        quantity: i % 7,
        items: [
          { sku: 'a', n: 1 },
          { sku: 'b', n: 2 },
        ],
      },
      tags: ['new', 'priority', 'gift'],
      status: 'active',
      notes: `${i} `.padEnd(250, 'n'),
    };
    chunk.push(JSON.stringify(doc));
    if (chunk.length === 10_000 || i === lines - 1) writeSync(fd, chunk.splice(0).join('\n') + '\n');
  }
  closeSync(fd);
  return p;
}

function mappingsConfig(threads) {
  const procs = MAPPINGS.map((m) => `    - mapping: |\n${m.replace(/^/gm, '        ')}`).join('\n');
  return config(
    `stdin-mappings-${threads}`,
    `http: { enabled: false }
logger: { level: WARN }
input: { stdin: {} }
pipeline:
  threads: ${threads}
  processors:
${procs}
output:
  drop: {}
`,
  );
}

/** Lines per second of `command` (the engine's or Benthos') on the file, start-up (one line) subtracted. */
function stdinRate(command, cfg, lines) {
  const startup = best(2, () => timeShell(`${command} -c ${cfg} < ${jsonLines(1)}`));
  const total = best(2, () => timeShell(`${command} -c ${cfg} < ${jsonLines(lines)}`));
  return lines / Math.max(1e-3, total - startup);
}

async function stdinMappings(quick) {
  const n = quick ? 100_000 : 400_000;
  const bin = benthosBinary();
  const svc = {};
  const benthos = {};
  for (const threads of [1, 2]) {
    const cfg = mappingsConfig(threads);
    svc[threads] = stdinRate(`node ${ENGINE}`, cfg, n);
    if (bin) benthos[threads] = stdinRate(bin, cfg, n / 4);
  }
  const speedup = svc[2] / svc[1];
  return {
    bench: 'stdin JSON lines (500 B) → two mappings (8 fields, 3 sha256) → drop, threads 2',
    result: `${fmt(svc[2])} msg/s`,
    baseline: `threads 1 ${fmt(svc[1])} msg/s`,
    ratio: speedup,
    target: '≥ 1.7× threads 1, ≥ Benthos',
    pass: speedup >= 1.7 && (benthos[2] === undefined || svc[2] >= benthos[2]),
    ...peerCells(svc[2], benthos[2], 'msg/s', bin && `${fmt(benthos[2])} msg/s; threads 1 ${fmt(benthos[1])} msg/s (svc ${(svc[1] / benthos[1]).toFixed(2)}×)`),
  };
}
