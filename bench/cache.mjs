// The cache processor and dedupe, generate → processors → drop at threads 1, batches of 100,
// 1000 distinct keys (`count("c") % 1000`): whole CLI processes, start-up subtracted (lib.mjs's
// engineRate), Benthos on the same YAML in the same run where its build has the cache.
//
// - cache on memory: a `set` then a `get` of the same key per message. Baseline: the same config
//   with no processors (what the two cache operations cost on top of the stream).
// - dedupe on memory: `dedupe` on the key (most messages are duplicates and dropped).
// - cache on Redis (the shared Redis of scripts/services.sh): `set` then `get`, each a round
//   trip, awaited per message as Benthos does. Baseline: the same SET and GET round trips from a
//   bare @redis/client loop in this process. Benthos' core build here has no redis cache.
// - main-thread affinity: the cache processor on memory with every batch sent to 2 pipeline workers
//   (`dispatch: pool`); the processor is `mainThread`, so each batch goes on to the main thread's
//   instance and back: against the same at threads 1, what the two hops cost.
// Target (issue 27): ≥ 1× Benthos at threads 1.
import { createClient } from '@redis/client';
import { serviceAddress } from '@svc/engine/testing';
import { config, engineRate, fmt } from './lib.mjs';
import { benthosRate, peerCells } from './peers.mjs';

const MAPPING = 'root = {"id": count("c") % 1000, "pad": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}';

function cfg(name, count, processors, resources, threads = 1, dispatch = '') {
  return config(
    name,
    `http: { enabled: false }
logger: { level: WARN }
input:
  generate: { mapping: '${MAPPING}', interval: '', count: ${count}, batch_size: 100 }
pipeline:
  threads: ${threads}
${dispatch ? `  dispatch: ${dispatch}\n` : ''}  processors: ${processors}
output:
  drop: {}
${resources}`,
  );
}

const SET_GET = `
    - cache: { resource: c, operator: set, key: 'k\${! this.id }', value: '\${! content() }' }
    - cache: { resource: c, operator: get, key: 'k\${! this.id }' }`;
const DEDUPE = `
    - dedupe: { cache: c, key: '\${! this.id }' }`;
const MEMORY = 'cache_resources:\n  - label: c\n    memory: {}\n';

/** Round trips per second of a bare client doing SET then GET per message, awaited in turn. */
async function bareRedis(url, n) {
  const client = createClient({ url });
  await client.connect();
  const value = JSON.stringify({ id: 0, pad: 'x'.repeat(50) });
  let best = 0;
  try {
    for (let r = 0; r < 2; r++) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) {
        const k = `svc-bench:cache:k${i % 1000}`;
        await client.set(k, value);
        await client.get(k);
      }
      best = Math.max(best, n / (Number(process.hrtime.bigint() - t0) / 1e9));
    }
  } finally {
    await client.close();
  }
  return best;
}

export async function run({ quick = false } = {}) {
  const n = quick ? 200_000 : 1_000_000;
  const rows = [];
  const plain = engineRate((c, s) => cfg(s ? 'cache-none-startup' : 'cache-none', c, '[]', ''), n, { startupRuns: 3 });
  for (const [label, procs] of [
    ['cache processor on memory (set + get per message)', SET_GET],
    ['dedupe on memory', DEDUPE],
  ]) {
    const slug = label.startsWith('dedupe') ? 'dedupe' : 'cache-mem';
    const configFor = (name) => (c, startup) => cfg(startup ? `${name}-startup` : name, c, procs, MEMORY);
    const rate = engineRate(configFor(slug), n, { startupRuns: 3 });
    const benthos = benthosRate(configFor(`${slug}-benthos`), Math.round(n / 4), { startupRuns: 3 });
    rows.push({
      bench: `${label}, threads 1, 1000 keys`,
      result: `${fmt(rate)} msg/s`,
      baseline: `no processors ${fmt(plain)} msg/s`,
      ratio: rate / plain,
      target: '≥ 1× Benthos',
      pass: benthos === undefined ? undefined : rate >= benthos,
      ...peerCells(rate, benthos),
    });
  }
  const pooled = engineRate((c, s) => cfg(s ? 'cache-pool-startup' : 'cache-pool', c, SET_GET, MEMORY, 2, 'pool'), Math.round(n / 10), { startupRuns: 2 });
  const inline = rows[0] ? Number(rows[0].ratio) * plain : undefined;
  rows.push({
    bench: 'cache processor on memory from 2 pipeline workers (dispatch: pool; every batch a hop to the main thread and back)',
    result: `${fmt(pooled)} msg/s`,
    baseline: `threads 1 ${fmt(inline ?? 0)} msg/s`,
    ratio: inline ? pooled / inline : 0,
    target: '',
  });
  const url = serviceAddress('SVC_REDIS_URL');
  const rn = quick ? 5_000 : 20_000;
  const redis = `cache_resources:\n  - label: c\n    redis: { url: ${url}, prefix: "svc-bench:cache:" }\n`;
  const rate = engineRate((c, s) => cfg(s ? 'cache-redis-startup' : 'cache-redis', c, SET_GET, redis), rn, { startupRuns: 2 });
  const bare = await bareRedis(url, rn);
  rows.push({
    bench: 'cache processor on Redis (set + get per message, awaited), threads 1',
    result: `${fmt(rate)} msg/s`,
    baseline: `bare @redis/client SET + GET ${fmt(bare)} msg/s`,
    ratio: rate / bare,
    target: '≥ 0.7× the bare client',
    pass: rate >= 0.7 * bare,
    peer: 'not in this Benthos build (core: io + pure, no redis cache)',
  });
  return rows;
}
