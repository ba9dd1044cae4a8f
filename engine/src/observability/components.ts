/**
 * The `metrics` and `tracer` components the engine provides: `none` for both, the Prometheus
 * exporter (`metricsexp`, alias `prometheus`), `json_api` and `logger`, each loaded on first use. The tracer backends
 * (`tracer_a` / `jaeger`, `open_telemetry_collector`) are built-in plugins (`plugins/src/tracing`).
 */
import { f } from '../config/spec.js';
import type { Registry } from '../plugin/registry.js';
import type { ComponentSpec } from '../plugin/types.js';
import { NOOP_EXPORTER, type MetricsExporter } from './metrics.js';
import { jsonApiSpec } from './json-api.js';
import { metricsLoggerSpec, type MetricsLoggerConfig } from './metrics-logger.js';
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

const jsonApi: ComponentSpec<object, MetricsExporter> = {
  summary: "Serves metrics as one JSON object at /metrics and /stats on the service-wide HTTP server (Benthos' json_api).",
  description:
    'Counters and gauges are integers, timers `{"p50":..,"p90":..,"p99":..}` in nanoseconds over a sample of 1028 observations, ' +
    'each under its name with its labels, as Benthos writes them: `{"input_received{label=\\"\\",path=\\"root.input\\"}":197}`. ' +
    'Timer names end in `_ns`. Meant for debugging: read it with jq.',
  config: jsonApiSpec,
  examples: ['metrics:\n  json_api: {}\n'],
  factory: async (_conf, ctx) => new (await import('./json-api.js')).JsonApiExporter(ctx),
};

const metricsLogger: ComponentSpec<MetricsLoggerConfig, MetricsExporter> = {
  summary: "Prints aggregated metrics through the logger (Benthos' logger metrics).",
  description:
    'Each counter and gauge is logged at INFO as `Counter metric` with `name` and `value`, each timer as `Timing metric` with ' +
    '`name`, `p50`, `p90` and `p99` in nanoseconds, at shutdown and every `push_interval`. As in Benthos the lines name the ' +
    'metric but not its labels. For debugging where only the log can be read.',
  config: metricsLoggerSpec,
  examples: ['metrics:\n  logger:\n    push_interval: 10s\n    flush_metrics: true\n'],
  factory: async (conf, ctx) => new (await import('./metrics-logger.js')).MetricsLogger(conf, ctx),
};

export function registerObservabilityComponents(r: Registry): void {
  r.register('metrics', 'none', noneMetrics);
  r.register('metrics', 'metricsexp', prometheus);
  r.alias('metrics', 'prometheus', 'metricsexp');
  r.register('metrics', 'json_api', jsonApi);
  r.register('metrics', 'logger', metricsLogger);
  r.register('tracer', 'none', noneTracer);
}
