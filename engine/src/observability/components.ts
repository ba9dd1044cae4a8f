/**
 * The `metrics` and `tracer` components the engine provides: `none` for both and the Prometheus
 * exporter (`metricsexp`, alias `prometheus`), which loads on first use. The tracer backends
 * (`tracer_a` / `jaeger`, `open_telemetry_collector`) are built-in plugins (`plugins/src/tracing`).
 */
import { f } from '../config/spec.js';
import type { Registry } from '../plugin/registry.js';
import type { ComponentSpec } from '../plugin/types.js';
import { NOOP_EXPORTER, type MetricsExporter } from './metrics.js';
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

export function registerObservabilityComponents(r: Registry): void {
  r.register('metrics', 'none', noneMetrics);
  r.register('metrics', 'metricsexp', prometheus);
  r.alias('metrics', 'prometheus', 'metricsexp');
  r.register('tracer', 'none', noneTracer);
}
