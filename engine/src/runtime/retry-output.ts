/**
 * The `retry` output (Benthos'): a batch its child fails to deliver is sent to it again, with
 * back-off, until it is delivered, or until `max_retries` / `backoff.max_elapsed_time` runs out
 * (then the transaction is nacked with "message failed to reach a target destination"). It is
 * acked only after the child confirmed it; each attempt gets a fresh copy of the batch.
 */
import { f, type Infer } from '../config/spec.js';
import { parseDuration } from '../config/duration.js';
import { ErrorCode, SvcError, errorMessage } from '../errors.js';
import type { Batch } from '../message/message.js';
import type { Ack } from '../message/transaction.js';
import type { Logger } from '../observability/logger.js';
import { Sleeps } from './backoff.js';
import type { RuntimeComponent } from './runtime-component.js';
import type { Sink } from './sink.js';

export const retryOutputSpec = f.object({
  max_retries: f
    .int()
    .default(0)
    .advanced()
    .describe('The maximum number of retries before giving up on the request. If set to zero there is no discrete limit.'),
  backoff: f
    .object({
      initial_interval: f.duration().default('500ms').describe('The initial period to wait between retry attempts.'),
      max_interval: f.duration().default('3s').describe('The maximum period to wait between retry attempts.'),
      max_elapsed_time: f.duration().default('0s').describe('The maximum period to wait before retry attempts are abandoned. If zero then no limit is used.'),
    })
    .advanced()
    .describe('Control time intervals between retry attempts.'),
  output: f.component('output').describe('A child output.'),
});
type Conf = Infer<typeof retryOutputSpec>;

/** Benthos' exponential back-off (cenkalti/backoff defaults): ×1.5 each time, ±50% jitter. */
export interface RetryPolicy {
  maxRetries: number;
  initialMs: number;
  maxMs: number;
  /** 0: no limit. */
  maxElapsedMs: number;
}

export const GAVE_UP = 'message failed to reach a target destination';

export class RetryOutput implements Sink {
  private readonly waits = new Sleeps();
  /** Batches being retried: while any is, new batches wait (Benthos' back-pressure in an error loop). */
  private looping = 0;
  private loopEnded: (() => void)[] = [];

  constructor(
    private readonly output: Sink,
    private readonly policy: RetryPolicy,
    private readonly log: Logger,
  ) {}

  send(batch: Batch, done: Ack): Promise<void> | void {
    if (this.looping > 0 && !this.waits.stopped) return new Promise<void>((r) => this.loopEnded.push(r)).then(() => this.send(batch, done));
    return this.first(batch, done);
  }

  private first(batch: Batch, userDone: Ack): Promise<void> | void {
    let inLoop = false;
    const done: Ack = (err) => {
      if (inLoop && --this.looping === 0) for (const r of this.loopEnded.splice(0)) r();
      userDone(err);
    };
    const started = Date.now();
    let retries = 0;
    let interval = this.policy.initialMs;
    const attempt = (): Promise<void> | void =>
      this.output.send(
        batch.map((m) => m.copy()),
        (err) => {
          if (!err) return done();
          const p = this.policy;
          const wait = Math.min(p.maxMs, interval) * (0.5 + Math.random());
          interval = Math.min(p.maxMs, interval * 1.5);
          if ((p.maxRetries > 0 && retries >= p.maxRetries) || (p.maxElapsedMs > 0 && Date.now() - started + wait > p.maxElapsedMs) || this.waits.stopped) {
            this.log.error(`Failed to send message: ${errorMessage(err)}`);
            return done(new SvcError(ErrorCode.Write, GAVE_UP, { cause: err }));
          }
          retries++;
          if (!inLoop) {
            inLoop = true;
            this.looping++;
          }
          this.log.warn(`Failed to send message: ${errorMessage(err)}`);
          void this.waits.sleep(wait).then((slept) => {
            if (!slept) return done(err);
            const r = attempt();
            if (r instanceof Promise) r.catch(done);
          });
        },
      );
    return attempt();
  }

  async close(): Promise<void> {
    this.waits.stop();
    for (const r of this.loopEnded.splice(0)) r();
    await this.output.close();
  }
}

export const retryOutput: RuntimeComponent<Conf, Sink> = {
  summary:
    'Attempts to write messages to a child output and if the write fails for any reason the message is retried either until success or, if the retries or max elapsed time fields are non-zero, either is reached.',
  description: [
    'Every output failure nacks the transaction back to its input, which replays it through the whole',
    'pipeline. This output retries the write itself instead, so that the processors (a `dedupe`, say) do not',
    'run twice on the same message. When the retries run out the transaction is nacked with',
    '"message failed to reach a target destination". To send to a different output instead, use `fallback`.',
  ].join('\n'),
  config: retryOutputSpec,
  examples: [
    `output:
  retry:
    max_retries: 5
    backoff:
      initial_interval: 1s
      max_interval: 10s
    output:
      http_client:
        url: http://localhost:4195/post
`,
  ],
  build: async (conf, ctx, parts) =>
    new RetryOutput(
      await parts.sink(conf.output),
      {
        maxRetries: conf.max_retries,
        initialMs: parseDuration(conf.backoff.initial_interval),
        maxMs: parseDuration(conf.backoff.max_interval),
        maxElapsedMs: parseDuration(conf.backoff.max_elapsed_time),
      },
      ctx.logger,
    ),
};
