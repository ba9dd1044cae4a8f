import type { Logger } from './logger.js';

/**
 * Logs a recurring failure (an unreachable Pushgateway, collector or agent; a processor failing
 * on every message) at most `burst` times per interval, and says how many were left out: a
 * dead endpoint or a bad mapping must not flood the log, and must not go quiet either. The
 * count of what was left out is logged when the interval ends (an unref'd timer: it never keeps
 * the process alive) or with the next line, whichever comes first.
 */
export class ThrottledLog {
  private windowStart = -Infinity;
  private inWindow = 0;
  private suppressed = 0;
  private timer: NodeJS.Timeout | undefined;
  private level: 'warn' | 'error' = 'warn';

  constructor(
    private readonly log: Logger,
    private readonly intervalMs = 30_000,
    private readonly burst = 1,
  ) {}

  warn(message: string): void {
    this.emit('warn', message);
  }

  error(message: string): void {
    this.emit('error', message);
  }

  private emit(level: 'warn' | 'error', message: string): void {
    const now = performance.now();
    if (now - this.windowStart >= this.intervalMs) {
      this.windowStart = now;
      this.inWindow = 0;
    }
    if (this.inWindow >= this.burst) {
      this.suppressed++;
      this.level = level;
      this.timer ??= setTimeout(() => this.report(), Math.max(0, this.windowStart + this.intervalMs - now)).unref();
      return;
    }
    this.inWindow++;
    const more = this.suppressed > 0 ? ` (${this.suppressed} more like it since the last report)` : '';
    this.suppressed = 0;
    this.clear();
    this.log[level](message + more);
  }

  /** Says now how many lines were left out, if any (at close: the interval's timer would never fire). */
  flush(): void {
    this.clear();
    this.report();
  }

  /** The interval ended with lines left out: say how many. */
  private report(): void {
    this.timer = undefined;
    if (this.suppressed === 0) return;
    this.log[this.level](`${this.suppressed} more like the last one in the past ${Math.round(this.intervalMs / 1000)}s`);
    this.suppressed = 0;
  }

  private clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
