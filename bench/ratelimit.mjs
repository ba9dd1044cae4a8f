// Rate limit accesses, in this process, one at a time.
//
// local: a keyed access (the seeded 64-bit hash of the key, a probe of the shared table) against
// an unkeyed one (the bucket in the header), on the same SharedArrayBuffer-backed limit, with a
// budget that never runs out so every access is admitted. 1000 distinct keys, taken in turn, so
// the probes reach the whole table rather than one cached bucket.
// Target: a keyed access at least half as fast as an unkeyed one.
//
// With SVC_BENCH_BEFORE=<another built svc tree> (a worktree of an older commit), the same keyed
// access and the gateway's window table take() of this tree against that tree's, each tree in a
// worker of this one process, measured in turn: the ratio says what a change to the table cost
// (target: within 10%). The older tree's own copies are read where they stood
// (plugins/…/local.js, gateway-plugin/…/window-table.js before the table moved into the kit).
//
// redis: an access to the `redis` kind (EVALSHA of the fixed-window script, one round trip)
// against a bare PING round trip on a client of the same library, same server (the shared Redis
// of scripts/services.sh), each awaited before the next: what the script costs over the network
// hop it cannot avoid. Target: at least 70% of PING's rate.
import '@svc/plugins';
import { createClient } from '@redis/client';
import { serviceAddress, RecordingLogger } from '@svc/engine/testing';
import { LocalRateLimit } from '../plugins/dist/ratelimit/local.js';
import { RedisRateLimit } from '../plugins/dist/redis/rate-limit.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { windowTableBytes } from '@svc/engine/kit';
import { fmt } from './lib.mjs';

/** Accesses per second of `f` over `n` calls, best of `runs`. */
function syncRate(n, runs, f) {
  let best = 0;
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    f(n);
    best = Math.max(best, n / (Number(process.hrtime.bigint() - t0) / 1e9));
  }
  return best;
}

async function asyncRate(n, runs, f) {
  let best = 0;
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await f(i);
    best = Math.max(best, n / (Number(process.hrtime.bigint() - t0) / 1e9));
  }
  return best;
}

export async function run({ quick }) {
  const rows = [];

  const n = quick ? 200_000 : 2_000_000;
  const rl = new LocalRateLimit(new SharedArrayBuffer(windowTableBytes(4096)), 2 ** 30, 3_600_000);
  const keys = Array.from({ length: 1000 }, (_, i) => `api-${i}:key-${(i * 7919) % 1000}`);
  let sink = 0;
  const unkeyed = (m) => {
    for (let i = 0; i < m; i++) sink += rl.access();
  };
  const keyed = (m) => {
    for (let i = 0; i < m; i++) sink += rl.access(keys[i % 1000]);
  };
  unkeyed(n / 10);
  keyed(n / 10); // warm-up
  const u = syncRate(n, 5, unkeyed);
  const k = syncRate(n, 5, keyed);
  if (sink !== 0) throw new Error('an access was refused: the budget ran out');
  rows.push({
    bench: 'rate limit: local keyed access (1000 keys) vs unkeyed',
    result: `${fmt(k)} accesses/s`,
    baseline: `unkeyed ${fmt(u)} accesses/s`,
    ratio: k / u,
    target: '≥ 50% of unkeyed',
    pass: k / u >= 0.5,
  });

  if (process.env.SVC_BENCH_BEFORE) rows.push(...(await beforeAndAfter(process.env.SVC_BENCH_BEFORE, n)));

  const url = serviceAddress('SVC_REDIS_URL');
  const calls = quick ? 2_000 : 20_000;
  const key = `svc-bench:rl:${process.pid}`;
  const limit = new RedisRateLimit(
    { url, count: 2 ** 30, intervalMs: 60_000, key, failOpen: false, timeoutMs: 1_000, logger: new RecordingLogger() },
    createClient,
  );
  await limit.start();
  const ping = createClient({ url });
  await ping.connect();
  try {
    await asyncRate(calls / 10, 1, () => ping.ping());
    await asyncRate(calls / 10, 1, (i) => limit.access(keys[i % 1000]));
    const p = await asyncRate(calls, 3, () => ping.ping());
    const a = await asyncRate(calls, 3, (i) => limit.access(keys[i % 1000]));
    rows.push({
      bench: 'rate limit: redis keyed access (one EVALSHA round trip) vs PING',
      result: `${fmt(a)} accesses/s`,
      baseline: `PING ${fmt(p)} round trips/s`,
      ratio: a / p,
      target: '≥ 70% of PING',
      pass: a / p >= 0.7,
    });
  } finally {
    // The counters expire with their window; remove them now rather than leave 1000 keys behind.
    await ping.sendCommand(['DEL', key, ...keys.map((k2) => `${key}:${k2}`)]).catch(() => {});
    await ping.close();
    await limit.close();
  }
  return rows;
}

/**
 * A worker that measures one tree's keyed local access and gateway window take() on request: a
 * worker has a registry of its own, so two trees' plugins can both register `local`.
 */
const MEASURER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { local, table, kit } = workerData;
  const { LocalRateLimit, tableBytes } = await import(local);
  const { WindowTable, windowTableBytes } = await import(table);
  const kitBytes = (await import(kit)).windowTableBytes;
  const keys = Array.from({ length: 1000 }, (_, i) => 'api-' + i + ':key-' + ((i * 7919) % 1000));
  const rl = new LocalRateLimit(new SharedArrayBuffer((tableBytes ?? kitBytes)(4096)), 2 ** 30, 3_600_000);
  const t = new WindowTable(new SharedArrayBuffer((windowTableBytes ?? kitBytes)(4096)));
  let refused = 0;
  const calls = {
    access: (m) => { for (let i = 0; i < m; i++) if (rl.access(keys[i % 1000]) !== 0) refused++; },
    take: (m) => { for (let i = 0; i < m; i++) if (t.take(keys[i % 1000], 2 ** 30, 3_600_000).blocked) refused++; },
  };
  parentPort.on('message', ({ what, n }) => {
    const t0 = process.hrtime.bigint();
    calls[what](n);
    const rate = n / (Number(process.hrtime.bigint() - t0) / 1e9);
    parentPort.postMessage(refused === 0 ? rate : -1);
  });
  parentPort.postMessage(0);
})();
`;

function measurer(workerData) {
  const w = new Worker(MEASURER, { eval: true, workerData });
  const replies = [];
  let waiting;
  w.on('message', (m) => (waiting ? (waiting(m), (waiting = undefined)) : replies.push(m)));
  const next = () => (replies.length ? Promise.resolve(replies.shift()) : new Promise((r) => (waiting = r)));
  return {
    ready: next(),
    /** Calls per second of `what` over `n` calls. */
    async rate(what, n) {
      w.postMessage({ what, n });
      const r = await next();
      if (r < 0) throw new Error('an access was refused: the budget ran out');
      return r;
    },
    close: () => w.terminate(),
  };
}

/** This tree's window table against the one in the built tree at `dir`: one worker each, measured in turn. */
async function beforeAndAfter(dir, n) {
  const here = new URL('..', import.meta.url).pathname;
  const gatewayTable = join(dir, 'gateway-plugin/dist/ratelimit/window-table.js');
  const kit = join(here, 'engine/dist/kit/index.js');
  const before = measurer({
    local: join(dir, 'plugins/dist/ratelimit/local.js'),
    table: existsSync(gatewayTable) ? gatewayTable : join(dir, 'engine/dist/kit/index.js'),
    kit,
  });
  const after = measurer({ local: join(here, 'plugins/dist/ratelimit/local.js'), table: kit, kit });
  await Promise.all([before.ready, after.ready]);
  const rows = [];
  try {
    for (const [what, bench, unit] of [
      ['access', 'rate limit: local keyed access (1000 keys), this tree vs the tree before', 'accesses/s'],
      ['take', "gateway's window table take() (1000 keys), this tree vs the tree before", 'takes/s'],
    ]) {
      await before.rate(what, n / 10);
      await after.rate(what, n / 10); // warm-up
      let b = 0;
      let a = 0;
      // Interleaved rounds, best of each: the machine's load moves both alike.
      for (let r = 0; r < 5; r++) {
        b = Math.max(b, await before.rate(what, n));
        a = Math.max(a, await after.rate(what, n));
      }
      rows.push({ bench, result: `${fmt(a)} ${unit}`, baseline: `before ${fmt(b)} ${unit}`, ratio: a / b, target: '≥ 0.90× of before', pass: a / b >= 0.9 });
    }
  } finally {
    await Promise.all([before.close(), after.close()]);
  }
  return rows;
}
