import { f, type Infer } from '../config/spec.js';
import { END_OF_INPUT, type Transaction } from '../message/transaction.js';
import { batchPolicySpec } from './batch-policy.js';
import { withCopies } from './copies.js';
import { Channel } from './channel.js';
import { InputFailedError, errorMessage } from '../errors.js';
import type { RuntimeComponent } from './runtime-component.js';
import { endingWith, type Flush, type Source, type SourceRead } from './source.js';

export const brokerInputSpec = f.object({
  copies: f
    .int()
    .default(1)
    .describe('How many times the list of inputs is created.')
    .validate((n) => (n < 1 ? 'copies must be at least 1' : undefined)),
  inputs: f.array(f.component('input')).describe('The inputs to read from, in parallel, merged into one feed.'),
  batching: batchPolicySpec,
});
type Conf = Infer<typeof brokerInputSpec>;

/**
 * Reads every child in parallel and merges their transactions into one feed. The children are
 * runtime sources, so a child's flush hint (its replays are waiting for acks) reaches the
 * broker's own batching too. A child that fails (InputFailedError) stops; the others go on and
 * the feed ends with its error.
 */
class BrokerInput implements Source {
  private readonly feed = new Channel<Transaction | Flush>(1);
  private started = false;
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly children: Source[],
    private readonly onError: (msg: string) => void,
  ) {}

  /** Each child connects (with its own back-off) when it first reads: one down holds up no other. */
  connect(): Promise<void> {
    return Promise.resolve();
  }

  read(): Promise<SourceRead> | SourceRead {
    if (!this.started) {
      this.started = true;
      let running = this.children.length;
      for (const child of this.children) {
        void (async () => {
          try {
            for (;;) {
              const tx = await child.read();
              if (tx === END_OF_INPUT) break;
              await this.feed.push(tx);
            }
          } catch (err) {
            if (err instanceof InputFailedError) this.failure ??= { error: err };
            else this.onError(`broker child input stopped: ${errorMessage(err)}`);
          } finally {
            if (--running === 0) this.feed.close();
          }
        })();
      }
      if (running === 0) this.feed.close();
    }
    return endingWith(this.feed.pop(), () => this.failure);
  }

  async close(): Promise<void> {
    await Promise.all(this.children.map((c) => c.close()));
  }
}

export const brokerInput: RuntimeComponent<Conf, Source> = {
  summary: 'Reads from several inputs in parallel and merges them into one feed.',
  description:
    'Each child input keeps its own processors and batching; the broker-level `batching` and `processors` apply after them. ' +
    '`copies` creates the whole list of inputs that many times.',
  config: brokerInputSpec,
  examples: ['input:\n  broker:\n    inputs:\n      - stdin: {}\n      - file:\n          paths: [./data.txt]\n'],
  build: async (conf, ctx, parts) => {
    const configs = withCopies(conf.inputs, conf.copies);
    const children = await Promise.all(configs.map((c) => parts.source(c)));
    return new BrokerInput(children, (m) => ctx.logger.error(m));
  },
};
