// AMQP 1.0 on the RabbitMQ of `scripts/services.sh up` (its rabbitmq_amqp1_0 plugin): the engine's
// `amqp_1` components against the raw rhea client doing what Benthos' component does, in the same
// run (Benthos v4.51.0's core build has no amqp_1: it lives in Redpanda Connect, whose module the
// Go proxy here refuses). Each side runs in its own process; this one fills or empties the queue
// with amqplib and samples its depth every 20 ms; a rate is taken from 5% done to all done, so
// start-up and connection set-up are left out for both.
//
// - queue → drop: the engine's input (credit 64, Benthos' default; each message accepted once
//   `drop` took it) against a raw receiver with the same credit accepting each message on arrival.
// - generate → queue: the engine's output (max_in_flight 64, each write resolved on the broker's
//   accepted disposition) against a raw sender keeping 64 messages unsettled.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ENGINE, ROOT, config, fmt } from './lib.mjs';

const require = createRequire(join(ROOT, 'plugins', 'package.json'));
const amqplib = require('amqplib');
const RHEA = require.resolve('rhea');
const URL_ = process.env.SVC_RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672/';
const u = new URL(URL_);
const CONN = {
  host: u.hostname,
  port: Number(u.port || 5672),
  username: decodeURIComponent(u.username),
  password: decodeURIComponent(u.password),
  reconnect: false,
};
const BODY = Buffer.from(JSON.stringify({ id: 0, name: 'svc', tags: ['a', 'b'], text: 'x'.repeat(200) }));
const WINDOW = 64;

/** The raw receiver: credit WINDOW, accept each on arrival and give its credit back, until killed. */
const RAW_RECEIVER = (queue) => `
const rhea = require(${JSON.stringify(RHEA)});
const c = rhea.connect(${JSON.stringify(CONN)});
const r = c.open_receiver({ source: { address: '/amq/queue/${queue}' }, autoaccept: false, credit_window: 0 });
r.add_credit(${WINDOW});
r.on('message', (ctx) => { ctx.delivery.accept(); r.add_credit(1); });
process.on('SIGINT', () => { c.close(); setTimeout(() => process.exit(0), 100); });
`;

/** The raw sender: COUNT messages, WINDOW unsettled at most, each waiting for the broker's accepted. */
const RAW_SENDER = (queue, count) => `
const rhea = require(${JSON.stringify(RHEA)});
const body = rhea.message.data_section(Buffer.from(${JSON.stringify(BODY.toString())}));
const c = rhea.connect(${JSON.stringify(CONN)});
const s = c.open_sender({ target: { address: '/amq/queue/${queue}' } });
let sent = 0, unsettled = 0;
const pump = () => { while (sent < ${count} && unsettled < ${WINDOW} && s.sendable()) { s.send({ body }); sent++; unsettled++; } };
s.on('sendable', pump);
s.on('accepted', () => { unsettled--; pump(); });
process.on('SIGINT', () => { c.close(); setTimeout(() => process.exit(0), 100); });
`;

async function withChannel(f) {
  const c = await amqplib.connect(URL_);
  try {
    return await f(await c.createConfirmChannel());
  } finally {
    await c.close();
  }
}

function fill(queue, count) {
  return withChannel(async (ch) => {
    await ch.assertQueue(queue, { durable: false });
    await ch.purgeQueue(queue);
    for (let i = 0; i < count; i += 5000) {
      for (let j = i; j < Math.min(count, i + 5000); j++) ch.sendToQueue(queue, BODY);
      await ch.waitForConfirms();
    }
  });
}

function empty(queue) {
  return withChannel(async (ch) => {
    await ch.assertQueue(queue, { durable: false });
    await ch.purgeQueue(queue);
  });
}

/** Messages/s of the process `args` starts, from 5% done to all done; `left(depth)` is what is still to do. */
async function rate(queue, count, args, left) {
  const c = await amqplib.connect(URL_);
  const ch = await c.createChannel();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const deadline = Date.now() + 180_000;
    let start;
    for (;;) {
      if (child.exitCode !== null && child.exitCode !== 0) throw new Error(`the process exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error(`${queue}: not done in 180 s`);
      const todo = left((await ch.checkQueue(queue)).messageCount);
      const now = performance.now();
      if (!start && todo <= count * 0.95) start = { at: now, left: todo };
      if (start && todo === 0) return start.left / ((now - start.at) / 1000);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    await c.close();
  }
}

function engineDrop(queue) {
  const cfg = config(
    'amqp1-drop',
    `http: { enabled: false }
logger: { level: WARN }
input:
  amqp_1:
    urls: [ ${JSON.stringify(URL_)} ]
    source_address: /amq/queue/${queue}
    credit: ${WINDOW}
output:
  drop: {}
`,
  );
  return [ENGINE, '-c', cfg];
}

function engineSend(queue, count) {
  const cfg = config(
    'amqp1-send',
    `http: { enabled: false }
logger: { level: WARN }
input:
  generate:
    count: ${count}
    interval: ""
    mapping: 'root = ${JSON.stringify(BODY.toString()).replace(/'/g, "''")}'
output:
  amqp_1:
    urls: [ ${JSON.stringify(URL_)} ]
    target_address: /amq/queue/${queue}
    max_in_flight: ${WINDOW}
`,
  );
  return [ENGINE, '-c', cfg];
}

export async function run({ quick = false } = {}) {
  const count = quick ? 20_000 : 100_000;
  const queue = `svc-bench-amqp1-${process.pid}`;
  const rows = [];
  try {
    let raw = 0;
    let eng = 0;
    // Best of two for each, alternating, so that both see the same broker state.
    for (let i = 0; i < 2; i++) {
      await fill(queue, count);
      raw = Math.max(raw, await rate(queue, count, ['-e', RAW_RECEIVER(queue)], (d) => d));
      await fill(queue, count);
      eng = Math.max(eng, await rate(queue, count, engineDrop(queue), (d) => d));
    }
    rows.push({
      bench: `AMQP 1.0 (RabbitMQ) → drop, credit ${WINDOW}, ${count / 1000}k × ${BODY.length}-byte messages, each accepted once delivered`,
      result: `${fmt(eng)} msg/s`,
      baseline: `raw rhea receiver accepting on arrival ${fmt(raw)} msg/s`,
      ratio: eng / raw,
      target: '≥ 1× msg/s',
      pass: eng / raw >= 1,
    });
    raw = 0;
    eng = 0;
    for (let i = 0; i < 2; i++) {
      await empty(queue);
      raw = Math.max(raw, await rate(queue, count, ['-e', RAW_SENDER(queue, count)], (d) => count - d));
      await empty(queue);
      eng = Math.max(eng, await rate(queue, count, engineSend(queue, count), (d) => count - d));
    }
    rows.push({
      bench: `generate → AMQP 1.0 (RabbitMQ), ${WINDOW} in flight, ${count / 1000}k × ${BODY.length}-byte messages, each resolved on the broker's accepted`,
      result: `${fmt(eng)} msg/s`,
      baseline: `raw rhea sender, ${WINDOW} unsettled ${fmt(raw)} msg/s`,
      ratio: eng / raw,
      target: '≥ 1× msg/s',
      pass: eng / raw >= 1,
    });
  } finally {
    await withChannel((ch) => ch.deleteQueue(queue)).catch(() => undefined);
  }
  return rows;
}
