/**
 * What the `stdin` and `file` inputs log about lines skipped for being longer than `max_buffer`
 * (with `skip_long_lines: true`): a warning for each of the first few, then only their count
 * when the stream (a file, stdin) ends, so a stream of long lines cannot flood the log.
 */
import type { Logger } from '@svc/engine';
import type { LineTooLongError, OnSkip } from './codec.js';

/** Skipped lines logged one by one, per stream; the rest are only counted. */
const LOGGED = 10;

export class LongLineLog {
  private logged = 0;

  /** `source` names the stream in messages: `stdin`, `file "a.txt"`. */
  constructor(
    private source: string,
    private readonly maxBuffer: number,
    private readonly log: Logger | undefined,
  ) {}

  /** Starts a new stream (the next file): its own numbering and count. */
  reset(source: string): void {
    this.source = source;
    this.logged = 0;
  }

  readonly onSkip: OnSkip = (err: LineTooLongError) => {
    if (this.logged >= LOGGED) return;
    this.logged++;
    const more = this.logged === LOGGED ? ' (further skipped lines of it are only counted)' : '';
    this.log?.warn(
      `${this.source}: skipped line ${err.line} (starting at byte ${err.offset}): it is longer than max_buffer ` +
        `(${err.maxBuffer} bytes; skip_long_lines is true)${more}`,
    );
  };

  /** At the end of the stream: how many lines were skipped, if any. */
  summary(skipped: number): void {
    if (skipped === 0) return;
    this.log?.warn(`${this.source}: skipped ${skipped} line(s) longer than max_buffer (${this.maxBuffer} bytes; skip_long_lines is true)`);
  }
}
