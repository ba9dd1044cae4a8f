/**
 * Metric families for prom-client's Registry, built for the hot path: a child is a plain object
 * bound once per component, and counting, setting and timing are a few arithmetic operations
 * (prom-client's own labelled children hash their labels on every call). The registry renders
 * them through the metric interface it renders its own with (`name`, `help`, `type`, `get()`).
 */
import type { Counter, Gauge, SampledTimer } from './metrics.js';
import { startTimer } from './metrics.js';

type Labels = Record<string, string>;

interface Sample {
  value: number;
  labels: Labels;
  metricName?: string;
}

export interface MetricSnapshot {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'summary' | 'histogram';
  values: Sample[];
  aggregator: 'sum';
}

function labelsOf(names: readonly string[], values: readonly string[]): Labels {
  const l: Labels = {};
  for (let i = 0; i < names.length; i++) l[names[i]!] = values[i] ?? '';
  return l;
}

abstract class Family<C> {
  protected readonly children: C[] = [];
  readonly aggregator = 'sum' as const;
  abstract readonly type: MetricSnapshot['type'];

  constructor(
    readonly name: string,
    readonly help: string,
    protected readonly labelNames: readonly string[],
  ) {}

  protected abstract make(labels: Labels): C;

  child(values: readonly string[]): C {
    const c = this.make(labelsOf(this.labelNames, values));
    this.children.push(c);
    return c;
  }

  protected abstract samples(out: Sample[]): void;

  get(): MetricSnapshot {
    const values: Sample[] = [];
    this.samples(values);
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

class CounterChild implements Counter {
  value = 0;
  constructor(readonly labels: Labels) {}
  inc(n = 1): void {
    if (!(n >= 0)) throw new RangeError(`a counter only goes up: inc(${n})`);
    this.value += n;
  }
}

export class CounterFamily extends Family<CounterChild> {
  readonly type = 'counter' as const;
  protected make(labels: Labels): CounterChild {
    return new CounterChild(labels);
  }
  protected samples(out: Sample[]): void {
    for (const c of this.children) out.push({ value: c.value, labels: c.labels });
  }
}

class GaugeChild implements Gauge {
  value = 0;
  constructor(readonly labels: Labels) {}
  set(v: number): void {
    this.value = v;
  }
  inc(n = 1): void {
    this.value += n;
  }
  dec(n = 1): void {
    this.value -= n;
  }
}

export class GaugeFamily extends Family<GaugeChild> {
  readonly type = 'gauge' as const;
  protected make(labels: Labels): GaugeChild {
    return new GaugeChild(labels);
  }
  protected samples(out: Sample[]): void {
    for (const c of this.children) out.push({ value: c.value, labels: c.labels });
  }
}

/** Observations a summary keeps per window for its quantiles. */
export const SUMMARY_SAMPLE = 1024;
export const SUMMARY_QUANTILES = [0.5, 0.9, 0.99] as const;

/**
 * A summary: `_count` exact since start, `_sum` exact when every batch is timed (estimated from
 * the timed ones when the runtime times a sample); quantiles over a uniform sample (reservoir
 * sampling, up to 1024 observations) of the current and the previous window, so that they
 * describe the last one to two windows (a minute each), as client_golang's age buckets do.
 */
class SummaryChild implements SampledTimer {
  count = 0;
  sum = 0;
  private cur = new Float64Array(SUMMARY_SAMPLE);
  private seen = 0;
  private prev = new Float64Array(SUMMARY_SAMPLE);
  private prevSeen = 0;

  constructor(readonly labels: Labels) {}

  observe(v: number): void {
    this.count++;
    this.observeSampled(v, 1);
  }

  tally(n: number): void {
    this.count += n;
  }

  observeSampled(v: number, weight: number): void {
    this.sum += v * weight;
    const seen = ++this.seen;
    if (seen <= SUMMARY_SAMPLE) this.cur[seen - 1] = v;
    else {
      const j = Math.floor(Math.random() * seen);
      if (j < SUMMARY_SAMPLE) this.cur[j] = v;
    }
  }

  start(): () => void {
    return startTimer(this);
  }

  /** Starts a new window; the current one becomes the previous. */
  rotate(): void {
    const p = this.prev;
    this.prev = this.cur;
    this.prevSeen = this.seen;
    this.cur = p;
    this.seen = 0;
  }

  quantiles(): number[] {
    const a = Math.min(this.seen, SUMMARY_SAMPLE);
    const b = Math.min(this.prevSeen, SUMMARY_SAMPLE);
    if (a + b === 0) return SUMMARY_QUANTILES.map(() => NaN);
    const all = new Float64Array(a + b);
    all.set(this.cur.subarray(0, a), 0);
    all.set(this.prev.subarray(0, b), a);
    all.sort();
    return SUMMARY_QUANTILES.map((q) => all[Math.max(0, Math.ceil(q * all.length) - 1)]!);
  }
}

export class SummaryFamily extends Family<SummaryChild> {
  readonly type = 'summary' as const;
  protected make(labels: Labels): SummaryChild {
    return new SummaryChild(labels);
  }
  rotate(): void {
    for (const c of this.children) c.rotate();
  }
  protected samples(out: Sample[]): void {
    for (const c of this.children) {
      const qs = c.quantiles();
      for (let i = 0; i < qs.length; i++) out.push({ value: qs[i]!, labels: { ...c.labels, quantile: String(SUMMARY_QUANTILES[i]) } });
      out.push({ metricName: `${this.name}_sum`, value: c.sum, labels: c.labels });
      out.push({ metricName: `${this.name}_count`, value: c.count, labels: c.labels });
    }
  }
}

class HistogramChild implements SampledTimer {
  count = 0;
  sum = 0;
  /** Per bucket (not cumulative); the last one is +Inf. */
  readonly counts: Float64Array;

  constructor(
    readonly labels: Labels,
    private readonly bounds: Float64Array,
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(v: number): void {
    this.count++;
    this.observeSampled(v, 1);
  }

  tally(n: number): void {
    this.count += n;
  }

  /** The bucket counts grow by `weight`, so that they add up to the count. */
  observeSampled(v: number, weight: number): void {
    this.sum += v * weight;
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    this.counts[i]! += weight;
  }

  start(): () => void {
    return startTimer(this);
  }
}

export class HistogramFamily extends Family<HistogramChild> {
  readonly type = 'histogram' as const;
  private readonly bounds: Float64Array;

  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) {
    super(name, help, labelNames);
    this.bounds = Float64Array.from([...new Set(buckets)].filter((b) => Number.isFinite(b)).sort((a, b) => a - b));
  }

  protected make(labels: Labels): HistogramChild {
    return new HistogramChild(labels, this.bounds);
  }

  protected samples(out: Sample[]): void {
    for (const c of this.children) {
      let acc = 0;
      for (let i = 0; i <= this.bounds.length; i++) {
        acc += c.counts[i]!;
        const last = i === this.bounds.length;
        // +Inf equals the count, also when the last batches were counted but not timed.
        const value = last ? Math.max(acc, c.count) : acc;
        out.push({ metricName: `${this.name}_bucket`, value, labels: { ...c.labels, le: last ? '+Inf' : String(this.bounds[i]) } });
      }
      out.push({ metricName: `${this.name}_sum`, value: c.sum, labels: c.labels });
      out.push({ metricName: `${this.name}_count`, value: c.count, labels: c.labels });
    }
  }
}

/**
 * A timer again under Benthos' name (`input_latency_ns` beside `input_latency`): not a second
 * timer but a view that renders the same observations when scraped, so timing costs nothing more.
 * A summary's quantiles and sum are in nanoseconds, as Benthos' summaries are; a histogram stays
 * in seconds, as Benthos converts histogram timings to seconds to fit its buckets.
 */
export class NanosecondView {
  readonly aggregator = 'sum' as const;
  readonly help: string;

  constructor(
    private readonly source: SummaryFamily | HistogramFamily,
    readonly name: string,
  ) {
    this.help = source.type === 'summary' ? `${source.name} in nanoseconds, under Benthos' name.` : `${source.name} (seconds), under Benthos' name.`;
  }

  get type(): MetricSnapshot['type'] {
    return this.source.type;
  }

  get(): MetricSnapshot {
    const snap = this.source.get();
    const scale = snap.type === 'summary' ? 1e9 : 1;
    const values = snap.values.map((v): Sample => {
      if (v.metricName === undefined) return { value: v.value * scale, labels: v.labels };
      const suffix = v.metricName.slice(snap.name.length);
      return { metricName: this.name + suffix, value: suffix === '_sum' ? v.value * scale : v.value, labels: v.labels };
    });
    return { name: this.name, help: this.help, type: snap.type, values, aggregator: this.aggregator };
  }
}
