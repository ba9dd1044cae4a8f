/**
 * Metrics: the API components and plugins use, the exporter interface a `metrics` component
 * implements, and the per-stream registry between them.
 *
 * Every metric carries the labels `path` (the component's config path) and `label` (its label,
 * else its type), prepended by the engine. Names are given without the prefix: the exporter adds
 * it (`svc_` by default). Bind a child once (when the component is built) and keep it: counting
 * is then a plain add per batch, never a label lookup per message.
 *
 *   const requests = ctx.metrics.counter('gateway_requests', { help: 'Requests served.', labels: ['status'] });
 *   const ok = requests.labels('200');   // once
 *   ok.inc(batch.length);                // per batch
 */
import { ErrorCode, SvcError } from '../errors.js';
import { STANDARD_METRICS, type MetricType } from './metric-names.js';
import type { MetricMapping } from './metric-mapping.js';

/** A count that only goes up. */
export interface Counter {
  inc(n?: number): void;
}

/** A value that goes up and down. */
export interface Gauge {
  set(value: number): void;
  inc(n?: number): void;
  dec(n?: number): void;
}

/** Durations, in seconds: a summary by default, a histogram with `use_histogram_timing`. */
export interface Timer {
  observe(seconds: number): void;
  /** Starts timing; calling the result records the seconds elapsed since. */
  start(): () => void;
}

/**
 * A timer the runtime may time on a sample of batches (the engine's own exporters implement it):
 * every batch is counted with `tally`, and a timed batch standing for `weight` batches adds one
 * observation to the quantiles and `seconds × weight` to the sum. A timer without it is timed on
 * every batch.
 */
export interface SampledTimer extends Timer {
  tally(n: number): void;
  observeSampled(seconds: number, weight: number): void;
}

export function isSampledTimer(t: Timer): t is SampledTimer {
  return typeof (t as SampledTimer).tally === 'function' && typeof (t as SampledTimer).observeSampled === 'function';
}

/** A metric declared with extra labels: `labels(...values)` gives the child for those values. */
export interface Labelled<T> {
  labels(...values: string[]): T;
}

export interface MetricOptions {
  help?: string;
  /** Extra label names, after the standard `path` and `label`. */
  labels?: readonly string[];
}

/**
 * `ctx.metrics`: metrics bound to the component's `path` and `label`. Works on every thread: on
 * a pipeline worker the counts ride back with each batch result to the one registry. A bad name
 * or label throws an SvcError (`E_METRICS`) when the component is built, so the stream does not
 * start. Declaring the same name twice returns the same metric; with another type or other
 * labels it throws.
 */
export interface ComponentMetrics {
  counter(name: string, options?: MetricOptions): Counter & Labelled<Counter>;
  gauge(name: string, options?: MetricOptions): Gauge & Labelled<Gauge>;
  timer(name: string, options?: MetricOptions): Timer & Labelled<Timer>;
}

/** Makes the child of a family for one set of label values (`path`, `label`, then extras). */
export type ChildFactory<T> = (labelValues: readonly string[]) => T;

/**
 * What a `metrics` component's factory returns. Names come without the prefix and label names
 * start with `path` and `label`; the registry has validated both and asks for each family once.
 */
export interface MetricsExporter {
  /** False only for `none`: the runtime then skips timing and counting altogether. */
  readonly enabled?: boolean;
  counter(name: string, help: string, labelNames: readonly string[]): ChildFactory<Counter>;
  gauge(name: string, help: string, labelNames: readonly string[]): ChildFactory<Gauge>;
  timer(name: string, help: string, labelNames: readonly string[]): ChildFactory<Timer>;
  /** Called once the stream is built (start pushing). */
  start?(): void | Promise<void>;
  /** Called at shutdown, after the last count: push once, write the file, unmount. */
  close?(): Promise<void>;
}

export const NOOP_COUNTER: Counter = { inc() {} };
export const NOOP_GAUGE: Gauge = { set() {}, inc() {}, dec() {} };
const noopStop = (): void => {};
export const NOOP_TIMER: SampledTimer = { observe() {}, start: () => noopStop, tally() {}, observeSampled() {} };

/** The `none` exporter. */
export const NOOP_EXPORTER: MetricsExporter = {
  enabled: false,
  counter: () => () => NOOP_COUNTER,
  gauge: () => () => NOOP_GAUGE,
  timer: () => () => NOOP_TIMER,
};

/** Metric names: as Prometheus allows, without the colons it reserves for recording rules. */
const NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const LABEL_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const RESERVED_LABELS = new Set(['path', 'label', 'stream', 'le', 'quantile', 'job', 'instance']);

function metricsError(message: string): SvcError {
  return new SvcError(ErrorCode.Metrics, message);
}

/** Checks a metric name and its extra label names; throws an SvcError that says what to change. */
export function checkMetric(name: string, labels: readonly string[] = []): void {
  if (typeof name !== 'string' || !NAME_RE.test(name)) {
    throw metricsError(
      `invalid metric name "${String(name)}": use letters, digits and underscores, starting with a letter or underscore (e.g. gateway_requests)`,
    );
  }
  const seen = new Set<string>();
  for (const l of labels) {
    if (typeof l !== 'string' || !LABEL_RE.test(l) || l.startsWith('__')) {
      throw metricsError(`invalid label name "${String(l)}" of metric ${name}: use letters, digits and underscores, not starting with "__"`);
    }
    if (RESERVED_LABELS.has(l)) {
      throw metricsError(
        `label "${l}" of metric ${name} is reserved (path and label are added to every metric, stream in streams mode; le, quantile, job and instance belong to Prometheus): choose another name`,
      );
    }
    if (seen.has(l)) throw metricsError(`label "${l}" appears twice in metric ${name}`);
    seen.add(l);
  }
}

interface FamilyEntry {
  type: MetricType;
  extra: readonly string[];
  make: ChildFactory<unknown>;
  children: Map<string, unknown>;
  /** With a metrics mapping: every label name of the family (the mapped ones, then the extras). */
  labels?: readonly string[];
}

const NOOP_BY_TYPE: Record<MetricType, unknown> = { counter: NOOP_COUNTER, gauge: NOOP_GAUGE, timer: NOOP_TIMER };

const SEP = '\u0001';

/**
 * The metrics of one stream (on one thread): validates names, creates each family once through
 * the exporter, and caches children by label values, so binding the same child twice is free
 * and gives the same object.
 *
 * In streams mode (`streamLabel`) every family also carries the label `stream`, as Benthos' do,
 * and each stream binds its children through `forStream(id)`: two streams with the same
 * component paths never add into one series.
 */
export class StreamMetrics {
  readonly enabled: boolean;
  private readonly families: Map<string, FamilyEntry>;
  private readonly streamLabel: boolean;
  private readonly stream: string;

  private readonly mapping: MetricMapping | undefined;
  /** With a mapping: each series as first asked for (name and label values) → its child. */
  private readonly mapped = new Map<string, unknown>();

  constructor(
    readonly exporter: MetricsExporter,
    opts: { streamLabel?: boolean; mapping?: MetricMapping } = {},
    scope?: { families: Map<string, FamilyEntry>; stream: string },
  ) {
    this.enabled = exporter.enabled !== false;
    this.streamLabel = opts.streamLabel === true;
    this.mapping = opts.mapping;
    this.families = scope?.families ?? new Map();
    this.stream = scope?.stream ?? '';
  }

  /** The metrics of stream `id` (streams mode): the same families, its series labelled stream=id. */
  forStream(id: string): StreamMetrics {
    return this.streamLabel ? new StreamMetrics(this.exporter, { streamLabel: true, mapping: this.mapping }, { families: this.families, stream: id }) : this;
  }

  private family(type: MetricType, name: string, help: string, extra: readonly string[]): FamilyEntry {
    const existing = this.families.get(name);
    if (existing) {
      if (existing.type !== type || existing.extra.join(',') !== extra.join(',')) {
        throw metricsError(
          `metric ${name} is already declared as a ${existing.type} with labels [path, label${existing.extra.map((l) => ', ' + l).join('')}]: ` +
            `declare it the same way everywhere, or use another name`,
        );
      }
      return existing;
    }
    const std = STANDARD_METRICS[name];
    if (std && std.type !== type) throw metricsError(`metric ${name} is a standard ${std.type} of the runtime: choose another name`);
    checkMetric(name, extra);
    const labelNames = this.streamLabel ? ['path', 'label', 'stream', ...extra] : ['path', 'label', ...extra];
    const make =
      type === 'counter'
        ? this.exporter.counter(name, help, labelNames)
        : type === 'gauge'
          ? this.exporter.gauge(name, help, labelNames)
          : this.exporter.timer(name, help, labelNames);
    const entry: FamilyEntry = { type, extra: [...extra], make: make as ChildFactory<unknown>, children: new Map() };
    this.families.set(name, entry);
    return entry;
  }

  /** The child of a family for the given label values (path, label, extras), made once. */
  child<T>(type: MetricType, name: string, help: string, extra: readonly string[], values: readonly string[]): T {
    if (this.mapping !== undefined) return this.mappedChild<T>(this.mapping, type, name, help, extra, values);
    const fam = this.family(type, name, help, extra);
    if (values.length !== 2 + fam.extra.length) {
      throw metricsError(`metric ${name} takes ${fam.extra.length} label value(s) (${fam.extra.join(', ') || 'none'}), got ${values.length - 2}`);
    }
    const full = this.streamLabel ? [values[0]!, values[1]!, this.stream, ...values.slice(2)] : values;
    const key = full.join(SEP);
    let c = fam.children.get(key);
    if (c === undefined) {
      c = fam.make(full.map(String));
      fam.children.set(key, c);
    }
    return c as T;
  }

  /**
   * A child through `metrics.mapping`: the mapping names the series and its component labels once;
   * a dropped series (or one whose labels differ from the family's first series, which Prometheus
   * cannot hold) counts nowhere.
   */
  private mappedChild<T>(mapping: MetricMapping, type: MetricType, name: string, help: string, extra: readonly string[], values: readonly string[]): T {
    const seriesKey = [name, this.stream, ...values].join(SEP);
    if (this.mapped.has(seriesKey)) return this.mapped.get(seriesKey) as T;
    const names = this.streamLabel ? ['label', 'path', 'stream'] : ['label', 'path'];
    const own = this.streamLabel ? [values[1]!, values[0]!, this.stream] : [values[1]!, values[0]!];
    const m = mapping.map(name, names, own);
    let c: unknown = NOOP_BY_TYPE[type];
    if (m !== undefined) {
      const labels = [...m.labelNames, ...extra];
      let fam = this.families.get(m.name);
      if (fam === undefined) {
        const std = STANDARD_METRICS[m.name];
        if (std && std.type !== type)
          throw metricsError(`metrics.mapping names a ${type} ${m.name}, a standard ${std.type} of the runtime: choose another name`);
        if (!NAME_RE.test(m.name)) throw metricsError(`metrics.mapping gave the invalid metric name "${m.name}" (for ${name})`);
        const make =
          type === 'counter'
            ? this.exporter.counter(m.name, help, labels)
            : type === 'gauge'
              ? this.exporter.gauge(m.name, help, labels)
              : this.exporter.timer(m.name, help, labels);
        fam = { type, extra: [...extra], make: make as ChildFactory<unknown>, children: new Map(), labels };
        this.families.set(m.name, fam);
      }
      if (fam.type === type && (fam.labels ?? []).join(',') === labels.join(',')) {
        const full = [...m.labelValues, ...values.slice(2)].map(String);
        const key = full.join(SEP);
        c = fam.children.get(key);
        if (c === undefined) fam.children.set(key, (c = fam.make(full)));
      }
    }
    this.mapped.set(seriesKey, c);
    return c as T;
  }

  /** A standard metric of the runtime (see metric-names.ts) bound to a component. */
  standard<T>(name: string, path: string, label: string): T {
    const std = STANDARD_METRICS[name];
    if (!std) throw metricsError(`${name} is not a standard metric`);
    return this.child<T>(std.type, name, std.help, [], [path, label]);
  }

  /** Declares every standard metric, so that each is listed (with HELP and TYPE) before it has samples. */
  declareStandard(): void {
    if (this.mapping !== undefined) return; // names and labels are the mapping's, known per series
    for (const [name, std] of Object.entries(STANDARD_METRICS)) this.family(std.type, name, std.help, []);
  }

  /** `ctx.metrics` for a component. */
  forComponent(path: string, label: string): ComponentMetrics {
    const make = <T>(type: MetricType, name: string, options: MetricOptions | undefined): T & Labelled<T> => {
      const extra = options?.labels ?? [];
      const help = options?.help ?? `${name} (declared by a component).`;
      this.family(type, name, help, extra);
      const labelled = {
        labels: (...values: string[]): T => this.child<T>(type, name, help, extra, [path, label, ...values]),
      };
      if (extra.length > 0) {
        // The metric itself needs label values: its direct methods say how to get a child.
        const needs = (): never => {
          throw metricsError(`metric ${name} has labels [${extra.join(', ')}]: call .labels(...) once and use the child`);
        };
        return Object.assign(labelled, { inc: needs, dec: needs, set: needs, observe: needs, start: needs }) as unknown as T & Labelled<T>;
      }
      const child = this.child<T>(type, name, help, extra, [path, label]) as object;
      // Bind the child's methods, so that `const { inc } = counter` works as well.
      const direct: Record<string, unknown> = {};
      for (const k of ['inc', 'dec', 'set', 'observe', 'start']) {
        const fn = (child as Record<string, unknown>)[k];
        if (typeof fn === 'function') direct[k] = fn.bind(child);
      }
      return Object.assign(labelled, direct) as T & Labelled<T>;
    };
    return {
      counter: (name, options) => make<Counter>('counter', name, options),
      gauge: (name, options) => make<Gauge>('gauge', name, options),
      timer: (name, options) => make<Timer>('timer', name, options),
    };
  }

  /** Each declared family: for the worker protocol and for tests. */
  declared(): Array<{ name: string; type: MetricType; extra: readonly string[] }> {
    return [...this.families.entries()].map(([name, f]) => ({ name, type: f.type, extra: f.extra }));
  }
}

/** A timer's `start()`, for exporters: records the seconds since the call. */
export function startTimer(timer: Timer): () => void {
  const t0 = performance.now();
  return () => timer.observe((performance.now() - t0) / 1000);
}

/**
 * The metrics of a component: `ctx.metrics`, or (in a context built by hand, as tests do) metrics
 * that validate names and count nothing.
 *
 *   const sent = metricsFor(ctx).counter('kafka_bytes_sent', { help: 'Bytes written to Kafka.' });
 */
export function metricsFor(ctx: { readonly metrics?: ComponentMetrics; readonly path: string; readonly label: string }): ComponentMetrics {
  return ctx.metrics ?? new StreamMetrics(NOOP_EXPORTER).forComponent(ctx.path, ctx.label);
}
