// JetStream → drop: messages/s of the engine consuming a pre-filled stream (`nats_jetstream`
// input, a durable pull consumer, acking each message once `drop` took it) against a raw `nats`
// client consumer that acks each message as it arrives, in the same run, against the nats-server
// of `scripts/services.sh up`. Benthos' core build has no nats_jetstream, so the raw client is the
// baseline. Each consumer runs in its own process; the rate is taken from 5% acked to all acked
// (the consumer's pending + unacked count, sampled every 20 ms).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ENGINE, ROOT, config, fmt } from './lib.mjs';

const require = createRequire(join(ROOT, 'plugins', 'package.json'));
const NATS_MODULE = require.resolve('nats');
const { connect, AckPolicy } = require('nats');
const URL = process.env.SVC_NATS_URL ?? 'nats://127.0.0.1:14222';
const BODY = Buffer.from(JSON.stringify({ id: 0, name: 'svc', tags: ['a', 'b'], text: 'x'.repeat(200) }));

/** The raw consumer: the same durable pull consumer, each message acked on arrival, until killed. */
const RAW = (stream, durable) => `
const { connect } = require(${JSON.stringify(NATS_MODULE)});
(async () => {
  const nc = await connect({ servers: ${JSON.stringify(URL)} });
  const c = await nc.jetstream().consumers.get(${JSON.stringify(stream)}, ${JSON.stringify(durable)});
  const msgs = await c.consume({ max_messages: 256 });
  process.on('SIGINT', () => nc.close().finally(() => process.exit(0)));
  for await (const m of msgs) m.ack();
})();
`;

/** Messages/s of the consumer `args` starts on `durable`, from 5% acked to all acked. */
async function consumeRate(jsm, stream, durable, count, args) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const deadline = Date.now() + 120_000;
    let start;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the consumer exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error(`${stream} was not consumed in 120 s`);
      const info = await jsm.consumers.info(stream, durable);
      const left = info.num_pending + info.num_ack_pending;
      const now = performance.now();
      if (!start && left <= count * 0.95) start = { at: now, left };
      if (start && left === 0) return start.left / ((now - start.at) / 1000);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

function engineArgs(stream, durable) {
  const cfg = config(
    'nats-jetstream-drop',
    `http: { enabled: false }
logger: { level: WARN }
input:
  nats_jetstream:
    urls: [ ${URL} ]
    stream: ${stream}
    durable: ${durable}
    bind: true
output:
  drop: {}
`,
  );
  return [ENGINE, '-c', cfg];
}

export async function run({ quick = false } = {}) {
  const count = quick ? 20_000 : 100_000;
  const nc = await connect({ servers: URL });
  const jsm = await nc.jetstreamManager();
  const js = nc.jetstream();
  const stream = `svc_bench_${process.pid}`;
  await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
  try {
    for (let i = 0; i < count; i += 1000) {
      const acks = [];
      for (let j = i; j < Math.min(count, i + 1000); j++) acks.push(js.publish(`${stream}.in`, BODY));
      await Promise.all(acks);
    }
    let raw = 0;
    let eng = 0;
    // Best of two for each, alternating; each run reads the whole stream with a consumer of its own.
    for (let i = 0; i < 2; i++) {
      for (const who of ['raw', 'engine']) {
        const durable = `${who}_${i}`;
        await jsm.consumers.add(stream, { durable_name: durable, ack_policy: AckPolicy.Explicit, max_ack_pending: 1024 });
        const args = who === 'raw' ? ['-e', RAW(stream, durable)] : engineArgs(stream, durable);
        const rate = await consumeRate(jsm, stream, durable, count, args);
        if (who === 'raw') raw = Math.max(raw, rate);
        else eng = Math.max(eng, rate);
      }
    }
    return [
      {
        bench: `NATS JetStream → drop, ${count / 1000}k × ${BODY.length}-byte messages, each acked once delivered (max_ack_pending 1024)`,
        result: `${fmt(eng)} msg/s`,
        baseline: `raw nats client consumer acking on arrival ${fmt(raw)} msg/s`,
        ratio: eng / raw,
        target: '≥ 0.70× msg/s',
        pass: eng / raw >= 0.7,
      },
    ];
  } finally {
    await jsm.streams.delete(stream).catch(() => undefined);
    await nc.close();
  }
}
