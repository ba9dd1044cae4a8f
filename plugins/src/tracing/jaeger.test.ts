/**
 * The `tracer_a` / `jaeger` tracer against test doubles of a Jaeger agent (a UDP socket decoding
 * the agent's binary-Thrift `emitBatch` packets) and of a Jaeger collector (an HTTP server taking
 * Thrift batches at /api/traces), both decoding with thriftrw and jaeger-client's own IDL. No
 * Jaeger server can be had here. The tracer is built through its registered factory and driven
 * as the runtime drives it; one test runs a whole config through the `engine` CLI.
 */
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type Tracer } from '@svc/engine';
import { buildComponent, RecordingLogger, testContext, EngineProcess } from '@svc/engine/testing';
import { jaegerHeadSampler } from './jaeger-tracer.js';

const require = createRequire(import.meta.url);
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

/** The tracer as a stream builds it (defaults applied), logging into `logger`. */
function jaegerTracer(conf: Record<string, unknown>, logger = new RecordingLogger()): Promise<Tracer> {
  return buildComponent<Tracer>('tracer', 'jaeger', conf, testContext({ type: 'jaeger', path: 'root.tracer', logger }));
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

  it('sends spans to the agent over UDP: names, parent/child links, tags, errors, a remote parent', async () => {
    agent.spans.length = 0;
    agent.process.length = 0;
    const t = await jaegerTracer({ agent_address: agent.address, sampler_type: 'const', sampler_param: 1, tags: { env: 'test' }, flush_interval: '50ms' });
    assert.equal(t.enabled, true);
    const root = t.startSpan('generate', { parent: { traceId: TRACE, spanId: PARENT, sampled: true }, attributes: { 'svc.component.kind': 'input' } })!;
    assert.equal(root.context().traceId, TRACE, 'continues the remote trace');
    const child = t.startSpan('thrower', { parent: root, attributes: { 'svc.component.kind': 'processor' } })!;
    child.recordError('boom (test)');
    child.end();
    t.startSpan('sent', { parent: root })!.end();
    root.end();
    assert.equal(t.startSpan('x', { parent: { traceId: TRACE, spanId: PARENT, sampled: false } }), undefined, 'an unsampled remote parent decides');
    await t.close!();
    await spansArrive(agent.spans, 3);
    const r = agent.spans.find((s) => s.name === 'generate')!;
    assert.equal(r.traceId, TRACE);
    assert.equal(r.parentId, PARENT);
    assert.equal(r.spanId, root.context().spanId);
    const kids = agent.spans.filter((s) => s.parentId === r.spanId);
    assert.deepEqual(kids.map((k) => k.name).sort(), ['sent', 'thrower']);
    const failed = kids.find((k) => k.name === 'thrower')!;
    assert.equal(failed.tags.error, true);
    assert.equal(failed.logs[0]!.message, 'boom (test)');
    assert.equal(agent.process[0]!.serviceName, 'svc');
    assert.equal(tagMap(agent.process[0]!.tags).env, 'test', 'tags are process tags');
  });

  it('never sends a packet over max_packet_size, and loses no span in a burst', async () => {
    agent.spans.length = 0;
    agent.packets.length = 0;
    const t = await jaegerTracer({ agent_address: agent.address, max_packet_size: 4096, flush_interval: '10s' });
    for (let i = 0; i < 600; i++) {
      const root = t.startSpan('generate')!;
      t.startSpan('drop', { parent: root })!.end();
      root.end();
    }
    await t.close!();
    await spansArrive(agent.spans, 1200);
    assert.equal(agent.spans.length, 1200, 'a root and a write span per message');
    assert.ok(agent.packets.length > 10, `bursts were split into ${agent.packets.length} packets`);
    const largest = Math.max(...agent.packets);
    assert.ok(largest <= 4096, `largest packet ${largest} bytes`);
  });

  it('samples with probabilistic and const fractions; 0 samples nothing', async () => {
    agent.spans.length = 0;
    const t = await jaegerTracer({ agent_address: agent.address, sampler_type: 'probabilistic', sampler_param: 0.25 });
    const roots = Array.from({ length: 400 }, () => t.startSpan('generate')).filter((s) => s !== undefined);
    assert.ok(roots.length > 50 && roots.length < 150, `about 100 of 400, got ${roots.length}`);
    for (const s of roots) s.end();
    await t.close!();
    await spansArrive(agent.spans, roots.length);
    assert.equal(agent.spans.length, roots.length, 'every sampled span arrived, no other');
    assert.equal(agent.spans[0]!.tags['sampler.type'], 'probabilistic');
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
      const t = await jaegerTracer({ collector_url: `http://127.0.0.1:${port}/api/traces`, agent_address: '127.0.0.1:9' });
      for (let i = 0; i < 5; i++) {
        const root = t.startSpan('generate')!;
        t.startSpan('drop', { parent: root })!.end();
        root.end();
      }
      await t.close!(); // waits for the requests in flight
      const spans = batches.flat();
      assert.equal(spans.length, 10);
      assert.ok(
        heads.every((h) => h === 'POST /api/traces application/x-thrift'),
        heads.join(),
      );
      const root = spans.find((s) => s.name === 'generate')!;
      assert.equal(spans.filter((s) => s.parentId === root.spanId).length, 1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('logs an unreachable collector (rate-limited) and never holds shutdown', { timeout: 60_000 }, async () => {
    const logger = new RecordingLogger();
    const t = await jaegerTracer({ collector_url: 'http://127.0.0.1:1/api/traces', flush_interval: '20ms' }, logger);
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 30; i++) t.startSpan('generate')!.end();
      await new Promise((r) => setTimeout(r, 30));
    }
    await t.close!(); // a close held by the dead collector fails at the test's timeout
    const failures = logger.lines.filter((l) => l.msg.includes('Tracer:'));
    assert.equal(failures.length, 1, JSON.stringify(logger.lines));
    assert.equal(failures[0]!.level, 'WARN');
    assert.match(failures[0]!.msg, /ECONNREFUSED|error sending spans/);
  });

  it('traces a whole config run by the engine CLI: a root per message, a child per processor and write (threads: 2)', async () => {
    agent.spans.length = 0;
    const e = new EngineProcess(`http: { enabled: false }
logger: { level: OFF }
input:
  generate: { mapping: 'root = "m"', count: 6, batch_size: 3, interval: "" }
pipeline:
  threads: 2
  processors:
    - label: thrower
      mapping: 'root = throw("boom")'
output: { label: sent, drop: {} }
tracer:
  jaeger: { agent_address: "${agent.address}", flush_interval: 50ms }
`);
    assert.equal(await e.exited, 0, e.output());
    await spansArrive(agent.spans, 18);
    const roots = agent.spans.filter((s) => s.tags['svc.component.kind'] === 'input');
    assert.equal(roots.length, 6, 'one root per message');
    assert.equal(new Set(roots.map((r) => r.traceId)).size, 6, 'each its own trace');
    for (const root of roots) {
      assert.equal(root.name, 'generate');
      assert.equal(root.parentId, '0000000000000000');
      const kids = agent.spans.filter((s) => s.parentId === root.spanId);
      assert.deepEqual(kids.map((k) => k.name).sort(), ['sent', 'thrower']);
      const thrower = kids.find((k) => k.name === 'thrower')!;
      assert.equal(thrower.tags.error, true);
      assert.match(String(thrower.logs[0]!.message), /boom/);
    }
  });
});
