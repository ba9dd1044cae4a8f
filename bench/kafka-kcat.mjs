// Kafka at librdkafka's scale (issue 39 item 2): 200 k × 1 KB lines, 4-partition topics, each
// direction against kcat (librdkafka) in the same run, with a bare kafkajs loop beside them to show
// what the client itself allows. Rounds are interleaved (kcat, engine, kafkajs, kcat, …) and each
// row gives the median; every rate counts the whole process, start-up included, as a user's run does.
//   produce: a file of lines → topic. kcat -P -l (linger.ms=5, batch.num.messages=10000, acks=1 as
//            the engine's default), the engine's file → kafka output, kafkajs send() of 4 k records (1 MB a partition), 8 in flight.
//   consume: the topic → nothing, in a new group each time, from the oldest record. kcat -C -G … -e,
//            the engine's kafka input → drop (done when /metrics counts them all), kafkajs eachBatch.
// Beside each rate, the CPU seconds each process spent on the 200 k messages (its threads included;
// /usr/bin/time for the processes that end by themselves, /proc for the engine that is stopped), and
// the engine's start-up CPU (a run of one line to the same output): a loaded machine skews the rates
// between processes, the CPU per message far less, and it says how much is our code and how much kafkajs.
// kcat comes from Debian (`apt-get install -y kcat`); without it the rows say so.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { freePort } from '@svc/engine/testing';
import { DATA, ENGINE, ROOT, config, fmt } from './lib.mjs';
import { createServedTopics } from '../plugins/dist/kafka/topic-test-support.js';

const { Kafka, logLevel } = kafkajs;
const PARTITIONS = 4;
const ROUNDS = 3;
const BROKER = process.env.SVC_KAFKA_BROKERS ?? '127.0.0.1:9092';

function kcatPath() {
  const r = spawnSync('bash', ['-c', 'command -v kcat || command -v kafkacat'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** `count` lines of 1 KB (1023 characters and the newline), written once under bench/.data. */
function linesFile(count) {
  const file = join(DATA, `kafka-lines-${count}.txt`);
  if (!existsSync(file)) {
    const body = randomBytes(504).toString('hex').slice(0, 1015);
    const lines = [];
    for (let i = 0; i < count; i++) lines.push(`${String(i).padStart(8, '0')}${body}\n`);
    writeFileSync(file, lines.join(''));
  }
  return file;
}

const TIME = '/usr/bin/time';
const CPU_FILE = join(DATA, 'kafka-kcat-cpu.txt');

/** Runs a child to its exit; resolves with its wall time and its CPU seconds (NaN without /usr/bin/time). */
function timed(cmd, args, env = {}) {
  const withTime = existsSync(TIME);
  if (withTime) rmSync(CPU_FILE, { force: true });
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const [bin, argv] = withTime ? [TIME, ['-f', '%U %S', '-o', CPU_FILE, cmd, ...args]] : [cmd, args];
    const child = spawn(bin, argv, { stdio: ['ignore', 'ignore', 'inherit'], cwd: ROOT, env: { ...process.env, ...env } });
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const wall = (performance.now() - t0) / 1000;
      const cpu = withTime ? readFileSync(CPU_FILE, 'utf8').trim().split(/\s+/).slice(-2).map(Number) : [NaN, NaN];
      if (code === 0) resolve({ wall, cpu: cpu[0] + cpu[1] });
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code}`));
    });
  });
}

/** The CPU seconds a live process spent so far, all its threads (utime + stime, 100 ticks a second). */
function cpuOf(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** Runs the engine until its /metrics counts `count` messages received; resolves with seconds from spawn and its CPU seconds. */
async function engineUntilReceived(cfg, port, count) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [ENGINE, '-c', cfg], { stdio: ['ignore', 'ignore', 'inherit'], cwd: ROOT });
  try {
    const deadline = Date.now() + 300_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the engine exited ${child.exitCode}`);
      const text = await fetch(`http://127.0.0.1:${port}/metrics`)
        .then((r) => r.text())
        .catch(() => '');
      const m = /^svc_input_received\{[^}]*\} (\d+)/m.exec(text);
      if (m && Number(m[1]) >= count) return { wall: (performance.now() - t0) / 1000, cpu: cpuOf(child.pid) };
      if (Date.now() > deadline) throw new Error(`the engine received ${m?.[1] ?? 0} of ${count} within 300 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
  }
}

const RAW_PRODUCE = (topic, file) => `
import kafkajs from 'kafkajs';
import { readFileSync } from 'node:fs';
const kafka = new kafkajs.Kafka({ clientId: 'raw', brokers: [${JSON.stringify(BROKER)}], logLevel: kafkajs.logLevel.ERROR });
const producer = kafka.producer();
await producer.connect();
const text = readFileSync(${JSON.stringify(file)}, 'latin1');
const sends = [];
let messages = [];
for (let at = 0; at < text.length; ) {
  const nl = text.indexOf('\\n', at);
  messages.push({ value: Buffer.from(text.slice(at, nl), 'latin1') });
  at = nl + 1;
  if (messages.length === 4000 || at >= text.length) {
    sends.push(producer.send({ topic: ${JSON.stringify(topic)}, messages, acks: 1 }));
    messages = [];
    if (sends.length >= 8) await sends.shift();
  }
}
await Promise.all(sends);
await producer.disconnect();
`;

const RAW_CONSUME = (topic, group, count) => `
import kafkajs from 'kafkajs';
const kafka = new kafkajs.Kafka({ clientId: 'raw', brokers: [${JSON.stringify(BROKER)}], logLevel: kafkajs.logLevel.NOTHING });
const consumer = kafka.consumer({ groupId: ${JSON.stringify(group)} });
await consumer.connect();
await consumer.subscribe({ topics: [${JSON.stringify(topic)}], fromBeginning: true });
let n = 0;
await consumer.run({
  partitionsConsumedConcurrently: ${PARTITIONS},
  eachBatch: async ({ batch }) => {
    n += batch.messages.length;
    if (n >= ${count}) process.exit(0);
  },
});
`;

const produceConfig = (file, topic, headless = false) =>
  config(
    'kafka-kcat-produce',
    `http: { enabled: false }
logger: { level: WARN }
input:
  file: { paths: [ ${file} ], scanner: { lines: {} } }
output:
  kafka:
    addresses: [ ${BROKER} ]
    topic: ${topic}${headless ? '\n    metadata: { exclude_prefixes: [ "" ] }' : ''}
`,
  );

const consumeConfig = (topic, group, port) =>
  config(
    'kafka-kcat-consume',
    `http: { address: 127.0.0.1:${port} }
logger: { level: WARN }
input:
  kafka:
    addresses: [ ${BROKER} ]
    topics: [ ${topic} ]
    consumer_group: ${group}
    start_from_oldest: true
output:
  drop: {}
`,
  );

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run({ quick = false } = {}) {
  const count = quick ? 50_000 : 200_000;
  const kcat = kcatPath();
  if (kcat === undefined) {
    const row = { result: 'not run', baseline: 'kcat is not installed (apt-get install -y kcat)', ratio: NaN, target: '', pass: false };
    return [
      { bench: 'file → kafka output vs kcat -P', ...row },
      { bench: 'kafka input → drop vs kcat -C', ...row },
    ];
  }
  const file = linesFile(count);
  const kafka = new Kafka({ clientId: 'bench', brokers: [BROKER], logLevel: logLevel.ERROR });
  const admin = kafka.admin();
  await admin.connect();
  const id = randomBytes(4).toString('hex');
  const created = [];
  const topic = async (name) => {
    const t = `bench-kcat-${name}-${id}`;
    created.push(t);
    await createServedTopics(admin, [{ topic: t, numPartitions: PARTITIONS }]);
    return t;
  };
  const kcatProduce = (t) => [kcat, ['-P', '-b', BROKER, '-t', t, '-l', file, '-X', 'linger.ms=5', '-X', 'batch.num.messages=10000', '-X', 'acks=1']];
  const runs = () => ({ kcat: [], engine: [], headless: [], kafkajs: [] });
  const rates = { produce: runs(), consume: runs() };
  const startups = [];
  const one = linesFile(1);
  try {
    // The topic every consumer reads, written by kcat as in the issue.
    const source = await topic('src');
    await timed(...kcatProduce(source));
    for (let round = 0; round < ROUNDS; round++) {
      rates.produce.kcat.push(await timed(...kcatProduce(await topic(`kcat${round}`))));
      rates.produce.engine.push(await timed(process.execPath, [ENGINE, '-c', produceConfig(file, await topic(`engine${round}`))]));
      // The same without the file input's metadata as record headers (kcat -l sends none).
      rates.produce.headless.push(await timed(process.execPath, [ENGINE, '-c', produceConfig(file, await topic(`headless${round}`), true)]));
      rates.produce.kafkajs.push(await timed(process.execPath, ['--input-type=module', '-e', RAW_PRODUCE(await topic(`kafkajs${round}`), file)]));
      startups.push((await timed(process.execPath, [ENGINE, '-c', produceConfig(one, await topic(`startup${round}`))])).cpu);

      const group = (who) => `bench-kcat-${who}-${round}-${id}`;
      rates.consume.kcat.push(
        await timed(kcat, ['-C', '-b', BROKER, '-G', group('kcat'), '-o', 'beginning', '-e', '-q', '-X', 'auto.offset.reset=earliest', source]),
      );
      const port = await freePort();
      rates.consume.engine.push(await engineUntilReceived(consumeConfig(source, group('engine'), port), port, count));
      rates.consume.kafkajs.push(await timed(process.execPath, ['--input-type=module', '-e', RAW_CONSUME(source, group('kafkajs'), count)]));
    }
  } finally {
    await admin.deleteTopics({ topics: created }).catch(() => {});
    await admin.disconnect();
  }
  const startup = median(startups);
  const row = (dir, bench, target, goal) => {
    const r = rates[dir];
    const rate = (xs) => median(xs.map((x) => count / x.wall));
    const each = (xs) => xs.map((x) => fmt(count / x.wall)).join(' / ');
    // CPU microseconds a message, the engine's with its start-up taken off.
    const us = (xs, less = 0) => `${(((median(xs.map((x) => x.cpu)) - less) * 1e6) / count).toFixed(1)} µs`;
    const engine = rate(r.engine);
    const peer = rate(r.kcat);
    const raw = rate(r.kafkajs);
    const ratio = engine / peer;
    const headless = r.headless.length > 0 ? `; without metadata headers ${fmt(rate(r.headless))} msg/s, ${us(r.headless, startup)}` : '';
    return {
      bench: `${bench}, 1 KB, ${PARTITIONS} partitions (${fmt(count)} messages, median of ${ROUNDS} interleaved rounds)`,
      result: `${fmt(engine)} msg/s (${each(r.engine)}); CPU ${us(r.engine, startup)} a message after start-up (${startup.toFixed(2)} s)${headless}`,
      baseline:
        `kcat ${fmt(peer)} msg/s (${each(r.kcat)}), CPU ${us(r.kcat)} a message; ` +
        `bare kafkajs ${fmt(raw)} msg/s = ${(raw / peer).toFixed(2)}× kcat (${each(r.kafkajs)}), CPU ${us(r.kafkajs)} a message with its start-up`,
      ratio,
      target,
      pass: ratio >= goal,
    };
  };
  return [row('produce', 'file → kafka output vs kcat -P', '≥ 0.50× kcat', 0.5), row('consume', 'kafka input → drop vs kcat -C -G', '≥ 0.70× kcat', 0.7)];
}
