// The core components of issue 38 against Benthos v4.51.0 on the same YAML in the same run:
// generate → processor → drop at threads 1, batches of 100 (whole CLI processes, start-up
// subtracted: lib.mjs's engineRate), and the csv input reading a file → drop.
// - grok: a web-log line into five typed fields (Benthos' default patterns).
// - parse_log: an RFC 5424 syslog line into its fields.
// - jq / jmespath: a projection of a small document (jq runs the engine's own interpreter).
// - metric: a counter with an interpolated label per message.
// - subprocess: every message a line through `cat` (one program for the stream).
// - csv input: a file of rows with a header, batch_count 100.
// Baseline: the same generate → drop with no processors (the csv row: the file input reading
// the same file as lines).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA, config, engineRate, fmt, yamlQuote } from './lib.mjs';
import { benthosRate, peerCells } from './peers.mjs';

const DOC = 'root = {"id": count("c"), "user": {"name": "n" + count("d").string(), "age": count("e") % 90}}';
const WEBLOG = 'root = "127.0.0.1 GET /index.html?id=" + count("c").string() + " 200 " + (count("d") % 5000).string()';
const SYSLOG = 'root = "<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog 1234 ID47 - An application event " + count("c").string()';

function cfg(name, count, mapping, processors) {
  return config(
    name,
    `http: { enabled: false }
logger: { level: WARN }
input:
  generate: { mapping: ${yamlQuote(mapping)}, interval: '', count: ${count}, batch_size: 100 }
pipeline:
  threads: 1
  processors: ${processors}
output:
  drop: {}
`,
  );
}

const PROCESSORS = [
  [
    'grok (web-log line, 5 typed fields)',
    'core-grok',
    WEBLOG,
    `\n    - grok:\n        expressions: ['%{IP:client} %{WORD:method} %{URIPATHPARAM:request} %{NUMBER:status:int} %{NUMBER:bytes:int}']`,
  ],
  ['parse_log (syslog_rfc5424)', 'core-parse-log', SYSLOG, `\n    - parse_log: { format: syslog_rfc5424 }`],
  ['jq (projection with a comparison)', 'core-jq', DOC, `\n    - jq: { query: '{id: .id, name: .user.name, adult: (.user.age >= 18)}' }`],
  ['jmespath (projection)', 'core-jmespath', DOC, `\n    - jmespath: { query: '{id: id, name: user.name, age: user.age}' }`],
  ['metric (counter, interpolated label)', 'core-metric', DOC, `\n    - metric: { type: counter, name: seen, labels: { band: '\${! this.user.age % 3 }' } }`],
  ['subprocess (cat, lines)', 'core-subprocess', DOC, `\n    - subprocess: { name: cat }`],
];

function csvConfig(name, count, csvInput) {
  const file = join(DATA, `${name}.csv`);
  const rows = ['id,name,age'];
  for (let i = 0; i < count; i++) rows.push(`${i},n${i},${i % 90}`);
  writeFileSync(file, rows.join('\n') + '\n');
  const input = csvInput ? `csv: { paths: [${JSON.stringify(file)}], batch_count: 100 }` : `file: { paths: [${JSON.stringify(file)}] }`;
  return config(name, `http: { enabled: false }\nlogger: { level: WARN }\ninput:\n  ${input}\noutput:\n  drop: {}\n`);
}

// Messages per run: enough that the work, not the start-up subtracted from it (about a second for
// the engine, with its own jitter), sets the rate; the slow rows (Benthos' grok, a program per
// stream) take fewer.
const SLOW = new Set(['core-grok', 'core-subprocess']);

export async function run({ quick = false } = {}) {
  const n = quick ? 50_000 : 1_000_000;
  const slow = quick ? 50_000 : 200_000;
  const plain = engineRate((c, s) => cfg(s ? 'core-none-startup' : 'core-none', c, DOC, '[]'), n, { startupRuns: 3 });
  const rows = [];
  for (const [label, slug, mapping, procs] of PROCESSORS) {
    const configFor = (name) => (c, startup) => cfg(startup ? `${name}-startup` : name, c, mapping, procs);
    const count = SLOW.has(slug) ? slow : n;
    const rate = engineRate(configFor(slug), count, { startupRuns: 3 });
    const benthos = benthosRate(configFor(`${slug}-benthos`), count, { startupRuns: 3 });
    rows.push({
      bench: `${label}, threads 1`,
      result: `${fmt(rate)} msg/s`,
      baseline: `no processors ${fmt(plain)} msg/s`,
      ratio: rate / plain,
      target: '≥ 1× Benthos',
      pass: benthos === undefined ? undefined : rate >= benthos,
      ...peerCells(rate, benthos),
    });
  }
  const lines = engineRate((c, s) => csvConfig(s ? 'core-lines-startup' : 'core-lines', c, false), n, { startupRuns: 3 });
  const csvFor = (name) => (c, startup) => csvConfig(startup ? `${name}-startup` : name, c, true);
  const csv = engineRate(csvFor('core-csv'), n, { startupRuns: 3 });
  const benthosCsv = benthosRate(csvFor('core-csv-benthos'), n, { startupRuns: 3 });
  rows.push({
    bench: 'csv input (header, batch_count 100) → drop',
    result: `${fmt(csv)} rows/s`,
    baseline: `file input, same file as lines ${fmt(lines)} lines/s`,
    ratio: csv / lines,
    target: '≥ 1× Benthos',
    pass: benthosCsv === undefined ? undefined : csv >= benthosCsv,
    ...peerCells(csv, benthosCsv, 'rows/s'),
  });
  return rows;
}
