/**
 * The `fallback` output (Benthos'): a batch goes to the first output; what it fails to deliver
 * goes to the next, with the failure in `fallback_error`, and so on. The transaction is acked
 * once some tier confirmed every message, and nacked with the last tier's error otherwise: a
 * message is never acked before an output confirmed it.
 */
import { f, type Infer } from '../config/spec.js';
import { BatchError, ErrorCode, SvcError } from '../errors.js';
import type { Batch } from '../message/message.js';
import type { Ack } from '../message/transaction.js';
import type { RuntimeComponent } from './runtime-component.js';
import type { Sink } from './sink.js';

export const fallbackOutputSpec = f.array(f.component('output')).default([]).describe('The outputs, tried in order.');
type Conf = Infer<typeof fallbackOutputSpec>;

/** The metadata key the next tier reads the previous tier's error from. */
export const FALLBACK_ERROR = 'fallback_error';

export class FallbackOutput implements Sink {
  constructor(private readonly tiers: Sink[]) {}

  send(batch: Batch, done: Ack): Promise<void> | void {
    // Original indexes of what each tier is given, to name the failed ones on the last nack.
    const all = batch.map((_, i) => i);
    return this.tier(0, batch, all, batch, done);
  }

  private tier(t: number, part: Batch, indexes: number[], batch: Batch, done: Ack): Promise<void> | void {
    const tier = this.tiers[t]!;
    return tier.send(
      part.map((m) => m.copy()),
      (err) => {
        if (!err) return done();
        const failed = err instanceof BatchError && err.failedCount > 0 && err.size === part.length ? err.indexes() : part.map((_, i) => i);
        if (t === this.tiers.length - 1)
          return done(
            failed.length === batch.length
              ? err
              : namedFailure(
                  batch.length,
                  err,
                  failed.map((i) => indexes[i]!),
                ),
          );
        const next = failed.map((i) => {
          const m = part[i]!.copy();
          const e = err instanceof BatchError ? (err.errorAt(i) ?? err) : err;
          m.setMeta(FALLBACK_ERROR, e.message);
          return m;
        });
        const r = this.tier(
          t + 1,
          next,
          failed.map((i) => indexes[i]!),
          batch,
          done,
        );
        if (r instanceof Promise) r.catch(done);
      },
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.tiers.map((o) => o.close()));
  }
}

/** The last tier's error naming the original messages it did not deliver. */
function namedFailure(size: number, err: Error, failed: number[]): BatchError {
  const b = new BatchError(size, err);
  for (const i of failed) b.failed(i, err);
  return b;
}

export const fallbackOutput: RuntimeComponent<Conf, Sink> = {
  summary:
    'Attempts to send each message to a child output, starting from the first output on the list. If an output attempt fails then the next output in the list is attempted, and so on.',
  description: [
    'Useful to reroute messages when an output target breaks (a dead letter output as the last tier).',
    '',
    'When a given output fails the message routed to the following output has a metadata value named',
    '`fallback_error` with the error text of that failure. When the failed output names the messages of a',
    'batch that failed, only those go to the next tier; otherwise the whole batch does. The transaction is',
    'acknowledged once one tier delivered every message, and rejected (nacked) when the last tier fails too.',
  ].join('\n'),
  config: fallbackOutputSpec,
  examples: [
    `output:
  fallback:
    - http_client:
        url: http://localhost:4195/post/might/become/unreachable
    - file:
        path: ./failed.jsonl
      processors:
        - mapping: 'root = "failed to send: " + content().string() + " (" + @fallback_error + ")"'
`,
  ],
  build: async (conf, _ctx, parts) => {
    if (conf.length === 0)
      throw new SvcError(ErrorCode.ConfigLint, 'attempting to create broker output type with no outputs: list the outputs to try, in order');
    const tiers: Sink[] = [];
    for (const c of conf) tiers.push(await parts.sink(c));
    return new FallbackOutput(tiers);
  },
};
