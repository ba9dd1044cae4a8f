// The Redis connectors against the shared Redis of scripts/services.sh. Benthos' core build here
// has no Redis components (they are in Redpanda Connect), so each row compares with the raw
// @redis/client doing the same work the fastest plain way, each side a process of its own:
//
// - redis_list → drop: a pre-filled list of 200-byte messages popped by the engine (up to 100 per
//   LPOP, BLPOP when empty) against a raw loop of `LPOP key 100`. The rate runs from the sample
//   (every 20 ms) where 5% of the list was consumed to the one where it is empty.
// - redis_streams → drop: a pre-filled stream read by a consumer group (`limit: 100`, XACK after
//   delivery, every commit_period) against a raw loop of `XREADGROUP COUNT 100` + `XACK` of what it
//   read; the rate from 5% read to all read (XINFO GROUPS' lag 0; the engine acknowledges after
//   delivery, every commit_period, 1 s by default, the raw loop after each read).
// - generate → redis_list (RPUSH): whole CLI processes, start-up subtracted (lib.mjs's engineRate),
//   batches of 100 as one RPUSH each (Benthos: one RPUSH per message, a batch as one pipeline),
//   against Benthos v4.51 with redis_list written as Redpanda Connect writes it (bench/peers/
//   benthos-connect: a go-redis pipeline of one RPUSH per message) on the same YAML, and a raw loop
//   of one awaited 100-value RPUSH at a time; runs alternating, best of three each.
// Target (issue 28): at least the raw client's rate where it does the same round trips.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { serviceAddress } from '@svc/engine/testing';
import { ENGINE, ROOT, config, engineRate, fmt } from './lib.mjs';
import { benthosRate, connectPeerBinary, peerCells } from './peers.mjs';

const URL = serviceAddress('SVC_REDIS_URL');
const BODY = JSON.stringify({ id: 0, name: 'svc', tags: ['a', 'b'], text: 'x'.repeat(150) });
const CLIENT = JSON.stringify(createRequire(join(ROOT, 'plugins', 'package.json')).resolve('@redis/client'));

async function admin(f) {
  const c = createClient({ url: URL });
  await c.connect();
  try {
    return await f(c);
  } finally {
    await c.close();
  }
}

async function fillList(key, count) {
  await admin(async (c) => {
    await c.del(key);
    for (let i = 0; i < count; i += 1000) await c.sendCommand(['RPUSH', key, ...Array(Math.min(1000, count - i)).fill(BODY)]);
  });
}

async function fillStream(key, count) {
  await admin(async (c) => {
    await c.del(key);
    for (let i = 0; i < count; i += 1000) {
      await Promise.all(Array.from({ length: Math.min(1000, count - i) }, () => c.sendCommand(['XADD', key, '*', 'body', BODY])));
    }
    await c.sendCommand(['XGROUP', 'CREATE', key, 'bench', '0']);
  });
}

/**
 * What is left to consume: the list's length, or the entries the group has not read yet (its lag;
 * acknowledgements are sent after, asynchronously, every commit_period for the engine).
 */
async function left(c, kind, key) {
  if (kind === 'list') return Number(await c.sendCommand(['LLEN', key]));
  const groups = await c.sendCommand(['XINFO', 'GROUPS', key]);
  const g = groups[0];
  const get = (name) => (g instanceof Map ? g.get(name) : Array.isArray(g) ? g[g.indexOf(name) + 1] : g[name]);
  return Number(get('lag') ?? 0);
}

/** Messages/s of the consumer that `args` starts, from 5% consumed to nothing left. */
async function consumeRate(kind, key, count, args) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    return await admin(async (c) => {
      const deadline = Date.now() + 120_000;
      let start;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`the consumer exited with ${child.exitCode}`);
        if (Date.now() > deadline) throw new Error(`${key} was not consumed in 120 s`);
        const n = await left(c, kind, key);
        const now = performance.now();
        if (!start && n <= count * 0.95) start = { at: now, left: n };
        if (start && n === 0) return start.left / ((now - start.at) / 1000);
        await new Promise((r) => setTimeout(r, 20));
      }
    });
  } finally {
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

const RAW_LIST = (key) => `
const { createClient } = await import(${CLIENT});
const c = createClient({ url: ${JSON.stringify(URL)} });
await c.connect();
process.on('SIGINT', () => process.exit(0));
for (;;) {
  const r = await c.sendCommand(['LPOP', ${JSON.stringify(key)}, '100']);
  if (!r) await new Promise((res) => setTimeout(res, 5));
}
`;

const RAW_STREAM = (key) => `
const { createClient } = await import(${CLIENT});
const c = createClient({ url: ${JSON.stringify(URL)} });
await c.connect();
process.on('SIGINT', () => process.exit(0));
for (;;) {
  const r = await c.sendCommand(['XREADGROUP', 'GROUP', 'bench', 'raw', 'COUNT', '100', 'BLOCK', '100', 'STREAMS', ${JSON.stringify(key)}, '>']);
  if (!r) continue;
  for (const entries of Object.values(r)) if (entries.length) await c.sendCommand(['XACK', ${JSON.stringify(key)}, 'bench', ...entries.map((e) => e.id ?? e[0])]);
}
`;

function engineArgs(name, input) {
  const cfg = config(
    name,
    `http: { enabled: false }
logger: { level: WARN }
input:
${input}
output:
  drop: {}
`,
  );
  return [ENGINE, '-c', cfg];
}

/** RPUSHes/s of a raw client: one awaited RPUSH of 100 values at a time. */
async function rawPush(key, count) {
  return admin(async (c) => {
    await c.del(key);
    const values = Array(100).fill(BODY);
    const t0 = performance.now();
    for (let i = 0; i < count; i += 100) await c.sendCommand(['RPUSH', key, ...values]);
    const rate = count / ((performance.now() - t0) / 1000);
    await c.del(key);
    return rate;
  });
}

export async function run({ quick = false } = {}) {
  const count = quick ? 50_000 : 200_000;
  const key = `svc-bench:redis:${process.pid}`;
  const rows = [];
  try {
    // Best of two for each, alternating, so that both see the same server state.
    let raw = 0;
    let eng = 0;
    for (let i = 0; i < 2; i++) {
      await fillList(key, count);
      raw = Math.max(raw, await consumeRate('list', key, count, ['--input-type=module', '-e', RAW_LIST(key)]));
      await fillList(key, count);
      eng = Math.max(eng, await consumeRate('list', key, count, engineArgs('redis-list-drop', `  redis_list: { url: ${URL}, key: "${key}" }`)));
    }
    rows.push({
      bench: `redis_list → drop, ${count / 1000}k × ${BODY.length}-byte messages`,
      result: `${fmt(eng)} msg/s`,
      baseline: `raw @redis/client LPOP key 100 loop ${fmt(raw)} msg/s`,
      ratio: eng / raw,
      target: '≥ 1× the raw client',
      pass: eng >= raw,
      peer: 'not in this Benthos build (core: io + pure, no redis)',
    });

    const scount = Math.round(count / 2);
    raw = 0;
    eng = 0;
    for (let i = 0; i < 2; i++) {
      await fillStream(key, scount);
      raw = Math.max(raw, await consumeRate('stream', key, scount, ['--input-type=module', '-e', RAW_STREAM(key)]));
      await fillStream(key, scount);
      eng = Math.max(
        eng,
        await consumeRate(
          'stream',
          key,
          scount,
          engineArgs('redis-streams-drop', `  redis_streams: { url: ${URL}, streams: [ "${key}" ], consumer_group: bench, client_id: svc, limit: 100 }`),
        ),
      );
    }
    rows.push({
      bench: `redis_streams → drop, consumer group, limit 100, XACK after delivery, ${scount / 1000}k × ${BODY.length}-byte entries`,
      result: `${fmt(eng)} msg/s`,
      baseline: `raw @redis/client XREADGROUP COUNT 100 + XACK loop ${fmt(raw)} msg/s`,
      ratio: eng / raw,
      target: '≥ 1× the raw client',
      pass: eng >= raw,
      peer: 'not in this Benthos build (core: io + pure, no redis)',
    });

    // The output row moves 5× the messages (start-up is about half a second, the run not much more
    // at 200k) and alternates engine, Benthos and raw runs, best of three each, so all see the same load.
    const ocount = count * 5;
    const out = (n, startup) =>
      config(
        startup ? 'redis-list-out-startup' : 'redis-list-out',
        `http: { enabled: false }
logger: { level: WARN }
input:
  generate: { mapping: 'root = ${BODY}', interval: '', count: ${n}, batch_size: 100 }
output:
  redis_list: { url: ${URL}, key: "${key}:out" }
`,
      );
    eng = 0;
    raw = 0;
    let peer;
    const bin = connectPeerBinary();
    for (let i = 0; i < 3; i++) {
      eng = Math.max(eng, engineRate(out, ocount, { startupRuns: 2, runs: 1 }));
      await admin((c) => c.del(`${key}:out`));
      if (bin) peer = Math.max(peer ?? 0, benthosRate(out, ocount, { startupRuns: 2, runs: 1 }, bin));
      await admin((c) => c.del(`${key}:out`));
      raw = Math.max(raw, await rawPush(`${key}:raw`, ocount));
    }
    rows.push({
      bench: `generate → redis_list (RPUSH), batches of 100, max_in_flight 64, ${ocount / 1000}k × ${BODY.length}-byte messages`,
      result: `${fmt(eng)} msg/s`,
      baseline: `raw @redis/client awaited RPUSH of 100 (string) values ${fmt(raw)} msg/s`,
      ratio: eng / raw,
      target: '≥ 1× Benthos',
      pass: peer === undefined ? undefined : eng >= peer,
      ...peerCells(
        eng,
        peer,
        'msg/s',
        peer === undefined ? undefined : `${fmt(peer)} msg/s (redis_list as Connect writes it: a go-redis pipeline of one RPUSH per message)`,
      ),
    });
  } finally {
    await admin((c) => c.del([key, `${key}:out`, `${key}:raw`])).catch(() => undefined);
  }
  return rows;
}
