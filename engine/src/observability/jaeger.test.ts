/**
 * The `tracer_a` / `jaeger` tracer against test doubles of a Jaeger agent (a UDP socket decoding
 * the agent's binary-Thrift `emitBatch` packets) and of a Jaeger collector (an HTTP server taking
 * Thrift batches at /api/traces), both decoding with thriftrw and jaeger-client's own IDL. No
 * Jaeger server can be had here.
 */
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { registry } from '../plugin/registry.js';
import { Stream } from '../runtime/stream.js';
import { configOf, TEST_PLUGIN } from '../testing/run-config.js';
import { createLogger, type LogSink } from './logger.js';
import { jaegerHeadSampler } from './jaeger-tracer.js';

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Thrift } = require('thriftrw') as { Thrift: new (opts: Record<string, unknown>) => ThriftModule };
interface ThriftModule {
  Agent: { emitBatch: { argumentsMessageRW: { readFrom(buf: Buffer, offset: number): { err?: Error; value: { body: { batch: ThriftBatch } } } } } };
  Batch: { rw: { readFrom(buf: Buffer, offset: number): { err?: Error; value: ThriftBatch } } };
}
interface ThriftTag {
  key: string;
  vType: string;
  vStr: string;
  vDouble: number;
  vBool: boolean;
}
interface ThriftSpan {
  traceIdLow: Buffer;
  traceIdHigh: Buffer;
  spanId: Buffer;
  parentSpanId: Buffer;
  operationName: string;
  flags: number;
  startTime: Buffer;
  duration: Buffer;
  tags: ThriftTag[];
  logs: Array<{ fields: ThriftTag[] }>;
}
interface ThriftBatch {
  process: { serviceName: string; tags: ThriftTag[] };
  spans: ThriftSpan[];
}

const agentThrift = new Thrift({
  entryPoint: require.resolve('jaeger-client/dist/src/thriftrw-idl/agent.thrift'),
  allowFilesystemAccess: true,
  allowOptionalArguments: true,
});
const jaegerThrift = new Thrift({
  source: readFileSync(require.resolve('jaeger-client/dist/src/jaeger-idl/thrift/jaeger.thrift'), 'ascii'),
  allowOptionalArguments: true,
});

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

interface Decoded {
  name: string;
  traceId: string;
  spanId: string;
  parentId: string;
  tags: Record<string, string | number | boolean>;
  logs: Array<Record<string, string | number | boolean>>;
  start: bigint;
  duration: bigint;
}

function tagMap(tags: ThriftTag[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const t of tags) out[t.key] = t.vType === 'STRING' ? t.vStr : t.vType === 'BOOL' ? t.vBool : t.vDouble;
  return out;
}

function decode(batch: ThriftBatch): Decoded[] {
  return batch.spans.map((s) => ({
    name: s.operationName,
    traceId: s.traceIdHigh.toString('hex') + s.traceIdLow.toString('hex'),
    spanId: s.spanId.toString('hex'),
    parentId: s.parentSpanId.toString('hex'),
    tags: tagMap(s.tags),
    logs: s.logs.map((l) => tagMap(l.fields)),
    start: s.startTime.readBigInt64BE(0),
    duration: s.duration.readBigInt64BE(0),
  }));
}

/** The Jaeger agent double: UDP, binary Thrift `Agent.emitBatch`. */
async function agentDouble(): Promise<{ address: string; spans: Decoded[]; packets: number[]; process: Array<ThriftBatch['process']>; close(): void }> {
  const sock = dgram.createSocket('udp4');
  const spans: Decoded[] = [];
  const packets: number[] = [];
  const process: Array<ThriftBatch['process']> = [];
  sock.on('message', (buf) => {
    packets.push(buf.length);
    const r = agentThrift.Agent.emitBatch.argumentsMessageRW.readFrom(buf, 0);
    if (r.err) throw r.err;
    process.push(r.value.body.batch.process);
    spans.push(...decode(r.value.body.batch));
  });
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', r));
  sock.setRecvBufferSize(4 * 1024 * 1024);
  return { address: `127.0.0.1:${sock.address().port}`, spans, packets, process, close: () => sock.close() };
}

async function runStream(yaml: string, sink?: LogSink): Promise<void> {
  const s = new Stream({ config: configOf(yaml), registry: registry(), logger: createLogger({ level: sink ? 'WARN' : 'OFF' }, sink), plugins: [TEST_PLUGIN] });
  await s.run(); // closing the stream flushes the tracer
}

/** Polls until `n` spans arrived (UDP gives no ack to wait for). */
async function spansArrive(spans: Decoded[], n: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (spans.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

describe('tracer_a / jaeger → Jaeger agent and collector test doubles', () => {
  let agent: Awaited<ReturnType<typeof agentDouble>>;
  before(async () => (agent = await agentDouble()));
  after(() => agent.close());

  it('sends spans to the agent over UDP: names, parent/child links, tags, errors', async () => {
    agent.spans.length = 0;
    await runStream(`
input: { test_source: { name: jg1, count: 6, batch_size: 3, traceparent: "00-${TRACE}-${PARENT}-01" } }
pipeline:
  threads: 2
  processors:
    - label: thrower
      test_throw: { on: ["1"] }
output: { label: sent, test_sink: { name: jg1 } }
tracer:
  tracer_a:
    agent_address: ${agent.address}
    sampler_type: const
    sampler_param: 1
    tags: { env: test }
    flush_interval: 50ms
`);
    await spansArrive(agent.spans, 18);
    const roots = agent.spans.filter((s) => s.tags['svc.component.kind'] === 'input');
    assert.equal(roots.length, 6);
    for (const root of roots) {
      assert.equal(root.traceId, TRACE, 'continues the extracted trace');
      assert.equal(root.parentId, PARENT);
      assert.equal(root.name, 'test_source');
      const kids = agent.spans.filter((s) => s.parentId === root.spanId);
      assert.deepEqual(kids.map((k) => k.name).sort(), ['sent', 'thrower']);
      for (const k of kids) assert.equal(k.traceId, TRACE);
    }
    const failed = agent.spans.filter((s) => s.name === 'thrower' && s.tags.error === true);
    assert.equal(failed.length, 3);
    assert.equal(failed[0]!.logs[0]!.message, 'boom (test)');
    const proc = agent.process[0]!;
    assert.equal(proc.serviceName, 'svc');
    assert.equal(tagMap(proc.tags).env, 'test', 'tags are process tags');
  });

  it('never sends a packet over max_packet_size, and loses no span in a burst', async () => {
    agent.spans.length = 0;
    agent.packets.length = 0;
    await runStream(`
input: { test_source: { name: jg2, count: 600, batch_size: 200 } }
pipeline: { threads: 1 }
output: { test_sink: { name: jg2 } }
tracer:
  jaeger:
    agent_address: ${agent.address}
    max_packet_size: 4096
    flush_interval: 10s
`);
    await spansArrive(agent.spans, 1200);
    assert.equal(agent.spans.length, 1200, 'a root and a write span per message');
    assert.ok(agent.packets.length > 10, `bursts were split into ${agent.packets.length} packets`);
    const largest = Math.max(...agent.packets);
    assert.ok(largest <= 4096, `largest packet ${largest} bytes`);
  });

  it('samples with probabilistic and const fractions; 0 samples nothing', async () => {
    agent.spans.length = 0;
    await runStream(`
input: { test_source: { name: jg3, count: 400, batch_size: 50 } }
pipeline: { threads: 1 }
output: { test_sink: { name: jg3 } }
tracer: { jaeger: { agent_address: "${agent.address}", sampler_type: probabilistic, sampler_param: 0.25, flush_interval: 50ms } }
`);
    await spansArrive(agent.spans, 50);
    await new Promise((r) => setTimeout(r, 200));
    const roots = agent.spans.filter((s) => s.tags['svc.component.kind'] === 'input');
    assert.ok(roots.length > 50 && roots.length < 150, `about 100 of 400, got ${roots.length}`);
    assert.equal(roots[0]!.tags['sampler.type'], 'probabilistic');
    assert.equal(jaegerHeadSampler('const', 0)!.sample(), false);
    assert.equal(jaegerHeadSampler('const', 1)!.sample(), true);
    const rl = jaegerHeadSampler('ratelimiting', 2)!;
    assert.deepEqual([rl.sample(), rl.sample(), rl.sample()], [true, true, false], 'two a second');
    assert.equal(jaegerHeadSampler('remote', 1), undefined, 'jaeger-client decides');
  });

  it('sends to a collector over HTTP when collector_url is set', async () => {
    const batches: Decoded[][] = [];
    const heads: string[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        heads.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
        const r = jaegerThrift.Batch.rw.readFrom(Buffer.concat(chunks), 0);
        batches.push(decode(r.value));
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      await runStream(`
input: { test_source: { name: jg4, count: 5 } }
pipeline: { threads: 1 }
output: { test_sink: { name: jg4 } }
tracer: { jaeger: { collector_url: "http://127.0.0.1:${port}/api/traces", agent_address: "127.0.0.1:9" } }
`);
      const spans = batches.flat();
      assert.equal(spans.length, 10);
      assert.ok(heads.every((h) => h === 'POST /api/traces application/x-thrift'), heads.join());
      const root = spans.find((s) => s.name === 'test_source')!;
      assert.equal(spans.filter((s) => s.parentId === root.spanId).length, 1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('logs an unreachable collector (rate-limited) and never stalls the stream', async () => {
    const lines: string[] = [];
    const t0 = Date.now();
    await runStream(
      `
input: { test_source: { name: jg5, count: 300, batch_size: 10 } }
pipeline: { threads: 1 }
output: { test_sink: { name: jg5 } }
tracer: { jaeger: { collector_url: "http://127.0.0.1:1/api/traces" } }
`,
      { write: (l) => void lines.push(l) },
    );
    assert.ok(Date.now() - t0 < 10_000);
    const failures = lines.filter((l) => l.includes('Tracer:'));
    assert.equal(failures.length, 1, lines.join(''));
    assert.match(failures[0]!, /ECONNREFUSED|error sending spans/);
  });
});
