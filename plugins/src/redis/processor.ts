/**
 * The `redis` processor (Redpanda Connect's): runs a command per message and replaces the message
 * with the reply as JSON: `command` (interpolated) with the array `args_mapping` gives as its
 * arguments, or one of the deprecated `operator`s on `key`. A failed command is tried again
 * `retries` times, `retry_period` apart, then the message is flagged and passed on.
 *
 * Replies are read as Redpanda Connect's client reads them (RESP3): a bulk or simple string
 * becomes a JSON string, an integer a number with all its digits, a map an object, a set or array
 * an array, nil `null`. The commands of a batch are pipelined on one connection, so they run in
 * the batch's order. One client serves every pipeline thread (`mainThread`).
 */
import {
  ErrorCode,
  JsonNumber,
  SvcError,
  compileInterpolation,
  compileMapping,
  errorMessage,
  f,
  parseDuration,
  registerProcessor,
  type Batch,
  type ExecContext,
  type Infer,
  type Interpolation,
  type Logger,
  type Mapping,
  type Message,
  type Processor,
} from '@svc/engine';
import { sleep } from '@svc/engine/kit';
import { RedisConnection, redisClientFields, type Reply } from './client.js';
import { argText } from './field-text.js';

const spec = f.object({
  ...redisClientFields,
  command: f.string().interpolated().optional().describe('The command to execute.'),
  args_mapping: f
    .mapping()
    .optional()
    .describe(
      'A Bloblang mapping which should evaluate to an array of values matching in size to the number of arguments required for the specified Redis command.',
    ),
  operator: f.enum(['keys', 'scard', 'sadd', 'incrby']).optional().describe('The operator to apply (deprecated: use `command` and `args_mapping`).'),
  key: f.string().interpolated().optional().describe('A key to use for the target operator (deprecated).'),
  retries: f.int().default(3).advanced().describe('The maximum number of retries before abandoning a request.'),
  retry_period: f.duration().default('500ms').advanced().describe('The time to wait before consecutive retry attempts.'),
});
type Conf = Infer<typeof spec>;

/** A reply as a JSON value. */
function replyJson(r: Reply): unknown {
  if (Buffer.isBuffer(r)) return r.toString();
  // Integers come as their text (every digit of a 64-bit one), doubles as numbers.
  if (typeof r === 'string') return /^-?\d+$/.test(r) ? new JsonNumber(r) : r;
  if (Array.isArray(r)) return r.map(replyJson);
  if (r instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const [k, v] of r) o[Buffer.isBuffer(k) ? k.toString() : String(k)] = replyJson(v);
    return o;
  }
  return r;
}

/** What one message asks for: the command and its arguments, and how its reply replaces the message. */
interface Call {
  args: Array<string | Buffer>;
  apply(m: Message, reply: Reply): void;
}

class RedisProcessor implements Processor {
  private readonly command: Interpolation | undefined;
  private readonly argsMapping: Mapping | undefined;
  private readonly key: Interpolation | undefined;
  private readonly periodMs: number;

  constructor(
    private readonly conf: Conf,
    private readonly conn: RedisConnection,
    private readonly log: Logger,
  ) {
    this.command = conf.command === undefined ? undefined : compileInterpolation(conf.command);
    this.argsMapping = conf.args_mapping === undefined ? undefined : compileMapping(conf.args_mapping);
    this.key = conf.key === undefined ? undefined : compileInterpolation(conf.key);
    this.periodMs = parseDuration(conf.retry_period);
  }

  private callFor(batch: Batch, i: number): Call {
    const m = batch[i]!;
    const x: ExecContext = { batch, index: i };
    if (this.conf.operator !== undefined) return this.operatorCall(m, x);
    let root: unknown;
    try {
      root = this.argsMapping ? this.argsMapping.exec(m, x).root : [];
    } catch (err) {
      throw new Error(`args mapping failed: ${errorMessage(err)}`);
    }
    if (!Array.isArray(root)) throw new Error(`mapping returned non-array result: ${root === undefined ? 'nothing' : typeof root}`);
    let command: string;
    try {
      command = this.command!.value(m, x);
    } catch (err) {
      throw new Error(`command interpolation error: ${errorMessage(err)}`);
    }
    return { args: [command, ...root.map(argText)], apply: (msg, reply) => msg.setJson(replyJson(reply)) };
  }

  private operatorCall(m: Message, x: ExecContext): Call {
    let key: string;
    try {
      key = this.key ? this.key.value(m, x) : '';
    } catch (err) {
      throw new Error(`key interpolation error: ${errorMessage(err)}`);
    }
    const count = (msg: Message, reply: Reply) => (msg.content = Buffer.from(String(reply)));
    switch (this.conf.operator) {
      case 'keys':
        return { args: ['KEYS', key], apply: (msg, reply) => msg.setJson(replyJson(reply)) };
      case 'scard':
        return { args: ['SCARD', key], apply: count };
      case 'sadd':
        return { args: ['SADD', key, m.content], apply: count };
      default: {
        const text = m.content.toString();
        if (!/^[+-]?\d+$/.test(text)) throw new Error(`redis operator failed: strconv.Atoi: parsing "${text}": invalid syntax`);
        return { args: ['INCRBY', key, String(BigInt(text))], apply: count };
      }
    }
  }

  /** Runs one command, trying again `retries` times `retry_period` apart. */
  private async run(args: Array<string | Buffer>): Promise<Reply> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.conn.send(args);
      } catch (err) {
        if (attempt >= this.conf.retries) throw err;
        this.log.error(`${String(args[0])} command failed: ${this.conn.scrub(err)}`);
        await sleep(this.periodMs);
      }
    }
  }

  async process(batch: Batch): Promise<Batch[]> {
    await Promise.all(
      batch.map(async (m, i) => {
        let call: Call;
        try {
          call = this.callFor(batch, i);
        } catch (err) {
          return m.setError(errorMessage(err));
        }
        try {
          call.apply(m, await this.run(call.args));
        } catch (err) {
          m.setError(this.conf.operator !== undefined ? `redis operator failed: ${this.conn.scrub(err)}` : this.conn.scrub(err));
        }
      }),
    );
    return [batch];
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}

registerProcessor('redis', {
  summary:
    "Performs actions against Redis that aren't possible using a `cache` processor. Actions are performed for each message and the message contents are replaced with the result. In order to merge the result into the original message compose this processor within a `branch` processor.",
  description: [
    'Give either `command` (interpolated) with `args_mapping`, a mapping that evaluates to the array of arguments, or',
    'the deprecated `operator` (`keys`, `scard`, `sadd`, `incrby`) with `key`.',
    '',
    'The reply replaces the message as JSON: strings as JSON strings, integers as numbers (all 64 bits), maps as',
    'objects, arrays and sets as arrays, nil as `null`. Arguments are sent as text: numbers as written, booleans as',
    '`1`/`0`. A failing command is retried `retries` times, `retry_period` apart, then the message is flagged with the',
    'error and passed on. The commands of a batch are pipelined, in order.',
  ].join('\n'),
  config: spec,
  mainThread: true,
  examples: [
    `# The running total of friends visited per name, merged into each message.
pipeline:
  processors:
    - branch:
        processors:
          - redis:
              url: redis://localhost:6379
              command: incrby
              args_mapping: 'root = [ this.name, this.friends_visited ]'
        result_map: 'root.total = this'`,
  ],
  factory: async (conf, ctx) => {
    if ((conf.operator === undefined) === (conf.command === undefined)) {
      throw new SvcError(ErrorCode.ConfigLint, "redis: one of 'operator' (old style) or 'command' (new style) fields must be specified");
    }
    if (conf.operator !== undefined && conf.args_mapping !== undefined) {
      throw new SvcError(ErrorCode.ConfigLint, 'redis: field args_mapping is invalid with an operator set');
    }
    if (conf.command !== undefined && conf.args_mapping === undefined) {
      throw new SvcError(ErrorCode.ConfigLint, 'redis: command needs args_mapping (the array of its arguments, `root = []` for none)');
    }
    return new RedisProcessor(conf, await RedisConnection.open(conf, 'redis processor', ctx.logger, true), ctx.logger);
  },
});
