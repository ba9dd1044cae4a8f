/**
 * The `open_telemetry_collector` tracer, through the OpenTelemetry SDK: one tracer provider per
 * stream (never registered globally), a batch span processor per collector, OTLP over gRPC for
 * the `grpc` list and OTLP over HTTP (protobuf, `/v1/traces`) for the `http` list; spans wait in
 * a bounded queue per collector (`bounded-span-processor.ts`: full = dropped and counted). `tags` become
 * resource attributes. Sampling (`sampling.ratio`) is decided by a head sampler (`sampler.ts`)
 * before a span exists; a remote parent's decision is followed. The SDK and the exporters load when the tracer
 * is built, so an engine that does not trace never loads them.
 */
import {
  ErrorCode,
  SvcError,
  epochMs,
  errorMessage,
  f,
  isSpan,
  metricsFor,
  redactUrl,
  registerTracer,
  scrubSecrets,
  type ComponentContext,
  type Infer,
  type Span,
  type SpanOptions,
  type TraceContext,
  type Tracer,
} from '@svc/engine';
import { ThrottledLog } from '@svc/engine/kit';
import type * as OtelApi from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { BoundedSpanProcessor } from './bounded-span-processor.js';
import { ALWAYS, ratioSampler, type HeadSampler } from './sampler.js';

/** One export (with the exporter's retries) may take this long before it is given up and logged. */
const EXPORT_TIMEOUT_MS = 4_000;
/** Shutdown waits this long for the last spans to be flushed. */
const CLOSE_TIMEOUT_MS = 6_000;

const collectorSpec = f.object({
  address: f.string().url('host:port').describe('The collector: host:port (a scheme and path may be given for http).'),
  secure: f.bool().default(false).describe('Whether to connect with TLS.'),
});

export const otelSpec = f.object({
  http: f.array(collectorSpec).default([]).describe('Collectors to send spans to over OTLP/HTTP (protobuf); e.g. localhost:4318.'),
  grpc: f.array(collectorSpec).default([]).describe('Collectors to send spans to over OTLP/gRPC; e.g. localhost:4317.'),
  tags: f.map(f.string()).default({}).describe('Resource attributes added to every span.'),
  sampling: f
    .object({
      enabled: f.bool().default(false).describe('Whether to sample traces; when false every trace is recorded.'),
      ratio: f.float().optional().describe('The fraction of traces to record (0..1) when sampling is enabled.'),
    })
    .describe('Trace sampling.'),
  service: f.string().default('svc').advanced().describe('The service.name resource attribute (unless tags set it).'),
});
export type OtelConfig = Infer<typeof otelSpec>;

/** `localhost:4317` → `http://localhost:4317` (https when secure); a URL given whole is kept. */
export function collectorUrl(address: string, secure: boolean, path = ''): string {
  if (/^https?:\/\//i.test(address)) {
    const u = new URL(address);
    if (path && (u.pathname === '' || u.pathname === '/')) u.pathname = path;
    return u.toString();
  }
  return `${secure ? 'https' : 'http'}://${address}${path}`;
}

class OtelSpanAdapter implements Span {
  constructor(
    readonly span: OtelApi.Span,
    private readonly api: typeof OtelApi,
  ) {}
  context(): TraceContext {
    const c = this.span.spanContext();
    const ctx: TraceContext = { traceId: c.traceId, spanId: c.spanId, sampled: (c.traceFlags & 1) === 1 };
    const state = c.traceState?.serialize();
    if (state) ctx.traceState = state;
    return ctx;
  }
  setAttribute(key: string, value: string | number | boolean): void {
    this.span.setAttribute(key, value);
  }
  recordError(message: string): void {
    this.span.setStatus({ code: this.api.SpanStatusCode.ERROR, message });
    this.span.addEvent('exception', { 'exception.message': message });
  }
  end(endTimeMs?: number): void {
    // One clock for every span (the SDK anchors each span to Date.now(), a millisecond apart).
    this.span.end(endTimeMs ?? epochMs());
  }
}

interface Provider {
  getTracer(name: string): OtelApi.Tracer;
  shutdown(): Promise<void>;
  forceFlush(): Promise<void>;
}

export class OtelTracer implements Tracer {
  readonly enabled = true;
  private readonly tracer: OtelApi.Tracer;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly provider: Provider,
    private readonly api: typeof OtelApi,
    private readonly sampler: HeadSampler,
    private readonly makeTraceState: (s: string) => OtelApi.TraceState,
    private readonly log?: { warn(msg: string): void },
  ) {
    this.tracer = provider.getTracer('svc');
  }

  skipRoots(n: number): number {
    return this.sampler.skip(n);
  }

  startSpan(name: string, options: SpanOptions = {}): Span | undefined {
    const api = this.api;
    const parent = options.parent;
    let ctx: OtelApi.Context = api.ROOT_CONTEXT;
    if (parent === undefined) {
      if (!this.sampler.sample()) return undefined;
    } else if (isSpan(parent)) {
      if (!(parent instanceof OtelSpanAdapter)) return undefined;
      ctx = api.trace.setSpan(ctx, parent.span);
    } else {
      if (!parent.sampled) return undefined;
      const sc: OtelApi.SpanContext = { traceId: parent.traceId, spanId: parent.spanId, traceFlags: 1, isRemote: true };
      if (parent.traceState) sc.traceState = this.makeTraceState(parent.traceState);
      ctx = api.trace.setSpanContext(ctx, sc);
    }
    const span = this.tracer.startSpan(name, { attributes: options.attributes, startTime: options.startTimeMs ?? epochMs() }, ctx);
    return new OtelSpanAdapter(span, api);
  }

  flush(): Promise<void> {
    return this.provider.forceFlush();
  }

  close(): Promise<void> {
    // Flushes every processor; bounded, so that a dead collector never holds shutdown.
    return (this.closing ??= new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        this.log?.warn(`Spans still unsent after ${CLOSE_TIMEOUT_MS} ms at shutdown were dropped: is the collector reachable?`);
        resolve();
      }, CLOSE_TIMEOUT_MS);
      t.unref();
      this.provider.shutdown().then(
        () => {
          clearTimeout(t);
          resolve();
        },
        () => {
          clearTimeout(t);
          resolve();
        },
      );
    }));
  }
}

/** Logs failed exports (rate-limited) instead of dropping them silently. */
function logged(exporter: SpanExporter, where: string, log: ThrottledLog): SpanExporter {
  return {
    export(spans: ReadableSpan[], done) {
      exporter.export(spans, (result) => {
        if (result.code !== 0) {
          const why = result.error ? errorMessage(result.error) : 'unknown error';
          log.warn(scrubSecrets(`Failed to export ${spans.length} span(s) to ${redactUrl(where)}: ${why}`, [], [where]));
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

/** The factory of `open_telemetry_collector`. The SDK loads on first use. */
export async function createOtelTracer(conf: OtelConfig, ctx: ComponentContext): Promise<OtelTracer> {
  if (conf.http.length === 0 && conf.grpc.length === 0) {
    throw new SvcError(ErrorCode.ConfigLint, 'open_telemetry_collector needs at least one collector: add an address under http or grpc');
  }
  const api = await import('@opentelemetry/api');
  const sdk = await import('@opentelemetry/sdk-trace-base');
  const { resourceFromAttributes } = await import('@opentelemetry/resources');
  const { TraceState } = await import('@opentelemetry/core');
  const failures = new ThrottledLog(ctx.logger);
  const dropped = metricsFor(ctx).counter('tracer_spans_dropped', {
    help: 'Spans dropped because the exporter queue was full (the collector is slow or gone).',
  });
  const processors = [];
  for (const c of conf.grpc) {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-grpc');
    const url = collectorUrl(c.address, c.secure);
    processors.push(new BoundedSpanProcessor(logged(new OTLPTraceExporter({ url, timeoutMillis: EXPORT_TIMEOUT_MS }), url, failures), dropped));
  }
  for (const c of conf.http) {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
    const url = collectorUrl(c.address, c.secure, '/v1/traces');
    processors.push(new BoundedSpanProcessor(logged(new OTLPTraceExporter({ url, timeoutMillis: EXPORT_TIMEOUT_MS }), url, failures), dropped));
  }
  const resource = resourceFromAttributes({ 'service.name': conf.service, ...conf.tags });
  const provider = new sdk.BasicTracerProvider({ resource, sampler: new sdk.AlwaysOnSampler(), spanProcessors: processors });
  const sampler = conf.sampling.enabled ? ratioSampler(conf.sampling.ratio ?? 1) : ALWAYS;
  return new OtelTracer(provider, api, sampler, (s) => new TraceState(s), ctx.logger);
}

registerTracer('open_telemetry_collector', {
  summary: 'OpenTelemetry tracing: spans to collectors over OTLP/gRPC and OTLP/HTTP.',
  description:
    'The same spans as the Jaeger tracer, exported in batches to every collector listed under `grpc` and `http`. ' +
    '`tags` become resource attributes; `sampling.ratio` samples a fraction of traces.',
  config: otelSpec,
  examples: [
    'tracer:\n  open_telemetry_collector:\n    grpc:\n      - address: localhost:4317\n    http: []\n    sampling:\n      enabled: true\n      ratio: 0.1\n',
  ],
  factory: createOtelTracer,
});
