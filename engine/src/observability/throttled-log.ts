import type { Logger } from './logger.js';

/**
 * Logs a recurring failure (an unreachable Pushgateway, collector or agent) at most once per
 * interval, saying how many were left out since: a dead endpoint must not flood the log.
 */
export class ThrottledLog {
  private last = -Infinity;
  private suppressed = 0;

  constructor(
    private readonly log: Logger,
    private readonly intervalMs = 30_000,
  ) {}

  warn(message: string): void {
    const now = performance.now();
    if (now - this.last < this.intervalMs) {
      this.suppressed++;
      return;
    }
    const more = this.suppressed > 0 ? ` (${this.suppressed} more like it since the last report)` : '';
    this.last = now;
    this.suppressed = 0;
    this.log.warn(message + more);
  }
}
