/**
 * The `retry` processor (Benthos'): runs processors on each message, and runs them again on a
 * fresh copy of it, after an exponential back-off, while any message that comes out is flagged.
 */
import { f, parseDuration, registerProcessor, type Batch, type Message } from '@svc/engine';
import { Sleeps } from '@svc/engine/kit';
import { runProcessors } from '../mapping/run-processors.js';

const spec = f.object({
  backoff: f
    .object({
      initial_interval: f.duration().default('500ms').describe('The initial period to wait between retry attempts.'),
      max_interval: f.duration().default('10s').describe('The maximum period to wait between retry attempts'),
      max_elapsed_time: f
        .duration()
        .default('1m')
        .describe(
          'The maximum overall period of time to spend on retry attempts before the request is aborted. Setting this value to a zeroed duration (such as `0s`) will result in unbounded retries.',
        ),
    })
    .describe('Determine time intervals and cut offs for retry attempts.'),
  processors: f.array(f.component('processor')).describe('The processors to execute on each message.'),
  parallel: f.bool().default(false).describe('Whether the messages of a batch are retried side by side instead of one after the other.'),
  max_retries: f.int().default(0).describe('The maximum number of retry attempts before the request is aborted (0: no limit).'),
});

/** cenkalti/backoff's ExponentialBackOff as Benthos uses it: ×1.5 per attempt, ±50% jitter, a cap on the total. */
class ExponentialBackoff {
  private current: number;
  private readonly started = Date.now();

  constructor(private readonly conf: { initial: number; max: number; maxElapsed: number }) {
    this.current = conf.initial;
  }

  /** The next wait in ms, or undefined once the elapsed time is up. */
  next(): number | undefined {
    if (this.conf.maxElapsed > 0 && Date.now() - this.started > this.conf.maxElapsed) return undefined;
    const delta = 0.5 * this.current;
    const wait = this.current - delta + Math.random() * (2 * delta + 1);
    this.current = this.current >= this.conf.max / 1.5 ? this.conf.max : this.current * 1.5;
    if (this.conf.maxElapsed > 0 && Date.now() - this.started + wait > this.conf.maxElapsed) return undefined;
    return Math.round(wait);
  }
}

registerProcessor('retry', {
  summary: 'Runs processors on each message, and again on the original message while what comes out is flagged.',
  description: [
    'Each message is processed on its own (a copy, so every attempt starts from the message as it came);',
    'while any message that comes out is flagged with an error, it waits (exponential back-off) and tries',
    'again, until `max_retries` attempts or `backoff.max_elapsed_time` are used up; then what the last',
    'attempt gave goes on, flags and all. The messages that come out carry the metadata `retry_count` (the',
    'failed attempts) and `backoff_duration` (the total wait, in nanoseconds).',
  ].join('\n'),
  config: spec,
  examples: [
    `pipeline:
  processors:
    - retry:
        backoff:
          initial_interval: 1s
          max_interval: 5s
          max_elapsed_time: 30s
        processors:
          - http:
              url: http://localhost:8080/flaky
`,
  ],
  factory: async (conf, ctx) => {
    const processors = await ctx.buildProcessors(conf.processors);
    if (processors.length === 0) throw new Error('at least one child processor must be specified');
    const timing = {
      initial: parseDuration(conf.backoff.initial_interval),
      max: parseDuration(conf.backoff.max_interval),
      maxElapsed: parseDuration(conf.backoff.max_elapsed_time),
    };
    const sleeps = new Sleeps();
    const dispatch = async (m: Message): Promise<Batch[]> => {
      const boff = new ExponentialBackoff(timing);
      let retries = 0;
      let waited = 0;
      m.error = undefined;
      let out: Batch[];
      for (;;) {
        out = await runProcessors(processors, [m.copy()]);
        if (!out.some((b) => b.some((x) => x.error !== undefined))) break;
        retries++;
        if (retries === conf.max_retries) break;
        const wait = boff.next();
        if (wait === undefined) break;
        waited += wait;
        if (!(await sleeps.sleep(wait))) break;
      }
      for (const b of out) {
        for (const x of b) {
          x.setMeta('retry_count', retries);
          x.setMeta('backoff_duration', waited * 1e6);
        }
      }
      return out;
    };
    return {
      async process(batch) {
        const results = conf.parallel ? await Promise.all(batch.map(dispatch)) : [];
        if (!conf.parallel) for (const m of batch) results.push(await dispatch(m));
        const out: Batch = [];
        for (const r of results) for (const b of r) for (const x of b) out.push(x);
        return [out];
      },
      close() {
        sleeps.stop();
        return Promise.resolve();
      },
    };
  },
});
