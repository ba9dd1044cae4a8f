/**
 * Metrics kept in process as Benthos' `metrics.Local` keeps them, for the `json_api` and `logger`
 * exporters: counters and gauges in one table of integers (a float is truncated, as Benthos'
 * int64 stats), timers as a sample of nanosecond durations read as p50/p90/p99, every series
 * named `name{label="",path="root.input"}` with its labels sorted and quoted as Go's
 * strconv.QuoteToASCII writes them. Timer names take Benthos' `_ns` suffix.
 */
import type { ChildFactory, Counter, Gauge, MetricsExporter, Timer } from './metrics.js';

/** go-metrics' timers sample 1028 observations; this keeps a uniform sample of as many (Vitter's R). */
const SAMPLE_SIZE = 1028;

/** Go's strconv.QuoteToASCII: JSON-like escapes, every non-ASCII character as \u or \U. */
export function quoteToAscii(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else if (c === 0x07) out += '\\a';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0b) out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else if (c <= 0xffff) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += '\\U' + c.toString(16).padStart(8, '0');
  }
  return out + '"';
}

/** Benthos' createLabelledPath. */
export function labelledPath(name: string, labelNames: readonly string[], values: readonly string[]): string {
  if (labelNames.length === 0) return name;
  const pairs = labelNames.map((n, i) => [n, values[i] ?? ''] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${name}{${pairs.map(([n, v]) => `${n}=${quoteToAscii(v)}`).join(',')}}`;
}

/** A timer's sample of nanosecond durations. */
export class TimingSample {
  private values: number[] = [];
  private seen = 0;

  update(ns: number): void {
    this.seen++;
    if (this.values.length < SAMPLE_SIZE) this.values.push(ns);
    else {
      const i = Math.floor(Math.random() * this.seen);
      if (i < SAMPLE_SIZE) this.values[i] = ns;
    }
  }

  /** go-metrics' SamplePercentiles: interpolated at p×(n+1), 0 when empty. */
  percentiles(ps: readonly number[]): number[] {
    const v = [...this.values].sort((a, b) => a - b);
    const n = v.length;
    return ps.map((p) => {
      if (n === 0) return 0;
      const pos = p * (n + 1);
      if (pos < 1) return v[0]!;
      if (pos >= n) return v[n - 1]!;
      const lower = v[Math.floor(pos) - 1]!;
      const upper = v[Math.floor(pos)]!;
      return lower + (pos - Math.floor(pos)) * (upper - lower);
    });
  }

  reset(): void {
    this.values = [];
    this.seen = 0;
  }
}

/** The series of one exporter: what Benthos' `metrics.NewLocal()` holds. */
export class LocalMetrics implements MetricsExporter {
  readonly enabled = true;
  private readonly counters = new Map<string, { value: number }>();
  private readonly timings = new Map<string, TimingSample>();

  private stat(key: string): { value: number } {
    let s = this.counters.get(key);
    if (!s) this.counters.set(key, (s = { value: 0 }));
    return s;
  }

  counter(name: string, _help: string, labelNames: readonly string[]): ChildFactory<Counter> {
    return (values) => {
      const s = this.stat(labelledPath(name, labelNames, values));
      return { inc: (n = 1) => void (s.value += Math.trunc(n)) };
    };
  }

  gauge(name: string, _help: string, labelNames: readonly string[]): ChildFactory<Gauge> {
    return (values) => {
      const s = this.stat(labelledPath(name, labelNames, values));
      return {
        set: (v) => void (s.value = Math.trunc(v)),
        inc: (n = 1) => void (s.value += Math.trunc(n)),
        dec: (n = 1) => void (s.value -= Math.trunc(n)),
      };
    };
  }

  timer(name: string, _help: string, labelNames: readonly string[]): ChildFactory<Timer> {
    const ns = name.endsWith('_ns') ? name : `${name}_ns`;
    return (values) => {
      const key = labelledPath(ns, labelNames, values);
      let t = this.timings.get(key);
      if (!t) this.timings.set(key, (t = new TimingSample()));
      const sample = t;
      const observe = (seconds: number) => sample.update(Math.round(seconds * 1e9));
      return {
        observe,
        start: () => {
          const t0 = process.hrtime.bigint();
          return () => observe(Number(process.hrtime.bigint() - t0) / 1e9);
        },
      };
    };
  }

  /** Every counter and gauge by series key, sorted; `reset` zeroes them after reading (flush). */
  readCounters(reset = false): [string, number][] {
    const out = [...this.counters].map(([k, s]) => [k, s.value] as [string, number]).sort(([a], [b]) => (a < b ? -1 : 1));
    if (reset) for (const s of this.counters.values()) s.value = 0;
    return out;
  }

  /** Every timer's p50, p90 and p99 in nanoseconds, sorted; `reset` starts new samples. */
  readTimings(reset = false): [string, number[]][] {
    const out = [...this.timings].map(([k, t]) => [k, t.percentiles([0.5, 0.9, 0.99])] as [string, number[]]).sort(([a], [b]) => (a < b ? -1 : 1));
    if (reset) for (const t of this.timings.values()) t.reset();
    return out;
  }
}
