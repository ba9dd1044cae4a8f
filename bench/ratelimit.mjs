// Rate limit accesses, in this process, one at a time.
//
// local: a keyed access (the seeded 64-bit hash of the key, a probe of the shared table) against
// an unkeyed one (the bucket in the header), on the same SharedArrayBuffer-backed limit, with a
// budget that never runs out so every access is admitted. 1000 distinct keys, taken in turn, so
// the probes reach the whole table rather than one cached bucket.
// Target: a keyed access at least half as fast as an unkeyed one.
//
// redis: an access to the `redis` kind (EVALSHA of the fixed-window script, one round trip)
// against a bare PING round trip on a client of the same library, same server (the shared Redis
// of scripts/services.sh), each awaited before the next: what the script costs over the network
// hop it cannot avoid. Target: at least 70% of PING's rate.
import '@svc/plugins';
import { createClient } from '@redis/client';
import { serviceAddress, RecordingLogger } from '@svc/engine/testing';
import { LocalRateLimit, tableBytes } from '../plugins/dist/ratelimit/local.js';
import { RedisRateLimit } from '../plugins/dist/redis/rate-limit.js';
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
  const rl = new LocalRateLimit(new SharedArrayBuffer(tableBytes(4096)), 2 ** 30, 3_600_000);
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
