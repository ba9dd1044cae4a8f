/**
 * The `redis_list` input (Redpanda Connect's): pops messages from the head (BLPOP) or tail
 * (BRPOP) of a Redis list.
 *
 * A Redis list has no acknowledgement: an element popped is gone from Redis, so what was popped
 * and not yet delivered when the process dies is lost (as in Benthos). Within the process nothing
 * is lost: a nacked batch is replayed (`auto_replay_nacks`), and on a graceful stop the elements
 * popped but not handed out are pushed back where they came from. What waits in the list is taken
 * up to 100 at a time (`LPOP key 100`) as one batch, the next pop sent while the batch is
 * processed; an empty list is waited on with BLPOP.
 */
import { Message, NotConnectedError, f, parseDuration, registerInput, type Infer, type Transaction } from '@svc/engine';
import { PullInput } from '@svc/engine/kit';
import { RedisConnection, redisClientFields } from './client.js';

const spec = f.object({
  ...redisClientFields,
  key: f.string().describe('The key of a list to read from.'),
  auto_replay_nacks: f
    .bool()
    .default(true)
    .describe(
      'Whether messages that are rejected (nacked) at the output level should be automatically replayed indefinitely, eventually resulting in back pressure if the cause of the rejections is persistent. If set to `false` these messages will instead be deleted.',
    ),
  max_in_flight: f
    .int()
    .default(0)
    .advanced()
    .describe(
      'Optionally sets a limit on the number of batches that can be flowing through the stream pending acknowledgment from the input at any given time. Zero (default) or lower implies no limit.',
    ),
  timeout: f.duration().default('5s').advanced().describe('The length of time to poll for new messages before reattempting.'),
  command: f.enum(['blpop', 'brpop']).default('blpop').advanced().describe('The command used to pop elements from the Redis list'),
});
type Conf = Infer<typeof spec>;

/** The most elements popped as one batch. */
const POP_BATCH = 100;
/** The longest one blocking pop waits, so that a stop is never held for the whole `timeout`. */
const MAX_BLOCK_MS = 1_000;

class RedisListInput extends PullInput<Buffer> {
  private readonly blockSeconds: string;
  private readonly head: boolean;
  private popping: Promise<Buffer[]> | undefined;
  /** A pop started ahead of the next read(). */
  private ahead: Promise<Buffer[]> | undefined;
  /** Elements popped after the stop began, on their way back to the list. */
  private returning: Promise<void> | undefined;

  constructor(
    private readonly conf: Conf,
    private readonly conn: RedisConnection,
  ) {
    // The elements of one pop go as one transaction.
    super(Infinity);
    this.blockSeconds = String(Math.max(0.01, Math.min(parseDuration(conf.timeout), MAX_BLOCK_MS) / 1000));
    this.head = conf.command === 'blpop';
  }

  /** Pops the next elements (read() finds the queue empty), unless `max_in_flight` batches are out. */
  protected override async fetch(): Promise<void> {
    if (this.conf.max_in_flight > 0 && this.outstanding >= this.conf.max_in_flight) {
      await this.room();
      return;
    }
    if (!this.ahead && !this.conn.ready) throw new NotConnectedError(`redis_list: not connected to Redis at ${this.conn.where}`);
    const popping = this.ahead ?? this.pop();
    this.ahead = undefined;
    this.popping = popping;
    let items: Buffer[];
    try {
      items = await popping;
    } catch (err) {
      if (this.closed) return;
      throw new NotConnectedError(`redis_list: cannot pop from "${this.conf.key}" at ${this.conn.where}: ${this.conn.scrub(err)}`, { cause: err });
    } finally {
      this.popping = undefined;
    }
    if (items.length === 0) return;
    if (this.closed) {
      this.returning = this.giveBack(items);
      await this.returning;
      return;
    }
    // A full pop says more is waiting: the next one travels while this batch is processed.
    if (items.length === POP_BATCH) {
      this.ahead = this.pop();
      this.ahead.catch(() => undefined);
    }
    this.offer(...items);
  }

  protected transaction(items: Buffer[]): Transaction {
    return this.track(
      items.map((b) => new Message(b)),
      () => undefined,
    );
  }

  /** What waits in the list (up to POP_BATCH), else one element after a blocking wait, else none. */
  private async pop(): Promise<Buffer[]> {
    const some = await this.conn.send<Buffer[] | null>([this.head ? 'LPOP' : 'RPOP', this.conf.key, String(POP_BATCH)]);
    if (some && some.length > 0) return some;
    const one = await this.conn.send<[Buffer, Buffer] | null>([this.head ? 'BLPOP' : 'BRPOP', this.conf.key, this.blockSeconds]);
    return one ? [one[1]] : [];
  }

  /** Puts elements popped after the stop began back where they were, in their order. */
  private async giveBack(items: Buffer[]): Promise<void> {
    const back = items.slice().reverse();
    await this.conn.send([this.head ? 'LPUSH' : 'RPUSH', this.conf.key, ...back]).catch(() => undefined);
  }

  protected async shutDown(): Promise<void> {
    // A pop ahead of the reads, or one read() awaits, may already hold elements: they go back to the list.
    const ahead = this.ahead;
    this.ahead = undefined;
    const early = ahead ? await ahead.catch((): Buffer[] => []) : [];
    if (early.length > 0) await this.giveBack(early);
    await this.popping?.catch(() => undefined);
    await Promise.resolve();
    await this.returning;
    await this.conn.close();
  }
}

registerInput('redis_list', {
  summary: 'Pops messages from the beginning of a Redis list using the BLPop command.',
  description: [
    'Elements waiting in the list are popped up to 100 at a time as one batch; an empty list is waited on with',
    '`BLPOP` (or `BRPOP` with `command: brpop`) for up to `timeout` per attempt.',
    '',
    'Redis lists have no acknowledgement: an element is removed when it is popped, so elements popped and not yet',
    'delivered are lost if the process crashes. A rejected batch is replayed (`auto_replay_nacks`), and elements',
    'popped while the stream stops are pushed back to the list.',
  ].join('\n'),
  config: spec,
  examples: [
    `input:
  redis_list:
    url: redis://localhost:6379
    key: jobs
    timeout: 5s`,
  ],
  factory: async (conf, ctx) => new RedisListInput(conf, await RedisConnection.open(conf, 'redis_list input', ctx.logger)),
});
