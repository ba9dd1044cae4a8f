// NATS KV on the nats-server of `scripts/services.sh up`: the engine's `nats_kv` components
// against the raw `nats` client doing what Benthos' component does, in the same run (Benthos
// v4.51.0's core build has no nats_kv: it lives in Redpanda Connect, whose module the Go proxy here
// refuses). Each side runs in its own process; this one samples the buckets every 20 ms and takes a
// rate from 5% done to all done, so start-up and connection set-up are left out for both.
//
// - generate → bucket: the engine's output (max_in_flight 1024, Benthos' default; each write
//   resolved once the bucket stored it) against a raw loop keeping 1024 puts in flight; each of N
//   messages a key of its own, so the bucket's value count is the progress.
// - bucket → bucket: the engine's input (watching all N keys) into its output, against a raw
//   watcher putting each entry into the sink (1024 puts in flight): the input measured through the
//   only place a watch leaves a trace.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ENGINE, ROOT, config, fmt } from './lib.mjs';

const require = createRequire(join(ROOT, 'plugins', 'package.json'));
const NATS = require.resolve('nats');
const { connect } = require('nats');
const URL_ = process.env.SVC_NATS_URL ?? 'nats://127.0.0.1:14222';
const BODY = JSON.stringify({ id: 0, name: 'svc', tags: ['a', 'b'], text: 'x'.repeat(200) });
const WINDOW = 1024;

/** The raw writer: COUNT puts of keys k.1..k.COUNT, WINDOW in flight. */
const RAW_PUT = (bucket, count) => `
const { connect } = require(${JSON.stringify(NATS)});
(async () => {
  const nc = await connect({ servers: ${JSON.stringify(URL_)} });
  const kv = await nc.jetstream().views.kv(${JSON.stringify(bucket)}, { bindOnly: true });
  const body = Buffer.from(${JSON.stringify(BODY)});
  let next = 1;
  const lane = async () => { while (next <= ${count}) await kv.put('k.' + next++, body); };
  await Promise.all(Array.from({ length: ${WINDOW} }, lane));
  process.on('SIGINT', () => nc.close().finally(() => process.exit(0)));
})();
`;

/** The raw copier: watch the source, put each entry into the sink, WINDOW in flight. */
const RAW_COPY = (source, sink) => `
const { connect } = require(${JSON.stringify(NATS)});
(async () => {
  const nc = await connect({ servers: ${JSON.stringify(URL_)} });
  const js = nc.jetstream();
  const src = await js.views.kv(${JSON.stringify(source)}, { bindOnly: true });
  const dst = await js.views.kv(${JSON.stringify(sink)}, { bindOnly: true });
  process.on('SIGINT', () => nc.close().finally(() => process.exit(0)));
  let inflight = 0, wake;
  for await (const e of await src.watch({ key: '>' })) {
    while (inflight >= ${WINDOW}) await new Promise((r) => (wake = r));
    inflight++;
    dst.put(e.key, e.value).finally(() => { inflight--; wake?.(); });
  }
})();
`;

async function rate(kv, count, args) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const deadline = Date.now() + 180_000;
    let start;
    for (;;) {
      if (child.exitCode !== null && child.exitCode !== 0) throw new Error(`the process exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error(`not done in 180 s`);
      const done = (await kv.status()).values;
      const now = performance.now();
      if (!start && done >= count * 0.05) start = { at: now, done };
      if (start && done >= count) return (done - start.done) / ((now - start.at) / 1000);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

function enginePut(bucket, count) {
  const cfg = config(
    'nats-kv-put',
    `http: { enabled: false }
logger: { level: WARN }
input:
  generate:
    count: ${count}
    interval: ""
    mapping: 'root = ${JSON.stringify(BODY).replace(/'/g, "''")}'
output:
  nats_kv:
    urls: [ ${URL_} ]
    bucket: ${bucket}
    key: k.\${! count("kv") }
    max_in_flight: ${WINDOW}
`,
  );
  return [ENGINE, '-c', cfg];
}

function engineCopy(source, sink) {
  const cfg = config(
    'nats-kv-copy',
    `http: { enabled: false }
logger: { level: WARN }
input:
  nats_kv:
    urls: [ ${URL_} ]
    bucket: ${source}
output:
  nats_kv:
    urls: [ ${URL_} ]
    bucket: ${sink}
    key: \${! meta("nats_kv_key") }
    max_in_flight: ${WINDOW}
`,
  );
  return [ENGINE, '-c', cfg];
}

export async function run({ quick = false } = {}) {
  const count = quick ? 20_000 : 100_000;
  const nc = await connect({ servers: URL_ });
  const js = nc.jetstream();
  const jsm = await nc.jetstreamManager();
  const made = [];
  const bucket = async (name) => {
    made.push(name);
    await jsm.streams.delete(`KV_${name}`).catch(() => undefined);
    return js.views.kv(name, { history: 1 });
  };
  const rows = [];
  try {
    let raw = 0;
    let eng = 0;
    // Best of two for each, alternating; each run writes into a fresh bucket.
    for (let i = 0; i < 2; i++) {
      for (const who of ['raw', 'engine']) {
        const name = `svc_bench_kv_${who}_${process.pid}`;
        const kv = await bucket(name);
        const r = await rate(kv, count, who === 'raw' ? ['-e', RAW_PUT(name, count)] : enginePut(name, count));
        if (who === 'raw') raw = Math.max(raw, r);
        else eng = Math.max(eng, r);
      }
    }
    rows.push({
      bench: `generate → NATS KV, ${WINDOW} in flight, ${count / 1000}k keys × ${BODY.length}-byte values, each resolved once stored`,
      result: `${fmt(eng)} msg/s`,
      baseline: `raw nats kv.put, ${WINDOW} in flight ${fmt(raw)} msg/s`,
      ratio: eng / raw,
      target: '≥ 1× msg/s',
      pass: eng / raw >= 1,
    });
    const sourceName = `svc_bench_kv_src_${process.pid}`;
    const source = await bucket(sourceName);
    const body = Buffer.from(BODY);
    for (let i = 0; i < count; i += 1000) {
      const puts = [];
      for (let j = i; j < Math.min(count, i + 1000); j++) puts.push(source.put(`k.${j}`, body));
      await Promise.all(puts);
    }
    raw = 0;
    eng = 0;
    for (let i = 0; i < 2; i++) {
      for (const who of ['raw', 'engine']) {
        const name = `svc_bench_kv_copy_${who}_${process.pid}`;
        const kv = await bucket(name);
        const r = await rate(kv, count, who === 'raw' ? ['-e', RAW_COPY(sourceName, name)] : engineCopy(sourceName, name));
        if (who === 'raw') raw = Math.max(raw, r);
        else eng = Math.max(eng, r);
      }
    }
    rows.push({
      bench: `NATS KV → NATS KV (watch all ${count / 1000}k keys, put each into another bucket, ${WINDOW} in flight)`,
      result: `${fmt(eng)} msg/s`,
      baseline: `raw nats watcher + kv.put ${fmt(raw)} msg/s`,
      ratio: eng / raw,
      target: '≥ 1× msg/s',
      pass: eng / raw >= 1,
    });
  } finally {
    for (const name of made) await jsm.streams.delete(`KV_${name}`).catch(() => undefined);
    await nc.close();
  }
  return rows;
}
