/**
 * The retry rules of Benthos' http_client errors section (docs/spec/streams.md), as Benthos applies them to each response:
 * `drop_on` fails without a retry, `backoff_on` retries with growing waits, `successful_on`
 * and every other 2xx succeed, anything else retries after `retry_period`.
 */
export type Verdict = 'success' | 'drop' | 'backoff' | 'retry';

export class RetryRules {
  private readonly backoffOn: Set<number>;
  private readonly dropOn: Set<number>;
  private readonly successfulOn: Set<number>;

  constructor(conf: { backoff_on: number[]; drop_on: number[]; successful_on: number[] }) {
    this.backoffOn = new Set(conf.backoff_on);
    this.dropOn = new Set(conf.drop_on);
    this.successfulOn = new Set(conf.successful_on);
  }

  verdict(status: number): Verdict {
    if (this.dropOn.has(status)) return 'drop';
    if (this.backoffOn.has(status)) return 'backoff';
    if (this.successfulOn.has(status)) return 'success';
    return status >= 200 && status <= 299 ? 'success' : 'retry';
  }
}

/**
 * The wait before retry number `backoffs` of a `backoff_on` status: `retry_period` doubled for
 * each consecutive one, capped at `max_retry_backoff`.
 */
export function backoffWait(retryPeriodMs: number, maxMs: number, backoffs: number): number {
  return Math.min(maxMs, retryPeriodMs * 2 ** Math.min(Math.max(0, backoffs - 1), 30));
}
