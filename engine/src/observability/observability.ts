/**
 * The metrics and the tracer of one stream (on one thread), and the probes the runtime puts at
 * each component. With `none` for both, `active` is false and the runtime adds no probe at all.
 */
import { errorMessage } from '../errors.js';
import type { Batch } from '../message/message.js';
import type { Logger } from './logger.js';
import type { MetricMapping } from './metric-mapping.js';
import { NOOP_EXPORTER, StreamMetrics, type Gauge, type MetricsExporter } from './metrics.js';
import { InputProbe, OutputProbe, ProcessorProbe, type CallRecorder } from './probes.js';
import { NOOP_TRACER, SPAN_KEY, type Tracer } from './tracer.js';
import { WorkerMetricsSink, type MetricsDelta } from './worker-metrics.js';

export interface ObservabilityOptions {
  /** On a pipeline worker with tracing on: logs processor calls for the main thread's spans. */
  calls?: CallRecorder;
  logger?: Logger;
  /** Streams mode: every metric carries the label `stream` (see StreamMetrics). */
  streamLabel?: boolean;
  /** Metrics already made (forStream): shared with the Observability it was made from. */
  metrics?: StreamMetrics;
  /** `metrics.mapping`: names (or drops) each series as it is made. */
  metricsMapping?: MetricMapping;
}

export class Observability {
  readonly metrics: StreamMetrics;
  readonly tracer: Tracer;
  /** True when metrics or tracing (or, on a worker, trace recording) is on. */
  readonly active: boolean;
  private readonly calls: CallRecorder | undefined;
  private sink: WorkerMetricsSink | undefined;
  private closed = false;

  constructor(
    exporter: MetricsExporter = NOOP_EXPORTER,
    tracer: Tracer = NOOP_TRACER,
    private readonly opts: ObservabilityOptions = {},
  ) {
    this.metrics = opts.metrics ?? new StreamMetrics(exporter, { streamLabel: opts.streamLabel, mapping: opts.metricsMapping });
    this.tracer = tracer;
    this.calls = opts.calls;
    this.active = this.metrics.enabled || tracer.enabled || this.calls !== undefined;
  }

  private common(path: string, label: string, type: string) {
    return { metrics: this.metrics, tracer: this.tracer.enabled ? this.tracer : undefined, path, label, type };
  }

  input(path: string, label: string, type: string): InputProbe | undefined {
    return this.active ? new InputProbe(this.common(path, label, type)) : undefined;
  }

  output(path: string, label: string, type: string): OutputProbe | undefined {
    return this.active ? new OutputProbe(this.common(path, label, type)) : undefined;
  }

  processor(path: string, label: string, type: string): ProcessorProbe | undefined {
    return this.active ? new ProcessorProbe(this.common(path, label, type), this.calls) : undefined;
  }

  /** The observability of stream `id` among several: the same exporter and tracer, its series labelled stream=id. */
  forStream(id: string): Observability {
    return new Observability(this.metrics.exporter, this.tracer, { ...this.opts, metrics: this.metrics.forStream(id) });
  }

  /** `threads_active`: the pipeline threads processing batches. */
  threads(n: number): void {
    this.metrics.standard<Gauge>('threads_active', 'root.pipeline', 'pipeline').set(n);
  }

  /** True when a batch about to go to the pool carries a sampled span (a worker then logs its calls). */
  traced(batch: Batch): boolean {
    if (!this.tracer.enabled) return false;
    for (let i = 0; i < batch.length; i++) {
      const m = batch[i]!;
      if (m.hasCtx() && m.ctx.has(SPAN_KEY)) return true;
    }
    return false;
  }

  /** Applies the metric counts a worker sent back with a batch result. */
  fromWorker(delta: MetricsDelta): void {
    try {
      (this.sink ??= new WorkerMetricsSink(this.metrics)).apply(delta);
    } catch (err) {
      // Workers validate metrics as the main thread does; never fail a batch over a count.
      this.opts.logger?.error(`Cannot apply a worker's metrics: ${errorMessage(err)}`);
    }
  }

  /** Starts the exporter's schedule (pushing); call once the stream is built. */
  async start(): Promise<void> {
    await this.metrics.exporter.start?.();
  }

  /** At shutdown, after the last count: flush spans, push and write metrics. Never throws. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const log = this.opts.logger;
    try {
      await this.tracer.close?.();
    } catch (err) {
      log?.warn(`Error closing the tracer: ${errorMessage(err)}`);
    }
    try {
      await this.metrics.exporter.close?.();
    } catch (err) {
      log?.warn(`Error closing the metrics exporter: ${errorMessage(err)}`);
    }
  }
}

/** No metrics, no tracing. */
export const NO_OBSERVABILITY = new Observability();
