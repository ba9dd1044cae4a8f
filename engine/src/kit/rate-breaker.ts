/**
 * A rate circuit breaker, as github.com/rubyist/circuitbreaker's NewRateBreaker (Tyk's fork, which
 * Tyk v5.14.0 runs per endpoint) counts:
 *
 * - closed: requests go through; each result is counted in a 10 s window of 10 buckets. Once the
 *   window holds `samples` results and the failure rate is `threshold` (0-1) or more, the breaker
 *   trips (open) and a timer closes it again after `returnToServiceMs` (Tyk's reset goroutine;
 *   every trip starts one).
 * - open: requests are refused, except, with `halfOpen`, a trial request once the backoff since
 *   the last failure has passed (exponential: 500 ms, ×1.5 each trial, ±50% jitter, at most 60 s).
 *   A trial that succeeds closes the breaker; one that fails trips it again.
 *
 * One instance is one breaker's state: a gateway in one process holds it; with several processes
 * the primary holds it for all of them (process-hub.ts), so a node trips as one Tyk node does.
 */

const WINDOW_MS = 10_000;
const BUCKETS = 10;
const BUCKET_MS = WINDOW_MS / BUCKETS;

/** cenkalti/backoff's ExponentialBackOff defaults, as the breaker uses them. */
const INITIAL_BACKOFF_MS = 500;
const MULTIPLIER = 1.5;
const JITTER = 0.5;
const MAX_BACKOFF_MS = 60_000;

export interface RateBreakerConfig {
  /** The failure rate (0-1) that trips the breaker, once the window holds `samples` results. */
  threshold: number;
  samples: number;
  /** Milliseconds after a trip when the breaker closes again. */
  returnToServiceMs: number;
  /** Whether an open breaker lets a trial request through after its backoff. */
  halfOpen: boolean;
}

export type BreakerEvent = 'tripped' | 'reset';

export class RateBreaker {
  private readonly failures = new Array<number>(BUCKETS).fill(0);
  private readonly successes = new Array<number>(BUCKETS).fill(0);
  /** The bucket the counts of `bucketAt` go to, and when it started. */
  private bucket = 0;
  private bucketAt = 0;
  private tripped = false;
  private lastFailure = 0;
  private interval = INITIAL_BACKOFF_MS;
  private nextBackOff: number;
  private halfOpens = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    readonly conf: RateBreakerConfig,
    private readonly onEvent: (event: BreakerEvent) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.nextBackOff = this.backOff();
  }

  /** True when a request may go through now (closed, or a half-open trial). */
  ready(): boolean {
    const state = this.state();
    if (state === 'half-open') this.halfOpens = false;
    return state !== 'open';
  }

  fail(): void {
    this.rotate();
    this.failures[this.bucket]!++;
    this.lastFailure = this.now();
    if (this.shouldTrip()) this.trip();
  }

  success(): void {
    this.interval = INITIAL_BACKOFF_MS;
    this.nextBackOff = this.backOff();
    if (this.state() === 'half-open') this.reset();
    this.rotate();
    this.successes[this.bucket]!++;
  }

  /** Stops the return-to-service timers (the breaker is replaced or its owner is closing). */
  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private state(): 'closed' | 'open' | 'half-open' {
    if (!this.tripped) return 'closed';
    if (!this.conf.halfOpen) return 'open';
    if (this.now() - this.lastFailure > this.nextBackOff && !this.halfOpens) {
      this.halfOpens = true;
      this.nextBackOff = this.backOff();
      return 'half-open';
    }
    return 'open';
  }

  private shouldTrip(): boolean {
    let failures = 0;
    let total = 0;
    for (let i = 0; i < BUCKETS; i++) {
      failures += this.failures[i]!;
      total += this.failures[i]! + this.successes[i]!;
    }
    return total >= this.conf.samples && total > 0 && failures / total >= this.conf.threshold;
  }

  private trip(): void {
    this.tripped = true;
    this.lastFailure = this.now();
    this.onEvent('tripped');
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.reset();
    }, this.conf.returnToServiceMs);
    timer.unref();
    this.timers.add(timer);
  }

  private reset(): void {
    this.tripped = false;
    this.halfOpens = false;
    this.failures.fill(0);
    this.successes.fill(0);
    this.onEvent('reset');
  }

  /** Moves to the current bucket, emptying the ones the window left behind. */
  private rotate(): void {
    const now = this.now();
    if (this.bucketAt === 0) this.bucketAt = now;
    const steps = Math.floor((now - this.bucketAt) / BUCKET_MS);
    if (steps <= 0) return;
    for (let i = 0; i < Math.min(steps, BUCKETS); i++) {
      this.bucket = (this.bucket + 1) % BUCKETS;
      this.failures[this.bucket] = 0;
      this.successes[this.bucket] = 0;
    }
    this.bucketAt += steps * BUCKET_MS;
  }

  /** The next backoff: the current interval with ±50% jitter; the interval grows ×1.5 up to 60 s. */
  private backOff(): number {
    const delta = JITTER * this.interval;
    const next = this.interval - delta + Math.random() * (2 * delta + 1);
    this.interval = Math.min(this.interval * MULTIPLIER, MAX_BACKOFF_MS);
    return next;
  }
}
