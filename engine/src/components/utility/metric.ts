import { compileInterpolation, errorMessage, f, registerProcessor, type Counter, type Gauge, type Interpolation, type Message, type Timer } from '@svc/engine';

const spec = f.object({
  type: f.enum(['counter', 'counter_by', 'gauge', 'timing'] as const).describe('The metric type to create.'),
  name: f.string().describe('The name of the metric to create, unique across all components, else it shares the other metric.'),
  labels: f
    .map(f.string().interpolated())
    .optional()
    .describe('A map of label names and values that can be used to enrich metrics. Values may hold `${! ... }` interpolations.'),
  value: f
    .string()
    .default('')
    .interpolated()
    .describe('For some metric types specifies a value to set, increment. `timing` takes an integer number of nanoseconds.'),
});

/** Go's strconv.ParseInt (base 10, 64-bit) on the value text; undefined when it is not one. */
function parseInt64(text: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const n = BigInt(text);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

/** Go's strconv.ParseFloat on the decimal forms; throws its error text otherwise. */
function parseFloat64(text: string): number {
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return Number(text);
  if (/^[+-]?(inf|infinity)$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return NaN;
  throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(text)}: invalid syntax`);
}

/** Benthos' withNumberStr: a non-negative integer or float. */
function nonNegative(text: string): number {
  const i = parseInt64(text);
  if (i !== undefined) {
    if (i < 0n) throw new Error(`value ${i} is negative`);
    return Number(i);
  }
  const v = parseFloat64(text);
  if (v < 0) throw new Error(`value ${v.toFixed(6)} is negative`);
  return v;
}

type Handler = (value: string, metric: Counter & Gauge & Timer) => void;

const HANDLERS: Record<string, Handler> = {
  counter: (_v, t) => t.inc(1),
  counter_by: (v, t) => {
    t.inc(nonNegative(v));
  },
  gauge: (v, t) => {
    t.set(nonNegative(v));
  },
  timing: (v, t) => {
    const i = parseInt64(v);
    if (i === undefined) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
    if (i < 0n) throw new Error('value is negative');
    t.observe(Number(i) / 1e9);
  },
};

/**
 * `metric`: counts, sets or times a custom metric per message (Benthos' metric processor). The
 * metric has the component's `path` and `label` labels and the configured ones (sorted by name),
 * whose values are interpolated per message. A value that is not a number is logged, never fails
 * the message.
 */
registerProcessor('metric', {
  summary: 'Emit custom metrics by extracting values from messages.',
  description:
    '`counter` adds one per message; `counter_by` adds the value; `gauge` sets the value; `timing` records the value, a number of nanoseconds. Values must not be negative. Label values are interpolated per message.',
  config: spec,
  examples: [
    'pipeline:\n  processors:\n    - metric:\n        type: counter\n        name: count_docs\n        labels:\n          topic: \'${! meta("kafka_topic") }\'\n',
  ],
  factory: (conf, ctx) => {
    if (conf.name === '') throw new Error('metric name must not be empty');
    const value = compileInterpolation(conf.value);
    const labels: [string, Interpolation][] = Object.keys(conf.labels ?? {})
      .sort()
      .map((k) => [k, compileInterpolation(conf.labels![k]!)]);
    const names = labels.map(([k]) => k);
    const metrics = ctx.metrics!;
    const family =
      conf.type === 'gauge'
        ? metrics.gauge(conf.name, { labels: names })
        : conf.type === 'timing'
          ? metrics.timer(conf.name, { labels: names })
          : metrics.counter(conf.name, { labels: names });
    const handle = HANDLERS[conf.type]!;
    const unlabelled = family as unknown as Counter & Gauge & Timer;
    // labels first, as Benthos: a label that fails is the error logged
    const target = (m: Message, index: number, batch: Message[]): Counter & Gauge & Timer => {
      if (labels.length === 0) return unlabelled;
      const values = labels.map(([, i]) => {
        try {
          return i.value(m, { batch, index });
        } catch (err) {
          throw new Error(`label interpolation error: ${errorMessage(err)}`);
        }
      });
      return family.labels(...values) as unknown as Counter & Gauge & Timer;
    };
    return {
      process(batch) {
        for (let i = 0; i < batch.length; i++) {
          const m = batch[i]!;
          let v: string;
          try {
            v = value.value(m, { batch, index: i });
          } catch (err) {
            ctx.logger.error(`Value interpolation error: ${errorMessage(err)}`);
            continue;
          }
          try {
            handle(v, target(m, i, batch));
          } catch (err) {
            ctx.logger.error(`Handler error: ${errorMessage(err)}`);
          }
        }
        return [batch];
      },
    };
  },
});
