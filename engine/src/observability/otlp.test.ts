/**
 * The `open_telemetry_collector` tracer against OTLP receivers that are test doubles (no
 * OpenTelemetry collector can be had here): a gRPC server with @grpc/grpc-js serving the OTLP
 * TraceService, and an HTTP server taking OTLP/HTTP at /v1/traces (JSON, which the HTTP exporter
 * sends, or protobuf). Protobuf is decoded with the OTLP trace .proto (testdata/otlp-trace.proto),
 * JSON by the OTLP/JSON mapping (camelCase keys, hex ids).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { registry } from '../plugin/registry.js';
import { Stream } from '../runtime/stream.js';
import { configOf, TEST_PLUGIN } from '../testing/run-config.js';
import { createLogger, type LogSink } from './logger.js';
import { collectorUrl } from './otel-tracer.js';

// Compiled tests run from dist/: the .proto stays in src/.
const PROTO = fileURLToPath(new URL('../../src/observability/testdata/otlp-trace.proto', import.meta.url));
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
  spans: Array<{ name: string; traceId: string; spanId: string; parentId: string; attributes: Record<string, unknown>; status?: { code: number; message: string }; start: bigint; end: bigint }>;
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

interface JsonKeyValue {
  key: string;
  value: { stringValue?: string; boolValue?: boolean; intValue?: string; doubleValue?: number };
}
interface JsonRequest {
  resourceSpans: Array<{
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans: Array<{
      spans: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        attributes?: JsonKeyValue[];
        status?: { code?: number; message?: string };
      }>;
    }>;
  }>;
}

/** OTLP/JSON into the protobuf shape (ids are hex strings there, keys camelCase). */
function fromJson(body: JsonRequest): ExportRequest {
  const kv = (l: JsonKeyValue[] = []): KeyValue[] =>
    l.map((a) => ({ key: a.key, value: { string_value: a.value.stringValue, bool_value: a.value.boolValue, int_value: a.value.intValue, double_value: a.value.doubleValue } }));
  return {
    resource_spans: body.resourceSpans.map((rs) => ({
      resource: { attributes: kv(rs.resource?.attributes) },
      scope_spans: rs.scopeSpans.map((ss) => ({
        spans: ss.spans.map((sp) => ({
          trace_id: Buffer.from(sp.traceId, 'hex'),
          span_id: Buffer.from(sp.spanId, 'hex'),
          parent_span_id: Buffer.from(sp.parentSpanId ?? '', 'hex'),
          name: sp.name,
          start_time_unix_nano: sp.startTimeUnixNano,
          end_time_unix_nano: sp.endTimeUnixNano,
          attributes: kv(sp.attributes),
          status: sp.status ? { code: sp.status.code ?? 0, message: sp.status.message ?? '' } : undefined,
        })),
      })),
    })),
  };
}

/** The OTLP/HTTP receiver double: JSON or protobuf bodies at /v1/traces. */
async function httpReceiver(): Promise<{ address: string; received: Received; paths: string[]; close(): Promise<void> }> {
  const method = (definition[SERVICE] as protoLoader.ServiceDefinition).Export!;
  const received: Received = { spans: [], resources: [] };
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      paths.push(`${req.method} ${req.url}`);
      try {
        if (type.startsWith('application/json')) {
          collect(fromJson(JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRequest), received);
          res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
        } else {
          collect(method.requestDeserialize(Buffer.concat(chunks)) as ExportRequest, received);
          res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end(method.responseSerialize({}));
        }
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

async function runStream(yaml: string, sink?: LogSink): Promise<void> {
  const s = new Stream({
    config: configOf(yaml),
    registry: registry(),
    logger: createLogger({ level: sink ? 'WARN' : 'OFF' }, sink),
    plugins: [TEST_PLUGIN],
  });
  await s.run(); // closing the stream flushes the tracer
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

  it('exports over gRPC and HTTP: names, parent/child links, attributes, resource tags, errors', async () => {
    g.received.spans.length = 0;
    h.received.spans.length = 0;
    await runStream(`
input: { test_source: { name: ot1, count: 6, batch_size: 3, traceparent: "00-${TRACE}-${PARENT}-01" } }
pipeline:
  threads: 2
  processors:
    - label: thrower
      test_throw: { on: ["1"] }
    - test_upper: {}
output: { label: sent, test_sink: { name: ot1 } }
tracer:
  open_telemetry_collector:
    grpc: [ { address: ${g.address} } ]
    http: [ { address: ${h.address} } ]
    tags: { env: test, team: streams }
`);
    for (const [via, r] of [
      ['grpc', g.received],
      ['http', h.received],
    ] as const) {
      const roots = r.spans.filter((s) => s.attributes['svc.component.kind'] === 'input');
      assert.equal(roots.length, 6, `${via}: a root span per message`);
      for (const root of roots) {
        assert.equal(root.traceId, TRACE, `${via}: the extracted parent's trace`);
        assert.equal(root.parentId, PARENT);
        assert.equal(root.name, 'test_source');
        assert.equal(root.attributes['svc.component.path'], 'root.input');
        const kids = r.spans.filter((s) => s.parentId === root.spanId);
        assert.deepEqual(kids.map((k) => k.name).sort(), ['sent', 'test_upper', 'thrower'], via);
        for (const k of kids) {
          assert.equal(k.traceId, TRACE);
          // Worker threads' clocks may be a hair apart: allow 1 ms.
          assert.ok(k.start >= root.start - 1_000_000n && k.end <= root.end + 1_000_000n, `${via}: ${k.name} lies within its root`);
        }
        const write = kids.find((k) => k.name === 'sent')!;
        assert.equal(write.attributes['svc.component.kind'], 'output');
        assert.equal(write.attributes['svc.component.path'], 'root.output');
      }
      const failed = r.spans.filter((s) => s.name === 'thrower' && s.status?.code === 2);
      assert.equal(failed.length, 3, `${via}: the batch holding "1" failed`);
      assert.equal(failed[0]!.status!.message, 'boom (test)');
      assert.ok(r.resources.every((res) => res.env === 'test' && res.team === 'streams' && res['service.name'] === 'svc'), `${via}: tags as resource attributes`);
    }
    assert.ok(h.paths.length > 0 && h.paths.every((p) => p === 'POST /v1/traces'), h.paths.join());
  });

  it('samples a fraction of traces with sampling.ratio', async () => {
    g.received.spans.length = 0;
    await runStream(`
input: { test_source: { name: ot2, count: 400, batch_size: 20 } }
pipeline: { threads: 1 }
output: { test_sink: { name: ot2 } }
tracer:
  open_telemetry_collector:
    grpc: [ { address: ${g.address} } ]
    sampling: { enabled: true, ratio: 0.25 }
`);
    const roots = g.received.spans.filter((s) => s.attributes['svc.component.kind'] === 'input');
    assert.ok(roots.length > 50 && roots.length < 150, `about 100 of 400 sampled, got ${roots.length}`);
    assert.equal(g.received.spans.length, roots.length * 2, 'a write span for each sampled message, none for the rest');
  });

  it('logs an unreachable collector (rate-limited) and never stalls the stream', async () => {
    const lines: string[] = [];
    const t0 = Date.now();
    await runStream(
      `
input: { test_source: { name: ot3, count: 50, batch_size: 5 } }
pipeline: { threads: 1 }
output: { test_sink: { name: ot3 } }
tracer:
  open_telemetry_collector:
    http: [ { address: "127.0.0.1:1" } ]
`,
      { write: (l) => void lines.push(l) },
    );
    assert.ok(Date.now() - t0 < 20_000, `shutdown was bounded (${Date.now() - t0} ms)`);
    const failures = lines.filter((l) => l.includes('Failed to export'));
    assert.equal(failures.length, 1, lines.join(''));
    assert.match(failures[0]!, /127\.0\.0\.1:1\/v1\/traces/);
  });

  it('builds collector URLs from addresses', () => {
    assert.equal(collectorUrl('localhost:4317', false), 'http://localhost:4317');
    assert.equal(collectorUrl('collector:4317', true), 'https://collector:4317');
    assert.equal(collectorUrl('localhost:4318', false, '/v1/traces'), 'http://localhost:4318/v1/traces');
    assert.equal(collectorUrl('https://c.example:4318', false, '/v1/traces'), 'https://c.example:4318/v1/traces');
    assert.equal(collectorUrl('http://c:4318/custom', false, '/v1/traces'), 'http://c:4318/custom');
  });

  it('refuses a collector section without any collector', async () => {
    const s = new Stream({
      config: configOf(`
input: { test_source: { name: ot4, count: 1 } }
output: { test_sink: { name: ot4 } }
tracer: { open_telemetry_collector: {} }
`),
      registry: registry(),
      logger: createLogger({ level: 'OFF' }),
      plugins: [TEST_PLUGIN],
    });
    await assert.rejects(s.build(), /needs at least one collector/);
  });
});
