/**
 * The `read_until` input (Benthos'): reads a child input until the first message of a batch
 * passes `check` (that batch, its first message marked `benthos_read_until: final`, is the last
 * one given, and the input ends once it is acked; a nack reads on) or until nothing came for
 * `idle_timeout`. A transaction of several batches (a read of stdin lines) is checked batch by
 * batch and cut after the one that passed. With `restart_input` a
 * child that ends is built again and read again until the check passes.
 */
import type { ComponentConfig } from '../config/component-config.js';
import { f, type Infer } from '../config/spec.js';
import { parseDuration } from '../config/duration.js';
import { ErrorCode, SvcError, errorMessage } from '../errors.js';
import { compileQuery, type Query } from '../interp/index.js';
import type { Batch, Message } from '../message/message.js';
import { END_OF_INPUT, type Transaction } from '../message/transaction.js';
import type { Logger } from '../observability/logger.js';
import { sleep } from './backoff.js';
import type { RuntimeComponent } from './runtime-component.js';
import { FLUSH, type Source, type SourceRead } from './source.js';

export const readUntilInputSpec = f.object({
  input: f.component('input').describe('The child input to consume from.'),
  check: f
    .query()
    .optional()
    .describe(
      'A Bloblang query that should return a boolean value indicating whether the input should now be closed (e.g. `this.type == "foo"`, `count("messages") >= 100`).',
    ),
  idle_timeout: f.duration().optional().describe('The maximum amount of time without receiving new messages after which the input is closed (e.g. `5s`).'),
  restart_input: f.bool().default(false).describe('Whether the input should be reopened if it closes itself before the condition has resolved to true.'),
});
type Conf = Infer<typeof readUntilInputSpec>;

const IDLE: unique symbol = Symbol('idle');

export class ReadUntilInput implements Source {
  private ended = false;
  private closed = false;
  /** The final transaction given out: the input ends once it is acked. */
  private final: Promise<Error | undefined> | undefined;
  private restartWait = 1;

  constructor(
    private child: Source | undefined,
    private readonly rebuild: (() => Promise<Source>) | undefined,
    private readonly check: Query | undefined,
    private readonly idleMs: number,
    private readonly log: Logger,
  ) {}

  connect(): Promise<void> {
    return Promise.resolve();
  }

  async read(): Promise<SourceRead> {
    for (;;) {
      if (this.final) {
        const err = await this.final;
        this.final = undefined;
        if (!err) this.ended = true;
      }
      if (this.ended || this.closed) return END_OF_INPUT;
      if (!this.child) {
        if (!this.rebuild) return END_OF_INPUT;
        await sleep(this.restartWait);
        this.restartWait = Math.min(100, this.restartWait * 2);
        this.child = await this.rebuild();
      }
      const r = await this.next(this.child);
      if (r === IDLE) {
        this.log.info('Idle timeout reached');
        this.ended = true;
        return END_OF_INPUT;
      }
      if (r === END_OF_INPUT) {
        const c = this.child;
        this.child = undefined;
        await c.close();
        continue;
      }
      if (r === FLUSH) return r;
      this.restartWait = 1;
      const final = this.finalPart(r);
      if (final === undefined) return r;
      final.first.setMeta('benthos_read_until', 'final');
      if (final.end < r.batch.length) {
        // The batches after it are dropped: Benthos would not have read them (the ack covers the read).
        r.batch = r.batch.slice(0, final.end);
        r.parts = r.parts!.slice(0, final.index + 1);
      }
      const ack = r.ack;
      this.final = new Promise((resolve) => {
        r.ack = (err) => {
          ack(err);
          resolve(err);
        };
      });
      return r;
    }
  }

  private next(child: Source): Promise<SourceRead | typeof IDLE> | SourceRead {
    const r = child.read();
    if (this.idleMs <= 0 || !(r instanceof Promise)) return r;
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<typeof IDLE>((resolve) => (timer = setTimeout(() => resolve(IDLE), this.idleMs)));
    // A read that outlives the timeout may still give a transaction: nack it, so its input replays it.
    return Promise.race([r, idle]).then((v) => {
      clearTimeout(timer);
      if (v === IDLE)
        void r.then(
          (late) => isTx(late) && late.ack(new SvcError(ErrorCode.Shutdown, 'read_until: the input closed (idle timeout) before this message was taken')),
        );
      return v;
    });
  }

  /**
   * The first batch of the transaction (each of its parts) whose first message passes the check,
   * as Benthos checks each batch it reads: that message, its part's index and where the part ends.
   */
  private finalPart(tx: Transaction): { first: Message; index: number; end: number } | undefined {
    if (!this.check) return undefined;
    const parts = tx.parts ?? [tx.batch.length];
    let at = 0;
    for (let i = 0; i < parts.length; i++) {
      const end = at + parts[i]!;
      const batch = parts.length === 1 ? tx.batch : tx.batch.slice(at, end);
      if (this.passes(batch)) return { first: batch[0]!, index: i, end };
      at = end;
    }
    return undefined;
  }

  private passes(batch: Batch): boolean {
    try {
      return this.check!.eval(batch[0]!, { batch, index: 0 }) === true;
    } catch (err) {
      this.log.error(`Failed to execute check query: ${errorMessage(err)}`);
      return false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.child?.close();
  }
}

function isTx(r: SourceRead): r is Transaction {
  return typeof r === 'object';
}

export const readUntilInput: RuntimeComponent<Conf, Source> = {
  summary:
    'Reads messages from a child input until a consumed message passes a Bloblang query, at which point the input closes. It is also possible to configure a timeout after which the input is closed if no new messages arrive in that period.',
  description: [
    'Messages are read continuously while the query check returns false; when it returns true the message that',
    'triggered the check is sent out and the input is closed once it is acknowledged. With `idle_timeout` the',
    'input is closed when no new message arrived for that long: use it to empty out an input with no logical end.',
    '',
    'Some inputs close themselves (a `file` at its end): by default this input closes too; with',
    '`restart_input: true` the child is created again every time it closes until the check passes.',
    '',
    'Metadata: `benthos_read_until` with the value `final` is added to the first message of the batch that',
    'triggered the input to stop.',
  ].join('\n'),
  config: readUntilInputSpec,
  examples: [
    `# Only read 100 messages, and then exit.
input:
  read_until:
    check: count("messages") >= 100
    input:
      generate:
        interval: ""
        mapping: 'root = {"id": uuid_v4()}'
`,
    `# Consume everything and exit when the last message was consumed 5s ago.
input:
  read_until:
    idle_timeout: 5s
    input:
      file:
        paths: [ ./events.jsonl ]
`,
  ],
  build: async (conf, ctx, parts) => {
    const check = conf.check ? compileQuery(conf.check) : undefined;
    const idleMs = conf.idle_timeout ? parseDuration(conf.idle_timeout) : 0;
    if (!check && !conf.idle_timeout) throw new SvcError(ErrorCode.ConfigLint, 'it is required to set either check or idle_timeout');
    const child: ComponentConfig = conf.input;
    return new ReadUntilInput(await parts.source(child), conf.restart_input ? () => parts.source(child) : undefined, check, idleMs, ctx.logger);
  },
};
