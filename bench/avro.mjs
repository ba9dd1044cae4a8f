// `avro` from_json and to_json (binary encoding) on a 10-field record (nested record, unions,
// enum, array, map, bytes, long), threads 1 and 2, against JSON.parse + JSON.stringify of the same
// record (bench/plugins/json-roundtrip.mjs) through the same engine in the same run.
//
// Both sides of a row get their input from the same kind of generate mapping, so only the
// processor differs: from_json and its baseline read the record's JSON (a literal); to_json reads
// the record's Avro bytes and its baseline the record's JSON, both decoded from base64 per message.
//
// Target: at least half the baseline's rate. Each Avro conversion does one JSON step (a parse for
// from_json, a stringify for to_json) plus the schema walk and the Avro encode or decode, where the
// baseline does a parse and a stringify: within 2× of it means the Avro work costs no more than the
// JSON work it stands in for.
import { join } from 'node:path';
import { Message } from '@svc/engine';
import { buildComponent } from '@svc/engine/testing';
import { ROOT, engineRate, fmt, processorConfig, yamlQuote } from './lib.mjs';

const AVRO_PLUGIN = join(ROOT, 'plugins', 'dist', 'avro', 'index.js');
const BASELINE_PLUGIN = join(ROOT, 'bench', 'plugins', 'json-roundtrip.mjs');
await import(AVRO_PLUGIN);

const SCHEMA = JSON.stringify({
  type: 'record',
  name: 'Order',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'quantity', type: 'int' },
    { name: 'created_at', type: 'long' },
    { name: 'price', type: 'double' },
    { name: 'note', type: ['null', 'string'], default: null },
    { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID', 'SHIPPED'] } },
    { name: 'tags', type: { type: 'array', items: 'string' } },
    { name: 'counters', type: { type: 'map', values: 'long' } },
    {
      name: 'address',
      type: {
        type: 'record',
        name: 'Address',
        fields: [
          { name: 'city', type: 'string' },
          { name: 'zip', type: ['null', 'string'], default: null },
        ],
      },
    },
    { name: 'checksum', type: 'bytes' },
  ],
});
const DOC = JSON.stringify({
  id: 'ord-0001',
  quantity: 4,
  created_at: 1_700_000_000_123,
  price: 12.5,
  note: 'leave at the door',
  status: 'PAID',
  tags: ['new', 'priority', 'gift'],
  counters: { views: 120, clicks: 7 },
  address: { city: 'London', zip: 'SW1Y 4JH' },
  checksum: '\u0000\u00ff\u0010\u0042',
});

/** The record's Avro binary encoding, made by the processor itself. */
async function avroBytes() {
  const from = await buildComponent('processor', 'avro', { operator: 'from_json', encoding: 'binary', schema: SCHEMA });
  const [[m]] = await from.process([new Message(DOC)]);
  if (m.error) throw new Error(m.error);
  return m.content;
}

function cfg(name, count, threads, mapping, processor) {
  return processorConfig(name, { plugins: [AVRO_PLUGIN, BASELINE_PLUGIN], mapping, count, threads, processor });
}

export async function run({ quick = false } = {}) {
  const n = quick ? 100_000 : 400_000;
  const avro = (operator) => `avro: { operator: ${operator}, encoding: binary, schema: ${yamlQuote(SCHEMA)} }`;
  const baseline = 'bench_json_roundtrip: {}';
  const jsonLiteral = `root = ${DOC}`;
  const fromBase64 = (buf) => `root = "${buf.toString('base64')}".decode("base64")`;
  const cases = [
    { operator: 'from_json', input: jsonLiteral, baselineInput: jsonLiteral },
    { operator: 'to_json', input: fromBase64(await avroBytes()), baselineInput: fromBase64(Buffer.from(DOC)) },
  ];
  const rows = [];
  for (const { operator, input, baselineInput } of cases) {
    for (const threads of [1, 2]) {
      const rate = (name, mapping, processor) =>
        engineRate((c, startup) => cfg(`avro-${name}${startup ? '-startup' : ''}-${threads}`, c, threads, mapping, processor), n);
      const base = rate(`${operator}-baseline`, baselineInput, baseline);
      const result = rate(operator, input, avro(operator));
      rows.push({
        bench: `avro ${operator} (binary), 10-field record, threads ${threads}`,
        result: `${fmt(result)} msg/s`,
        baseline: `JSON.parse + JSON.stringify ${fmt(base)} msg/s`,
        ratio: result / base,
        target: '≥ 50% of JSON.parse + JSON.stringify',
        pass: result / base >= 0.5,
      });
    }
  }
  return rows;
}

// `node bench/avro.mjs [--quick]` runs it alone and prints the rows.
if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run({ quick: process.argv.includes('--quick') })) {
    process.stdout.write(`${r.bench}: ${r.result} vs ${r.baseline} = ${r.ratio.toFixed(2)}× (target ${r.target}: ${r.pass ? 'met' : 'not met'})\n`);
  }
}
