/**
 * Benthos' retry fields of the AWS outputs (`max_retries`, `backoff`), and the back-off they make:
 * exponential from `initial_interval` up to `max_interval`, given up after `max_retries` retries
 * (0: no limit) or once `max_elapsed_time` has passed since the first attempt (empty or 0: no limit).
 */
import { f, parseDuration, type Infer } from '@svc/engine';

/** The fields, with the defaults each output gives them (as Benthos' CommonRetryBackOffFields). */
export function retryFields(initial: string, max: string, elapsed: string) {
  return {
    max_retries: f
      .int()
      .default(0)
      .validate((n) => (n >= 0 ? undefined : 'max_retries must be 0 (no limit) or more'))
      .advanced()
      .describe('The maximum number of retries before giving up on the request. If set to zero there is no discrete limit.'),
    backoff: f
      .object({
        initial_interval: f.duration().default(initial).describe('The initial period to wait between retry attempts.'),
        max_interval: f.duration().default(max).describe('The maximum period to wait between retry attempts.'),
        max_elapsed_time: f
          .duration()
          .default(elapsed)
          .describe('The maximum period to wait before retry attempts are abandoned. If zero then no limit is used.'),
      })
      .advanced()
      .describe('Control time intervals between retry attempts.'),
  };
}

type RetryConfig = Infer<ReturnType<typeof f.object<ReturnType<typeof retryFields>>>>;

/** One request's retries: `next()` gives the wait before the next attempt, or undefined to give up. */
export class RetryBackoff {
  private attempt = 0;
  private readonly started = Date.now();
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly elapsedMs: number;

  constructor(private readonly conf: RetryConfig) {
    this.initialMs = parseDuration(conf.backoff.initial_interval);
    this.maxMs = parseDuration(conf.backoff.max_interval);
    this.elapsedMs = conf.backoff.max_elapsed_time === '' ? 0 : parseDuration(conf.backoff.max_elapsed_time);
  }

  next(): number | undefined {
    this.attempt++;
    if (this.conf.max_retries > 0 && this.attempt > this.conf.max_retries) return undefined;
    const wait = Math.min(this.maxMs, this.initialMs * 1.5 ** (this.attempt - 1));
    if (this.elapsedMs > 0 && Date.now() - this.started + wait > this.elapsedMs) return undefined;
    return Math.round(wait * (0.75 + Math.random() * 0.5));
  }
}
