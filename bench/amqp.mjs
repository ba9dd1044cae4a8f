// RabbitMQ → drop: messages/s of the engine consuming a pre-filled queue (`amqp_0_9` input, acking
// each message once `drop` took it) against a raw amqplib consumer with the same prefetch that acks
// each message as it arrives, measured in the same run against the RabbitMQ of
// `scripts/services.sh up`. Each consumer runs in its own process; this one fills the queue (with
// publisher confirms) and samples its depth every 20 ms. The rate is taken from the sample where
// 5% of the queue was consumed to the one where it is empty, so start-up and connection set-up are
// left out for both. Target: ≥ 0.70× the raw consumer's rate.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ENGINE, ROOT, config, fmt } from './lib.mjs';

const require = createRequire(join(ROOT, 'plugins', 'package.json'));
const amqplib = require('amqplib');
const URL = process.env.SVC_RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672/';
const PLUGIN = join(ROOT, 'plugins', 'dist', 'amqp', 'index.js');
const BODY = Buffer.from(JSON.stringify({ id: 0, name: 'svc', tags: ['a', 'b'], text: 'x'.repeat(200) }));

/** The raw consumer: prefetch, ack each message on arrival, until killed. */
const RAW = (queue, prefetch) => `
const amqplib = require(${JSON.stringify(require.resolve('amqplib'))});
(async () => {
  const c = await amqplib.connect(${JSON.stringify(URL)});
  const ch = await c.createChannel();
  await ch.prefetch(${prefetch});
  await ch.consume(${JSON.stringify(queue)}, (m) => ch.ack(m), { noAck: false });
  process.on('SIGINT', () => c.close().finally(() => process.exit(0)));
})();
`;

async function withChannel(f) {
  const c = await amqplib.connect(URL);
  try {
    return await f(await c.createConfirmChannel());
  } finally {
    await c.close();
  }
}

/** Publishes `count` copies of BODY to `queue`, in batches of 5000 awaiting confirms. */
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

/** Messages/s of the consumer `args` starts, from 5% consumed to empty. */
async function consumeRate(queue, count, args) {
  const c = await amqplib.connect(URL);
  const ch = await c.createChannel();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const deadline = Date.now() + 120_000;
    let start;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the consumer exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error(`${queue} was not drained in 120 s`);
      const { messageCount } = await ch.checkQueue(queue);
      const now = performance.now();
      if (!start && messageCount <= count * 0.95) start = { at: now, left: messageCount };
      if (start && messageCount === 0) return start.left / ((now - start.at) / 1000);
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

function engineArgs(queue, prefetch) {
  const cfg = config(
    `amqp-drop-${prefetch}`,
    `http: { enabled: false }
logger: { level: WARN }
input:
  amqp_0_9:
    urls: [ ${JSON.stringify(URL)} ]
    queue: ${queue}
    prefetch_count: ${prefetch}
output:
  drop: {}
`,
  );
  return [ENGINE, '-c', cfg, '--plugin', PLUGIN];
}

export async function run({ quick = false } = {}) {
  const count = quick ? 30_000 : 150_000;
  const queue = `svc-bench-amqp-${process.pid}`;
  const rows = [];
  try {
    for (const prefetch of [10, 1000]) {
      // Best of two for each, alternating, so that both see the same broker state.
      let raw = 0;
      let eng = 0;
      for (let i = 0; i < 2; i++) {
        await fill(queue, count);
        raw = Math.max(raw, await consumeRate(queue, count, ['-e', RAW(queue, prefetch)]));
        await fill(queue, count);
        eng = Math.max(eng, await consumeRate(queue, count, engineArgs(queue, prefetch)));
      }
      rows.push({
        bench: `RabbitMQ → drop, prefetch_count ${prefetch}, ${count / 1000}k × ${BODY.length}-byte messages, acked one by one`,
        result: `${fmt(eng)} msg/s`,
        baseline: `raw amqplib consumer ${fmt(raw)} msg/s`,
        ratio: eng / raw,
        target: '≥ 0.70× msg/s',
        pass: eng / raw >= 0.7,
      });
    }
  } finally {
    await withChannel((ch) => ch.deleteQueue(queue)).catch(() => undefined);
  }
  return rows;
}
