/**
 * Metrics across threads. A pipeline worker has no registry: its components count into a
 * recording exporter (plain arrays, summed per batch), whose delta rides back with each batch
 * result and is applied to the one registry on the main thread. Families and children are
 * described once per worker (by id) and referred to by id after, so a result carries numbers.
 */
import type { MetricType } from './metric-names.js';
import {
  isSampledTimer,
  startTimer,
  type ChildFactory,
  type Counter,
  type Gauge,
  type MetricsExporter,
  type SampledTimer,
  type StreamMetrics,
  type Timer,
} from './metrics.js';

/** A child as first seen on a worker. */
export interface MetricDef {
  id: number;
  type: MetricType;
  name: string;
  help: string;
  /** Extra label names (after path and label). */
  extra: string[];
  /** Every label value: path, label, extras. */
  values: string[];
}

/** What one batch result carries back: counts summed per child, gauge operations, timings. */
export interface MetricsDelta {
  thread: number;
  defs?: MetricDef[];
  /** Pairs: id, increment. */
  counts?: number[];
  /** Triples: id, operation (0 set, 1 add), value. */
  gauges?: number[];
  /** Triples: id, seconds, weight (the batches a timed one stands for). */
  timings?: number[];
  /** Pairs: id, batches counted by a timer. */
  tallies?: number[];
}

/** The exporter of a pipeline worker: records, and hands the records over with `drain()`. */
export class RecordingExporter implements MetricsExporter {
  readonly enabled = true;
  private readonly defs: MetricDef[] = [];
  private sentDefs = 0;
  private readonly counts: number[] = [];
  private dirty: number[] = [];
  private gaugeOps: number[] = [];
  private timings: number[] = [];
  private readonly tallies: number[] = [];
  private tallyDirty: number[] = [];

  constructor(private readonly thread: number) {}

  private define(type: MetricType, name: string, help: string, labelNames: readonly string[], values: readonly string[]): number {
    const id = this.defs.length;
    this.defs.push({ id, type, name, help, extra: labelNames.slice(2), values: [...values] });
    this.counts.push(0);
    this.tallies.push(0);
    return id;
  }

  counter(name: string, help: string, labelNames: readonly string[]): ChildFactory<Counter> {
    return (values) => {
      const id = this.define('counter', name, help, labelNames, values);
      return {
        inc: (n = 1) => {
          if (!(n >= 0)) throw new RangeError(`a counter only goes up: inc(${n})`);
          if (this.counts[id] === 0) this.dirty.push(id);
          this.counts[id]! += n;
        },
      };
    };
  }

  gauge(name: string, help: string, labelNames: readonly string[]): ChildFactory<Gauge> {
    return (values) => {
      const id = this.define('gauge', name, help, labelNames, values);
      return {
        set: (v) => void this.gaugeOps.push(id, 0, v),
        inc: (n = 1) => void this.gaugeOps.push(id, 1, n),
        dec: (n = 1) => void this.gaugeOps.push(id, 1, -n),
      };
    };
  }

  timer(name: string, help: string, labelNames: readonly string[]): ChildFactory<Timer> {
    return (values) => {
      const id = this.define('timer', name, help, labelNames, values);
      const tally = (n: number): void => {
        if (this.tallies[id] === 0) this.tallyDirty.push(id);
        this.tallies[id]! += n;
      };
      const t: SampledTimer = {
        observe: (seconds) => {
          tally(1);
          this.timings.push(id, seconds, 1);
        },
        start: () => startTimer(t),
        tally,
        observeSampled: (seconds, weight) => void this.timings.push(id, seconds, weight),
      };
      return t;
    };
  }

  /** Everything recorded since the last drain, or undefined when nothing was. */
  drain(): MetricsDelta | undefined {
    let d: MetricsDelta | undefined;
    if (this.sentDefs < this.defs.length) {
      d = { thread: this.thread, defs: this.defs.slice(this.sentDefs) };
      this.sentDefs = this.defs.length;
    }
    if (this.dirty.length) {
      const counts: number[] = [];
      for (const id of this.dirty) {
        counts.push(id, this.counts[id]!);
        this.counts[id] = 0;
      }
      this.dirty = [];
      (d ??= { thread: this.thread }).counts = counts;
    }
    if (this.gaugeOps.length) {
      (d ??= { thread: this.thread }).gauges = this.gaugeOps;
      this.gaugeOps = [];
    }
    if (this.timings.length) {
      (d ??= { thread: this.thread }).timings = this.timings;
      this.timings = [];
    }
    if (this.tallyDirty.length) {
      const tallies: number[] = [];
      for (const id of this.tallyDirty) {
        tallies.push(id, this.tallies[id]!);
        this.tallies[id] = 0;
      }
      this.tallyDirty = [];
      (d ??= { thread: this.thread }).tallies = tallies;
    }
    return d;
  }
}

/** Applies workers' deltas to the main thread's registry. */
export class WorkerMetricsSink {
  private readonly byThread = new Map<number, unknown[]>();

  constructor(private readonly metrics: StreamMetrics) {}

  apply(delta: MetricsDelta): void {
    let children = this.byThread.get(delta.thread);
    if (!children) this.byThread.set(delta.thread, (children = []));
    if (delta.defs) {
      for (const def of delta.defs) children[def.id] = this.metrics.child(def.type, def.name, def.help, def.extra, def.values);
    }
    const c = delta.counts;
    if (c) for (let i = 0; i < c.length; i += 2) (children[c[i]!] as Counter | undefined)?.inc(c[i + 1]!);
    const g = delta.gauges;
    if (g) {
      for (let i = 0; i < g.length; i += 3) {
        const child = children[g[i]!] as Gauge | undefined;
        if (!child) continue;
        if (g[i + 1] === 0) child.set(g[i + 2]!);
        else child.inc(g[i + 2]!);
      }
    }
    const tl = delta.tallies;
    if (tl) {
      for (let i = 0; i < tl.length; i += 2) {
        const child = children[tl[i]!] as Timer | undefined;
        if (child && isSampledTimer(child)) child.tally(tl[i + 1]!);
      }
    }
    const t = delta.timings;
    if (t) {
      for (let i = 0; i < t.length; i += 3) {
        const child = children[t[i]!] as Timer | undefined;
        if (!child) continue;
        if (isSampledTimer(child)) child.observeSampled(t[i + 1]!, t[i + 2]!);
        else child.observe(t[i + 1]!);
      }
    }
  }
}
