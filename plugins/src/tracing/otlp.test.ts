/**
 * The `open_telemetry_collector` tracer against OTLP receivers that are test doubles (no
 * OpenTelemetry collector can be had here): a gRPC server with @grpc/grpc-js serving the OTLP
 * TraceService, and an HTTP server taking OTLP/HTTP protobuf at /v1/traces, both decoding with
 * the OTLP trace .proto (testdata/otlp-trace.proto). The tracer is built through its
 * registered factory and driven as the runtime drives it; one test runs a whole config through
 * the `engine` CLI.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { type Tracer } from '@svc/engine';
import { buildComponent, RecordingLogger, testContext, EngineProcess } from '@svc/engine/testing';
import { collectorUrl } from './otel-tracer.js';

// Compiled tests run from dist/: the .proto stays in src/.
const PROTO = fileURLToPath(new URL('../../src/tracing/testdata/otlp-trace.proto', import.meta.url));
const SERVICE = 'opentelemetry.proto.collector.trace.v1.TraceService';
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

interface KeyValue {
  key: string;
  value: { string_value?: string; bool_value?: boolean; int_value?: string; double_value?: number };
}
interface OtlpSpan {
  trace_id: Buffer;
  span_id: Buffer;
  parent_span_id: Buffer;
  name: string;
  start_time_unix_nano: string;
  end_time_unix_nano: string;
  attributes: KeyValue[];
  status?: { code: number; message: string };
}
interface ExportRequest {
  resource_spans: Array<{ resource?: { attributes: KeyValue[] }; scope_spans: Array<{ spans: OtlpSpan[] }> }>;
}

const definition = protoLoader.loadSync(PROTO, { keepCase: true, longs: String, defaults: true, oneofs: true });

function attrs(kvs: KeyValue[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of kvs) out[kv.key] = kv.value.string_value ?? kv.value.bool_value ?? kv.value.double_value ?? kv.value.int_value;
  return out;
}

interface Received {
  spans: Array<{
    name: string;
    traceId: string;
    spanId: string;
    parentId: string;
    attributes: Record<string, unknown>;
    status?: { code: number; message: string };
    start: bigint;
    end: bigint;
  }>;
  resources: Array<Record<string, unknown>>;
}

function collect(req: ExportRequest, into: Received): void {
  for (const rs of req.resource_spans) {
    into.resources.push(attrs(rs.resource?.attributes ?? []));
    for (const ss of rs.scope_spans) {
      for (const s of ss.spans) {
        into.spans.push({
          name: s.name,
          traceId: s.trace_id.toString('hex'),
          spanId: s.span_id.toString('hex'),
          parentId: s.parent_span_id.toString('hex'),
          attributes: attrs(s.attributes),
          status: s.status,
          start: BigInt(s.start_time_unix_nano),
          end: BigInt(s.end_time_unix_nano),
        });
      }
    }
  }
}

/** The OTLP/gRPC receiver double. */
async function grpcReceiver(): Promise<{ address: string; received: Received; close(): Promise<void> }> {
  const pkg = grpc.loadPackageDefinition(definition) as unknown as {
    opentelemetry: { proto: { collector: { trace: { v1: { TraceService: { service: grpc.ServiceDefinition } } } } } };
  };
  const received: Received = { spans: [], resources: [] };
  const server = new grpc.Server();
  server.addService(pkg.opentelemetry.proto.collector.trace.v1.TraceService.service, {
    Export: (call: grpc.ServerUnaryCall<ExportRequest, object>, done: grpc.sendUnaryData<object>) => {
      collect(call.request, received);
      done(null, {});
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    address: `127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((r) => server.tryShutdown(() => r())),
  };
}

/**
 * The OTLP/HTTP receiver double: protobuf bodies at /v1/traces, as Benthos' Go exporter
 * (otlptracehttp) sends them. A collector takes JSON too; this one refuses it (415) so that a
 * tracer sending JSON fails here. `paths` records `METHOD url content-type` per request.
 */
async function httpReceiver(): Promise<{ address: string; received: Received; paths: string[]; close(): Promise<void> }> {
  const method = (definition[SERVICE] as protoLoader.ServiceDefinition).Export!;
  const received: Received = { spans: [], resources: [] };
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      paths.push(`${req.method} ${req.url} ${type}`);
      if (type !== 'application/x-protobuf') return void res.writeHead(415, { 'Content-Type': 'text/plain' }).end(`unsupported content type ${type}`);
      try {
        collect(method.requestDeserialize(Buffer.concat(chunks)) as ExportRequest, received);
        res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end(method.responseSerialize({}));
      } catch (err) {
        res.writeHead(400, { 'Content-Type': 'text/plain' }).end(String(err));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    paths,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The tracer as a stream builds it (defaults applied), logging into `logger`. */
function otelTracer(conf: Record<string, unknown>, logger = new RecordingLogger()): Promise<Tracer> {
  return buildComponent<Tracer>('tracer', 'open_telemetry_collector', conf, testContext({ type: 'open_telemetry_collector', path: 'root.tracer', logger }));
}

/** A root span with a child per processor and a write span, as the runtime makes them for one message. */
function traceOne(t: Tracer, parent?: { traceId: string; spanId: string; sampled: boolean }): boolean {
  const root = t.startSpan('generate', { parent, attributes: { 'svc.component.kind': 'input', 'svc.component.path': 'root.input' } });
  if (!root) return false;
  const thrower = t.startSpan('thrower', { parent: root, attributes: { 'svc.component.kind': 'processor' } })!;
  thrower.recordError('boom (test)');
  thrower.end();
  t.startSpan('sent', { parent: root, attributes: { 'svc.component.kind': 'output', 'svc.component.path': 'root.output' } })!.end();
  root.end();
  return true;
}

describe('open_telemetry_collector → OTLP receiver test doubles', () => {
  let g: Awaited<ReturnType<typeof grpcReceiver>>;
  let h: Awaited<ReturnType<typeof httpReceiver>>;
  before(async () => {
    g = await grpcReceiver();
    h = await httpReceiver();
  });
  after(async () => {
    await g.close();
    await h.close();
  });

  it('exports over gRPC and HTTP: names, parent/child links, attributes, resource tags, errors, a remote parent', async () => {
    g.received.spans.length = 0;
    h.received.spans.length = 0;
    h.paths.length = 0;
    const t = await otelTracer({ grpc: [{ address: g.address }], http: [{ address: h.address }], tags: { env: 'test', team: 'streams' } });
    for (let i = 0; i < 3; i++) traceOne(t, { traceId: TRACE, spanId: PARENT, sampled: true });
    assert.equal(traceOne(t, { traceId: TRACE, spanId: PARENT, sampled: false }), false, 'an unsampled remote parent decides');
    await t.close!(); // flushes every processor
    for (const [via, r] of [
      ['grpc', g.received],
      ['http', h.received],
    ] as const) {
      const roots = r.spans.filter((s) => s.attributes['svc.component.kind'] === 'input');
      assert.equal(roots.length, 3, `${via}: a root span per message`);
      for (const root of roots) {
        assert.equal(root.traceId, TRACE, `${via}: the remote parent's trace`);
        assert.equal(root.parentId, PARENT);
        assert.equal(root.name, 'generate');
        assert.equal(root.attributes['svc.component.path'], 'root.input');
        const kids = r.spans.filter((s) => s.parentId === root.spanId);
        assert.deepEqual(kids.map((k) => k.name).sort(), ['sent', 'thrower'], via);
        for (const k of kids) {
          assert.equal(k.traceId, TRACE);
          assert.ok(k.start >= root.start && k.end <= root.end, `${via}: ${k.name} lies within its root`);
        }
        assert.equal(kids.find((k) => k.name === 'sent')!.attributes['svc.component.kind'], 'output');
      }
      const failed = r.spans.filter((s) => s.name === 'thrower' && s.status?.code === 2);
      assert.equal(failed.length, 3, `${via}: every thrower span failed`);
      assert.equal(failed[0]!.status!.message, 'boom (test)');
      assert.ok(
        r.resources.every((res) => res.env === 'test' && res.team === 'streams' && res['service.name'] === 'svc'),
        `${via}: tags as resource attributes`,
      );
    }
    assert.ok(h.paths.length > 0 && h.paths.every((p) => p === 'POST /v1/traces application/x-protobuf'), h.paths.join());
  });

  it('samples a fraction of traces with sampling.ratio', async () => {
    g.received.spans.length = 0;
    const t = await otelTracer({ grpc: [{ address: g.address }], sampling: { enabled: true, ratio: 0.25 } });
    let sampled = 0;
    for (let i = 0; i < 400; i++) if (traceOne(t)) sampled++;
    await t.close!();
    assert.ok(sampled > 50 && sampled < 150, `about 100 of 400 sampled, got ${sampled}`);
    const roots = g.received.spans.filter((s) => s.attributes['svc.component.kind'] === 'input');
    assert.equal(roots.length, sampled);
    assert.equal(g.received.spans.length, sampled * 3, 'root, processor and write spans for each sampled message, none for the rest');
  });

  it('logs an unreachable collector (rate-limited) and never holds shutdown', { timeout: 60_000 }, async () => {
    const logger = new RecordingLogger();
    const t = await otelTracer({ http: [{ address: '127.0.0.1:1' }] }, logger);
    for (let i = 0; i < 50; i++) traceOne(t);
    await t.flush!().catch(() => {});
    for (let i = 0; i < 50; i++) traceOne(t);
    await t.close!(); // a close held by the dead collector fails at the test's timeout
    const failures = logger.lines.filter((l) => l.msg.includes('Failed to export'));
    assert.equal(failures.length, 1, JSON.stringify(logger.lines));
    assert.equal(failures[0]!.level, 'WARN');
    assert.match(failures[0]!.msg, /127\.0\.0\.1:1\/v1\/traces/);
  });

  it('builds collector URLs from addresses', () => {
    assert.equal(collectorUrl('localhost:4317', false), 'http://localhost:4317');
    assert.equal(collectorUrl('collector:4317', true), 'https://collector:4317');
    assert.equal(collectorUrl('localhost:4318', false, '/v1/traces'), 'http://localhost:4318/v1/traces');
    assert.equal(collectorUrl('https://c.example:4318', false, '/v1/traces'), 'https://c.example:4318/v1/traces');
    assert.equal(collectorUrl('http://c:4318/custom', false, '/v1/traces'), 'http://c:4318/custom');
  });

  it('refuses a collector section without any collector', async () => {
    await assert.rejects(otelTracer({}), /needs at least one collector/);
  });

  it('traces a whole config run by the engine CLI, over gRPC: a root per message, a child per processor and write (threads: 2)', async () => {
    g.received.spans.length = 0;
    const e = new EngineProcess(`http: { enabled: false }
logger: { level: OFF }
input:
  generate: { mapping: 'root = "m"', count: 6, batch_size: 3, interval: "" }
pipeline:
  threads: 2
  processors:
    - label: thrower
      mapping: 'root = throw("boom")'
    - mapping: 'root = content().uppercase()'
output: { label: sent, drop: {} }
tracer:
  open_telemetry_collector:
    grpc: [ { address: "${g.address}" } ]
`);
    assert.equal(await e.exited, 0, e.output());
    const roots = g.received.spans.filter((s) => s.attributes['svc.component.kind'] === 'input');
    assert.equal(roots.length, 6, 'one root per message');
    for (const root of roots) {
      assert.equal(root.name, 'generate');
      assert.equal(root.parentId, '');
      const kids = g.received.spans.filter((s) => s.parentId === root.spanId);
      assert.deepEqual(kids.map((k) => k.name).sort(), ['mapping', 'sent', 'thrower']);
      for (const k of kids) {
        // Worker threads' clocks may be a hair apart: allow 1 ms.
        assert.ok(k.start >= root.start - 1_000_000n && k.end <= root.end + 1_000_000n, `${k.name} lies within its root`);
      }
      assert.equal(kids.find((k) => k.name === 'thrower')!.status?.code, 2);
      assert.equal(kids.find((k) => k.name === 'sent')!.attributes['svc.component.path'], 'root.output');
    }
  });

  it('samples a fraction of the messages of an engine run, each sampled message whole, nothing of the others', async () => {
    g.received.spans.length = 0;
    const n = 4000;
    const e = new EngineProcess(`http: { enabled: false }
logger: { level: OFF }
input:
  generate: { mapping: 'root = "m"', count: ${n}, batch_size: 100, interval: "" }
pipeline:
  threads: 1
  processors:
    - mapping: 'root = content().uppercase()'
output: { label: sent, drop: {} }
tracer:
  open_telemetry_collector:
    grpc: [ { address: "${g.address}" } ]
    sampling: { enabled: true, ratio: 0.1 }
`);
    assert.equal(await e.exited, 0, e.output());
    const roots = g.received.spans.filter((s) => s.attributes['svc.component.kind'] === 'input');
    // 400 expected; the standard deviation is 19: 5 of them either side.
    assert.ok(roots.length > 305 && roots.length < 495, `${roots.length} of ${n} messages sampled at ratio 0.1`);
    for (const root of roots) {
      const kids = g.received.spans.filter((s) => s.parentId === root.spanId);
      assert.deepEqual(kids.map((k) => k.name).sort(), ['mapping', 'sent']);
    }
    assert.equal(g.received.spans.length, roots.length * 3, 'no span of a sampled-out message');
  });
});
