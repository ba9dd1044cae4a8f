/**
 * The `generate` input: makes messages from a mapping, at an interval or as fast as possible.
 *
 * Until the expression language lands the mapping is a literal (`root = <JSON value>`): its
 * bytes are computed once and shared by every message (contents are immutable), so a batch is
 * a loop of `new Message(buf)`; with no interval, `read()` returns its transaction synchronously.
 */
import {
  parseJson,
  stringifyJson,
  END_OF_INPUT,
  Message,
  f,
  compileMapping,
  errorMessage,
  parseDuration,
  registerInput,
  type Mapping,
  type Ack,
  type ComponentContext,
  type EndOfInput,
  type Infer,
  type Input,
  type Transaction,
} from '@svc/engine';

/**
 * The bytes of a literal mapping `root = <JSON value>` (a JSON string gives its raw text, any
 * other value its compact JSON), or undefined when the mapping is anything else. A literal is
 * computed once and shared by every message, so generating costs one object per message.
 */
export function literalMapping(mapping: string): Buffer | undefined {
  const m = /^root\s*=\s*([\s\S]*?)\s*$/.exec(mapping.trim());
  if (!m) return undefined;
  try {
    const value: unknown = JSON.parse(m[1]!);
    const json = typeof value === 'string' ? value : JSON.stringify(value);
    // A number a double would change (an int64 id) is left to the mapping, exact as in Bloblang.
    if (typeof value !== 'string' && stringifyJson(parseJson(m[1]!)) !== json) return undefined;
    return Buffer.from(json);
  } catch {
    return undefined;
  }
}

export const generateSpec = f.object({
  mapping: f.mapping().describe('The mapping that builds each message (`root = ...`, `meta key = ...`), evaluated per message.'),
  interval: f.duration().default('1s').describe('The time between batches. The first batch is generated at once. Empty or `0s`: as fast as possible.'),
  count: f
    .int()
    .default(0)
    .validate((v) => (v >= 0 ? undefined : 'count must be 0 (unlimited) or more'))
    .describe('How many messages to generate before the input ends; 0 means no limit. The last batch may be smaller.'),
  batch_size: f
    .int()
    .default(1)
    .validate((v) => (v >= 1 ? undefined : 'batch_size must be at least 1'))
    .describe('The number of messages in each batch.'),
  auto_replay_nacks: f.bool().default(true).describe('Whether a rejected batch is generated again (true) or dropped (false).'),
});
export type GenerateConfig = Infer<typeof generateSpec>;

/** Acks of generated messages: nothing to tell anyone (a nack is replayed by the runtime or dropped). */
const NOOP_ACK: Ack = () => {};

export class GenerateInput implements Input {
  private readonly content: Buffer | undefined;
  private readonly mapping: Mapping | undefined;
  private readonly log: ComponentContext['logger'] | undefined;
  private readonly intervalMs: number;
  private readonly batchSize: number;
  /** Messages still to generate; Infinity without a count. */
  private remaining: number;
  private nextAt = 0;
  private first = true;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private waiting: ((r: Transaction | EndOfInput) => void) | undefined;

  constructor(conf: GenerateConfig, _ctx?: ComponentContext) {
    this.content = literalMapping(conf.mapping);
    this.mapping = this.content ? undefined : compileMapping(conf.mapping);
    this.log = _ctx?.logger;
    this.intervalMs = parseDuration(conf.interval);
    this.batchSize = Math.max(1, conf.batch_size);
    this.remaining = conf.count > 0 ? conf.count : Infinity;
  }

  read(): Promise<Transaction | EndOfInput> | Transaction | EndOfInput {
    if (this.closed || this.remaining <= 0) return END_OF_INPUT;
    if (this.intervalMs <= 0 || this.first) {
      this.first = false;
      this.nextAt = Date.now() + this.intervalMs;
      return this.batch();
    }
    const wait = this.nextAt - Date.now();
    if (wait <= 0) {
      this.nextAt = Math.max(this.nextAt + this.intervalMs, Date.now());
      return this.batch();
    }
    return new Promise<Transaction | EndOfInput>((resolve) => {
      this.waiting = resolve;
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.waiting = undefined;
        if (this.closed) return resolve(END_OF_INPUT);
        this.nextAt = Math.max(this.nextAt + this.intervalMs, Date.now());
        resolve(this.batch());
      }, wait);
    });
  }

  private batch(): Transaction {
    const n = this.remaining < this.batchSize ? this.remaining : this.batchSize;
    this.remaining -= n;
    const batch = new Array<Message>(n);
    const buf = this.content;
    if (buf !== undefined) {
      for (let i = 0; i < n; i++) batch[i] = new Message(buf);
      return { batch, ack: NOOP_ACK };
    }
    for (let i = 0; i < n; i++) batch[i] = new Message();
    let kept = 0;
    for (let i = 0; i < n; i++) {
      const m = batch[i]!;
      try {
        if (this.mapping!.apply(m, { batch, index: i })) batch[kept++] = m;
      } catch (err) {
        // As Benthos: a mapping that fails produces no message (and says why).
        this.log?.error(`Failed to generate a message: ${errorMessage(err)}`);
      }
    }
    batch.length = kept;
    return { batch, ack: NOOP_ACK };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    const w = this.waiting;
    this.waiting = undefined;
    w?.(END_OF_INPUT);
  }
}

registerInput('generate', {
  summary: 'Generates messages from a mapping, at an interval or as fast as possible.',
  description: [
    'Generates batches of `batch_size` messages. The first batch comes at once, then one per `interval`',
    '(empty or `0s`: as fast as the pipeline takes them). With `count` above 0 the input ends after that',
    'many messages (the last batch may be smaller); `close` ends it at once.',
    '',
    'The mapping runs once per message on an empty document: `root` becomes the content (a string',
    'raw, anything else as JSON) and `meta` assignments its metadata; a mapping that deletes root or',
    'fails makes no message. A literal mapping (`root = <JSON value>`) is computed once and shared.',
    '',
    'A rejected batch is generated again with `auto_replay_nacks: true` (the default), else dropped.',
  ].join('\n'),
  config: generateSpec,
  examples: [
    `input:
  generate:
    mapping: 'root = {"hello":"world"}'
    interval: 1s
    count: 10`,
    `input:
  generate:
    mapping: |
      root.id = uuid_v4()
      root.at = now()
      meta source = "generator"
    interval: 500ms`,
    `# As fast as possible, in batches of 100 (a benchmark source).
input:
  generate:
    mapping: root = "x"
    interval: ""
    batch_size: 100`,
  ],
  factory: (conf, ctx) => new GenerateInput(conf, ctx),
});
