// MQTT topic → MQTT topic at QoS 1: messages/s of the engine bridging a backlog (`mqtt` input in a
// persistent session, each message acknowledged once the `mqtt` output's broker acknowledged its
// copy; output max_in_flight 64) against the same bridge written on Benthos' MQTT client library,
// eclipse/paho.mqtt.golang (bench/peers/mqtt-paho: subscribe, publish each message with up to 64 in
// flight; paho acknowledges on receipt, as in Benthos). Benthos' core build has no mqtt component
// (it lives in Redpanda Connect, which the module proxy here refuses), so its client is the baseline.
// Against the Mosquitto of `scripts/services.sh up`. Every run gets its own persistent session, all
// of them filled from one publish; a watcher counts what reaches each run's sink topic, and the rate
// is taken from 5% to 100% arrived.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ENGINE, ROOT, config, fmt } from './lib.mjs';
import { PEERS } from './peers.mjs';

const require = createRequire(join(ROOT, 'plugins', 'package.json'));
const mqtt = require('mqtt');
const URL = process.env.SVC_MQTT_URL ?? 'tcp://127.0.0.1:11883';
/** Message i: the same size for every i (ids padded), so that the watcher can tell copies apart. */
const body = (i) => Buffer.from(JSON.stringify({ id: String(i).padStart(7, '0'), name: 'svc', tags: ['a', 'b'], text: 'x'.repeat(194) }));
const BODY_BYTES = body(0).length;

/** The paho bridge, built once with Go into $SVC_PEERS/bin; undefined without Go. */
function pahoBinary() {
  const bin = join(PEERS, 'bin', 'mqtt-paho');
  if (existsSync(bin)) return bin;
  const go = process.env.GO ?? 'go';
  if (spawnSync(go, ['version']).status !== 0) return undefined;
  mkdirSync(join(PEERS, 'bin'), { recursive: true });
  process.stderr.write(`building the paho MQTT bridge into ${bin} (once)...\n`);
  const r = spawnSync(go, ['build', '-o', `${bin}.tmp`, '.'], { cwd: join(ROOT, 'bench', 'peers', 'mqtt-paho'), stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`building the paho bridge failed (go build exited ${r.status})`);
  renameSync(`${bin}.tmp`, bin);
  return bin;
}

function engineArgs(clientId, from, to) {
  const cfg = config(
    'mqtt-bridge',
    `http: { enabled: false }
logger: { level: WARN }
input:
  mqtt:
    urls: [ ${URL} ]
    client_id: ${clientId}
    topics: [ ${from} ]
    qos: 1
    clean_session: false
output:
  mqtt:
    urls: [ ${URL} ]
    client_id: ${clientId}-out
    topic: ${to}
    qos: 1
    max_in_flight: 64
`,
  );
  return [process.execPath, [ENGINE, '-c', cfg]];
}

const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);

/** CPU milliseconds (user + system) a process used so far, from /proc. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** Messages/s of the bridge `cmd` starts, from 5% to all of `count` distinct messages seen on `sink`, and its CPU ms per 1k messages (start-up included). */
async function bridgeRate(watcher, sink, count, [cmd, args]) {
  const ids = new Set();
  let seen = 0;
  let start;
  let end;
  const done = new Promise((resolve) => {
    watcher.on('message', (topic, payload) => {
      if (topic !== sink) return;
      ids.add(payload.toString('latin1', 7, 14));
      seen = ids.size;
      if (!start && seen >= count * 0.05) start = { at: performance.now(), seen };
      if (seen === count && !end) {
        end = performance.now();
        resolve();
      }
    });
  });
  // QoS 1: Mosquitto may drop QoS 0 messages for a subscriber that falls behind.
  await watcher.subscribeAsync(sink, { qos: 1 });
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    let timer;
    const timeout = new Promise(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`${sink}: not all through in 180 s (${seen} of ${count})`)), 180_000)),
    );
    const died = exited.then(() => Promise.reject(new Error(`the bridge exited with ${child.exitCode}`)));
    died.catch(() => undefined);
    await Promise.race([done, timeout, died]).finally(() => clearTimeout(timer));
    return { rate: (count - start.seen) / ((end - start.at) / 1000), cpu: cpuMs(child.pid) / (count / 1000) };
  } finally {
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    watcher.removeAllListeners('message');
    await watcher.unsubscribeAsync(sink);
  }
}

export async function run({ quick = false } = {}) {
  const count = quick ? 20_000 : 100_000;
  const paho = pahoBinary();
  const base = `svc_bench_${process.pid}`;
  const source = `${base}/in`;
  const runs = [];
  for (let i = 0; i < 2; i++) for (const who of paho ? ['paho', 'engine'] : ['engine']) runs.push({ who, clientId: `${base}_${who}_${i}` });
  // Every run's session, subscribed before the backlog is published: each gets all of it.
  for (const r of runs) {
    const c = await mqtt.connectAsync(URL, { clientId: r.clientId, clean: false, reconnectPeriod: 0 });
    await c.subscribeAsync(source, { qos: 1 });
    await c.endAsync();
  }
  const pub = await mqtt.connectAsync(URL, { reconnectPeriod: 0 });
  for (let i = 0; i < count; i += 1000) {
    const sends = [];
    for (let j = i; j < Math.min(count, i + 1000); j++) sends.push(pub.publishAsync(source, body(j), { qos: 1 }));
    await Promise.all(sends);
  }
  await pub.endAsync();
  const watcher = await mqtt.connectAsync(URL, { reconnectPeriod: 0 });
  let eng = 0;
  let raw = 0;
  let engCpu = Infinity;
  let rawCpu = Infinity;
  try {
    // Best of two for each, alternating.
    for (const r of runs) {
      const sink = `${base}/out/${r.clientId}`;
      const cmd =
        r.who === 'paho' ? [paho, ['-url', URL, '-client-id', r.clientId, '-from', source, '-to', sink, '-qos', '1']] : engineArgs(r.clientId, source, sink);
      const { rate, cpu } = await bridgeRate(watcher, sink, count, cmd);
      if (r.who === 'paho') {
        raw = Math.max(raw, rate);
        rawCpu = Math.min(rawCpu, cpu);
      } else {
        eng = Math.max(eng, rate);
        engCpu = Math.min(engCpu, cpu);
      }
    }
  } finally {
    // Drop the sessions (a clean connect with the same id ends a persistent session).
    for (const r of runs) await (await mqtt.connectAsync(URL, { clientId: r.clientId, clean: true, reconnectPeriod: 0 })).endAsync();
    await watcher.endAsync();
  }
  return [
    {
      bench: `MQTT topic → MQTT topic (QoS 1 both ways, Mosquitto), ${count / 1000}k × ${BODY_BYTES}-byte messages, each acked at the source once the sink's broker acked it`,
      result: `${fmt(eng)} msg/s (CPU ${engCpu.toFixed(0)} ms per 1k)`,
      baseline: paho
        ? `Benthos' client library (paho.mqtt.golang v1.5.1) bridge, acking on receipt, ${fmt(raw)} msg/s (CPU ${rawCpu.toFixed(0)} ms per 1k)`
        : 'skipped: no Go',
      ratio: paho ? eng / raw : undefined,
      target: '≥ 1.00× msg/s',
      pass: paho ? eng / raw >= 1 : undefined,
    },
  ];
}
