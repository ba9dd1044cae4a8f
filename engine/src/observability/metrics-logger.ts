/**
 * The `logger` metrics exporter (Benthos' logger): every series written as a log line at INFO,
 * `Counter metric` with `name` and `value`, `Timing metric` with `name`, `p50`, `p90`, `p99` (in
 * nanoseconds, written as Go's %v writes a float64), at shutdown and every `push_interval`;
 * `flush_metrics` zeroes the counters, gauges and timers after each print. As Benthos does, the
 * lines carry the metric's name only, not its labels.
 */
import { f, type Infer } from '../config/spec.js';
import { parseDuration } from '../config/duration.js';
import type { ComponentContext } from '../plugin/types.js';
import { LocalMetrics } from './local-metrics.js';

export const metricsLoggerSpec = f.object({
  push_interval: f.duration().default('').describe('An optional period of time to continuously print all metrics.'),
  flush_metrics: f.bool().default(false).describe('Whether counters and timing metrics should be reset to 0 each time metrics are printed.'),
});
export type MetricsLoggerConfig = Infer<typeof metricsLoggerSpec>;

/** Go's %v of a float64 (strconv 'g', shortest): an exponent below 1e-4 and from 1e6 up (`2.574058e+06`). */
export function goFloat(x: number): string {
  if (x === 0 || !Number.isFinite(x)) return String(x);
  const [mantissa, e] = x.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp >= -4 && exp < 6) return String(x);
  return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/** The name of a series key without its labels (Benthos' ReverseLabelledPath). */
const seriesName = (key: string) => (key.endsWith('}') && key.includes('{') ? key.slice(0, key.indexOf('{')) : key);

export class MetricsLogger extends LocalMetrics {
  private pushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly conf: MetricsLoggerConfig,
    private readonly ctx: ComponentContext,
  ) {
    super();
  }

  start(): void {
    const every = parseDuration(this.conf.push_interval);
    if (every <= 0 || this.pushTimer) return;
    this.pushTimer = setInterval(() => this.publish(), every);
    this.pushTimer.unref();
  }

  private publish(): void {
    const log = this.ctx.logger;
    for (const [key, value] of this.readCounters(this.conf.flush_metrics)) log.info('Counter metric', { name: seriesName(key), value: String(value) });
    for (const [key, [p50, p90, p99]] of this.readTimings(this.conf.flush_metrics)) {
      log.info('Timing metric', { name: seriesName(key), p50: goFloat(p50!), p90: goFloat(p90!), p99: goFloat(p99!) });
    }
  }

  close(): Promise<void> {
    clearInterval(this.pushTimer);
    this.publish();
    return Promise.resolve();
  }
}
