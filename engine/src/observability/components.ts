/**
 * The `metrics` and `tracer` components the engine provides: `none`, the Prometheus exporter
 * (`metricsexp`, alias `prometheus`), the Jaeger tracer (`tracer_a`, alias `jaeger`) and
 * `open_telemetry_collector`. Backends load on first use, so an engine without them pays nothing.
 */
import { f } from '../config/spec.js';
import type { Registry } from '../plugin/registry.js';
import type { ComponentSpec } from '../plugin/types.js';
import { jaegerSpec, type JaegerConfig } from './jaeger-tracer.js';
import { NOOP_EXPORTER, type MetricsExporter } from './metrics.js';
import { otelSpec, type OtelConfig } from './otel-tracer.js';
import { prometheusSpec, type PrometheusConfig } from './prometheus.js';
import { NOOP_TRACER, type Tracer } from './tracer.js';

const noneMetrics: ComponentSpec<object, MetricsExporter> = {
  summary: 'No metrics: nothing is counted or timed.',
  config: f.object({}),
  factory: () => NOOP_EXPORTER,
};

const noneTracer: ComponentSpec<object, Tracer> = {
  summary: 'No tracing: the default. Costs one boolean check per batch.',
  config: f.object({}),
  factory: () => NOOP_TRACER,
};

const prometheus: ComponentSpec<PrometheusConfig, MetricsExporter> = {
  summary: 'Prometheus metrics: served at /metrics, pushed to a Pushgateway, written to a file at shutdown.',
  description:
    'Every metric of the runtime (`{prefix}_input_received`, `{prefix}_output_sent`, `{prefix}_processor_latency`, ...) with the ' +
    'labels `path` and `label`, plus process metrics, on the service-wide HTTP server at `/metrics`. With `push_url` the ' +
    'metrics are pushed every `push_interval` and once at shutdown. Timers are summaries in seconds (quantiles 0.5, 0.9, 0.99), ' +
    'or histograms with `use_histogram_timing`.',
  config: prometheusSpec,
  examples: [
    'metrics:\n  prometheus:\n    prefix: svc\n',
    'metrics:\n  metricsexp:\n    push_url: http://localhost:9091\n    push_interval: 10s\n    push_job_name: svc_push\n',
  ],
  factory: async (conf, ctx) => (await import('./prometheus.js')).createPrometheusExporter(conf, ctx),
};

const jaeger: ComponentSpec<JaegerConfig, Tracer> = {
  summary: 'Jaeger tracing: spans to an agent over UDP or to a collector over HTTP.',
  description:
    'A root span per message at ingestion (its parent taken from `traceparent` / `uber-trace-id` when an input extracted one), ' +
    'a child span per processor and per output write; the root span ends when the message is acknowledged.',
  config: jaegerSpec,
  examples: ['tracer:\n  jaeger:\n    agent_address: localhost:6832\n    sampler_type: const\n    sampler_param: 1\n'],
  factory: async (conf, ctx) => (await import('./jaeger-tracer.js')).createJaegerTracer(conf, ctx),
};

const otel: ComponentSpec<OtelConfig, Tracer> = {
  summary: 'OpenTelemetry tracing: spans to collectors over OTLP/gRPC and OTLP/HTTP.',
  description:
    'The same spans as the Jaeger tracer, exported in batches to every collector listed under `grpc` and `http`. ' +
    '`tags` become resource attributes; `sampling.ratio` samples a fraction of traces.',
  config: otelSpec,
  examples: ['tracer:\n  open_telemetry_collector:\n    grpc:\n      - address: localhost:4317\n    http: []\n    sampling:\n      enabled: true\n      ratio: 0.1\n'],
  factory: async (conf, ctx) => (await import('./otel-tracer.js')).createOtelTracer(conf, ctx),
};

export function registerObservabilityComponents(r: Registry): void {
  r.register('metrics', 'none', noneMetrics);
  r.register('metrics', 'metricsexp', prometheus);
  r.alias('metrics', 'prometheus', 'metricsexp');
  r.register('tracer', 'none', noneTracer);
  r.register('tracer', 'tracer_a', jaeger);
  r.alias('tracer', 'jaeger', 'tracer_a');
  r.register('tracer', 'open_telemetry_collector', otel);
}
