/**
 * The `drop_on` output (Benthos'): writes to a child output and, when the write fails for one of
 * the configured reasons (any error, an error matching a pattern, or back pressure beyond a
 * duration), acks the message instead of nacking it: the one place a message is acked without
 * an output confirming it, which is what the user asked for. Every other outcome is passed on.
 */
import { RE2JS } from 're2js';
import { re2PatternField } from '../components/regex/re2-pattern.js';
import { f, type Infer } from '../config/spec.js';
import { parseDuration } from '../config/duration.js';
import { ErrorCode, SvcError, errorMessage } from '../errors.js';
import type { Batch } from '../message/message.js';
import type { Ack } from '../message/transaction.js';
import type { Logger } from '../observability/logger.js';
import type { RuntimeComponent } from './runtime-component.js';
import type { Sink } from './sink.js';

export const dropOnSpec = f.object({
  error: f
    .bool()
    .default(false)
    .describe(
      'Whether messages should be dropped when the child output returns an error of any type. For example, this could be when an `http_client` output gets a 4XX response code. In order to instead drop only on specific error patterns use the `error_patterns` field instead.',
    ),
  error_patterns: f
    .array(re2PatternField())
    .optional()
    .describe(
      'A list of regular expressions (re2) where if the child output returns an error that matches any part of any of these patterns the message will be dropped.',
    ),
  back_pressure: f
    .duration()
    .optional()
    .describe(
      'An optional duration string that determines the maximum length of time to wait for a given message to be accepted by the child output before the message should be dropped instead. The most common reason for an output to block is when waiting for a lost connection to be re-established. Once a message has been dropped due to back pressure all subsequent messages are dropped immediately until the output is ready to process them again. Note that if `error` is set to `false` and this field is specified then messages dropped due to back pressure will return an error response (are nacked or reattempted).',
    ),
  output: f.component('output').describe('A child output to wrap with this drop mechanism.'),
});
type Conf = Infer<typeof dropOnSpec>;

export class DropOnOutput implements Sink {
  /** Set when a write outlived `back_pressure`: later ones are dropped at once until it ends. */
  private stuck: Promise<void> | undefined;

  constructor(
    private readonly output: Sink,
    private readonly onError: boolean,
    private readonly patterns: RE2JS[],
    private readonly backPressureMs: number,
    private readonly log: Logger,
  ) {}

  send(batch: Batch, done: Ack): Promise<void> | void {
    const settle: Ack = (err) => done(err === undefined ? undefined : this.judge(err));
    if (this.backPressureMs <= 0) return this.output.send(batch, settle);
    if (this.stuck) return settle(this.backPressure());
    return this.bounded(batch, settle);
  }

  /** One write, given up on (and the next ones with it) when it takes longer than back_pressure. */
  private bounded(batch: Batch, settle: Ack): Promise<void> {
    const outcome = new Promise<Error | undefined>((resolve) => {
      const r = this.output.send(batch, resolve);
      if (r instanceof Promise) r.catch(resolve);
    });
    const ended = outcome.then(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.backPressureMs)));
    // One write at a time, as Benthos: the next batch comes once this one settled or was given up on.
    return Promise.race([outcome, late]).then((r) => {
      clearTimeout(timer);
      if (r !== 'late') return settle(r);
      this.log.warn('Message dropped due to back pressure.');
      const stuck = ended.then(() => {
        if (this.stuck === stuck) this.stuck = undefined;
      });
      this.stuck = stuck;
      settle(this.backPressure());
    });
  }

  /** The outcome of a write given up on for back pressure: dropped (acked) with `error`, else a nack. */
  private backPressure(): Error | undefined {
    return this.onError ? undefined : new SvcError(ErrorCode.Write, `experienced back pressure beyond: ${formatMs(this.backPressureMs)}`);
  }

  /** undefined (dropped, acked) when the error is one to drop on, else the error. */
  private judge(err: Error): Error | undefined {
    if (this.onError) {
      this.log.warn(`Message dropped due to: ${errorMessage(err)}`);
      return undefined;
    }
    const text = errorMessage(err);
    for (let i = 0; i < this.patterns.length; i++) {
      if (this.patterns[i]!.matcher(text).find()) {
        this.log.warn(`Message dropped due to error matching pattern ${i}: ${text}`);
        return undefined;
      }
    }
    return err;
  }

  close(): Promise<void> {
    return this.output.close();
  }
}

/** A duration as Go prints one (`10s`, `1.5s`, `500ms`, `1m30s`), for Benthos' error text. */
function formatMs(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const m = Math.floor(ms / 60_000);
  const s = (ms % 60_000) / 1000;
  return m > 0 ? `${m}m${s}s` : `${s}s`;
}

export const dropOnOutput: RuntimeComponent<Conf, Sink> = {
  summary:
    'Attempts to write messages to a child output and if the write fails for one of a list of configurable reasons the message is dropped (acked) instead of being reattempted (or nacked).',
  description:
    "Regular outputs apply back pressure when downstream services aren't accessible, and every message that fails to be delivered is retried (or nacked). For some outputs that is not wanted: this output relaxes it. A dropped message is acknowledged although no output delivered it.",
  config: dropOnSpec,
  examples: [
    `output:
  broker:
    pattern: fan_out
    outputs:
      - file:
          path: ./all.jsonl
      - drop_on:
          error: true
          output:
            http_client:
              url: http://localhost:4195/foo/messages
              verb: POST
`,
    `output:
  drop_on:
    back_pressure: 10s
    output:
      http_client:
        url: http://localhost:4195/foo/messages
`,
  ],
  build: async (conf, ctx, parts) => {
    const patterns = conf.error_patterns ?? [];
    if (patterns.length > 0 && conf.error)
      throw new SvcError(ErrorCode.ConfigLint, "field 'error_patterns' is ineffective when 'error' is set to `true`: remove one of them");
    return new DropOnOutput(
      await parts.sink(conf.output),
      conf.error,
      patterns.map((p) => RE2JS.compile(p)),
      conf.back_pressure ? parseDuration(conf.back_pressure) : 0,
      ctx.logger,
    );
  },
};
