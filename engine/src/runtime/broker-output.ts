import { f, type Infer } from '../config/spec.js';
import { errorMessage } from '../errors.js';
import { copyBatch, type Batch } from '../message/message.js';
import type { Ack } from '../message/transaction.js';
import type { Logger } from '../observability/logger.js';
import { Backoff } from './backoff.js';
import { batchPolicySpec } from './batch-policy.js';
import { withCopies } from './copies.js';
import type { RuntimeComponent } from './runtime-component.js';
import type { Sink } from './sink.js';

export const PATTERNS = ['fan_out', 'fan_out_fail_fast', 'fan_out_sequential', 'fan_out_sequential_fail_fast', 'round_robin', 'greedy'] as const;
export type Pattern = (typeof PATTERNS)[number];

export const brokerOutputSpec = f.object({
  copies: f
    .int()
    .default(1)
    .describe('How many times the list of outputs is created.')
    .validate((n) => (n < 1 ? 'copies must be at least 1' : undefined)),
  pattern: f.enum(PATTERNS).default('fan_out').describe('How messages are routed to the outputs.'),
  outputs: f.array(f.component('output')).describe('The outputs to route messages to.'),
  batching: batchPolicySpec,
});
type Conf = Infer<typeof brokerOutputSpec>;

/** Sends to one child and resolves with the outcome (after the child accepted and delivered). */
function deliver(child: Sink, batch: Batch): { accepted: Promise<void>; delivered: Promise<Error | undefined> } {
  let settle!: (e: Error | undefined) => void;
  const delivered = new Promise<Error | undefined>((r) => (settle = r));
  const r = child.send(batch, (err) => settle(err));
  return { accepted: r instanceof Promise ? r : Promise.resolve(), delivered };
}

/**
 * The output broker, with Benthos' six patterns:
 * - fan_out: every output gets every message in parallel; a failed output is retried (only
 *   that one) until it succeeds. fan_out_fail_fast: a failure nacks the transaction.
 * - fan_out_sequential(_fail_fast): the same, one output after the other confirms.
 * - round_robin: each message to the next output; on failure the next one is tried.
 * - greedy: each message to the output with the least in flight (the first to claim it).
 */
export class BrokerOutput implements Sink {
  private next = 0;
  private readonly inFlight: number[];
  private readonly closing = new AbortController();

  constructor(
    private readonly children: Sink[],
    private readonly pattern: Pattern,
    private readonly log: Logger,
  ) {
    this.inFlight = children.map(() => 0);
  }

  send(batch: Batch, done: Ack): Promise<void> {
    switch (this.pattern) {
      case 'fan_out':
        return this.fanOut(batch, done, true);
      case 'fan_out_fail_fast':
        return this.fanOut(batch, done, false);
      case 'fan_out_sequential':
        return this.sequential(batch, done, true);
      case 'fan_out_sequential_fail_fast':
        return this.sequential(batch, done, false);
      case 'round_robin':
        return this.oneOf(batch, done, () => this.next++ % this.children.length);
      case 'greedy':
        return this.oneOf(batch, done, () => this.leastBusy());
    }
  }

  /** Delivers to one child, retrying that child with back-off when `retry` (until closed). */
  private async toChild(i: number, batch: Batch, retry: boolean, onAccepted?: () => void): Promise<Error | undefined> {
    const backoff = new Backoff(50, 5_000);
    for (;;) {
      const { accepted, delivered } = deliver(this.children[i]!, copyBatch(batch));
      await accepted;
      onAccepted?.();
      onAccepted = undefined;
      const err = await delivered;
      if (!err || !retry || this.closing.signal.aborted) return err;
      const wait = backoff.next();
      this.log.warn(`Output ${i} failed, retrying it in ${wait}ms: ${errorMessage(err)}`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  private async fanOut(batch: Batch, done: Ack, retry: boolean): Promise<void> {
    let accepted = 0;
    let signalAccepted!: () => void;
    const allAccepted = new Promise<void>((r) => (signalAccepted = r));
    const onAccepted = () => {
      if (++accepted === this.children.length) signalAccepted();
    };
    void Promise.all(this.children.map((_, i) => this.toChild(i, batch, retry, onAccepted))).then((errs) => {
      done(errs.find((e) => e !== undefined));
    });
    await allAccepted;
  }

  private async sequential(batch: Batch, done: Ack, retry: boolean): Promise<void> {
    let signalAccepted!: () => void;
    const firstAccepted = new Promise<void>((r) => (signalAccepted = r));
    void (async () => {
      for (let i = 0; i < this.children.length; i++) {
        const err = await this.toChild(i, batch, retry, i === 0 ? signalAccepted : undefined);
        if (err) return done(err);
      }
      done();
    })();
    await firstAccepted;
  }

  private leastBusy(): number {
    let best = 0;
    for (let i = 1; i < this.inFlight.length; i++) if (this.inFlight[i]! < this.inFlight[best]!) best = i;
    return best;
  }

  private async oneOf(batch: Batch, done: Ack, pick: () => number): Promise<void> {
    let signalAccepted!: () => void;
    const accepted = new Promise<void>((r) => (signalAccepted = r));
    void (async () => {
      const backoff = new Backoff(50, 5_000);
      let i = pick();
      for (;;) {
        this.inFlight[i]!++;
        const err = await this.toChild(i, batch, false, signalAccepted);
        this.inFlight[i]!--;
        if (!err) return done();
        if (this.closing.signal.aborted) return done(err);
        this.log.warn(`Output ${i} failed, trying the next output: ${errorMessage(err)}`);
        i = (i + 1) % this.children.length;
        if (i === 0) await new Promise((r) => setTimeout(r, backoff.next()));
      }
    })();
    await accepted;
  }

  async close(): Promise<void> {
    this.closing.abort();
    await Promise.all(this.children.map((c) => c.close()));
  }
}

export const brokerOutput: RuntimeComponent<Conf, Sink> = {
  summary: 'Routes messages to several outputs by a pattern (fan_out, round_robin, greedy, ...).',
  description:
    'Patterns: `fan_out` (every output, in parallel, failed outputs retried), `fan_out_fail_fast` (not retried), ' +
    '`fan_out_sequential` (in order, each after the previous confirms, retried), `fan_out_sequential_fail_fast`, ' +
    '`round_robin` (one output each, the next on failure) and `greedy` (the output that claims it first). ' +
    'Each child keeps its own processors and batching; the broker-level ones run before it routes.',
  config: brokerOutputSpec,
  examples: ['output:\n  broker:\n    pattern: fan_out\n    outputs:\n      - stdout: {}\n      - file:\n          path: ./out.txt\n'],
  build: async (conf, ctx, parts) => {
    const configs = withCopies(conf.outputs, conf.copies);
    const children = await Promise.all(configs.map((c) => parts.sink(c)));
    return new BrokerOutput(children, conf.pattern, ctx.logger);
  },
};
