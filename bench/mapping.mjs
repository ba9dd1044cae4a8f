// `mapping` with a 10-field restructure of a 1 KB JSON document, against the same
// transformation hand-written in plain TypeScript/JavaScript (a processor plugin), threads 1 and 2.
// Beside them Benthos runs the mapping's config, which names no plugin and so is plain Benthos YAML.
import { join } from 'node:path';
import { ROOT, engineRate, fmt, processorConfig } from './lib.mjs';
import { benthosRate, peerCells } from './peers.mjs';

const doc = {
  id: 'ord-0001',
  user: { first: 'Ada', last: 'Lovelace', email: 'Ada@Example.COM', age: 36, bio: 'x'.repeat(300) },
  address: { city: 'London', country: 'gb', street: '12 St James Square', zip: 'SW1Y 4JH' },
  order: {
    price: 12.5,
    quantity: 4,
    items: [
      { sku: 'a', n: 1 },
      { sku: 'b', n: 2 },
      { sku: 'c', n: 3 },
    ],
  },
  tags: ['new', 'priority', 'gift'],
  status: 'active',
  notes: 'n'.repeat(300),
};
const DOC = JSON.stringify(doc);
const MAPPING = `root.id = this.id
root.name = this.user.first + " " + this.user.last
root.email = this.user.email.lowercase()
root.age = this.user.age
root.city = this.address.city
root.country = this.address.country.uppercase()
root.total = this.order.price * this.order.quantity
root.items = this.order.items.length()
root.tags = this.tags.join(",")
root.active = this.status == "active"`;
const PLUGIN = join(ROOT, 'bench', 'plugins', 'restructure.mjs');

function cfg(name, count, threads, processor, plugins) {
  return processorConfig(name, { plugins, mapping: `root = ${DOC}`, count, threads, processor });
}

// Numbers are data: `root = this` over the same 1 KB document as text, once with plain numbers
// (the fast path: one scan, then JSON.parse) and once with 64-bit ids and `1.10`-style prices (the
// parser that keeps their text), so the row shows what keeping numbers costs when it is needed.
const KEPT = DOC.replace('"id":"ord-0001"', '"id":1234567890123456789')
  .replace('"age":36', '"age":36,"account":9007199254740993')
  .replace('"price":12.5', '"price":12.50');
const PLAIN = DOC.replace('"id":"ord-0001"', '"id":1234567').replace('"age":36', '"age":36,"account":7654321');

export async function run({ quick = false } = {}) {
  const n = quick ? 200_000 : 1_000_000;
  const mapping = `mapping: |\n${MAPPING.replace(/^/gm, '        ')}`;
  const rows = [];
  for (const threads of [1, 2]) {
    const configFor = (proc, name, plugins) => (c, startup) => cfg(startup ? `${name}-startup-${threads}` : `${name}-${threads}`, c, threads, proc, plugins);
    const hand = engineRate(configFor('bench_restructure: {}', 'hand', [PLUGIN]), n);
    const mapped = engineRate(configFor(mapping, 'mapping', []), n);
    const benthos = benthosRate(configFor(mapping, 'mapping-benthos', []), n / 2);
    rows.push({
      bench: `mapping: 10-field restructure of 1 KB JSON, threads ${threads}`,
      result: `${fmt(mapped)} msg/s`,
      baseline: `hand-written ${fmt(hand)} msg/s`,
      ratio: mapped / hand,
      target: '≥ 50% of hand-written',
      pass: mapped / hand >= 0.5,
      ...peerCells(mapped, benthos),
    });
  }
  const m = quick ? 100_000 : 500_000;
  const textCfg = (text, name) => (c, startup) =>
    processorConfig(startup ? `${name}-startup` : name, {
      plugins: [],
      mapping: `root = ${JSON.stringify(text)}`,
      count: c,
      threads: 1,
      processor: 'mapping: "root = this"',
    });
  const kept = engineRate(textCfg(KEPT, 'numbers-kept'), m);
  const plain = engineRate(textCfg(PLAIN, 'numbers-plain'), m);
  rows.push({
    bench: 'mapping: root = this over 1 KB JSON with 64-bit ids and 12.50 (numbers kept as text), threads 1',
    result: `${fmt(kept)} msg/s`,
    baseline: `same document, plain numbers ${fmt(plain)} msg/s`,
    ratio: kept / plain,
    target: '(what keeping text costs: no target)',
  });
  return rows;
}
