/**
 * The `redis_pubsub` input (Redpanda Connect's): SUBSCRIBE (or PSUBSCRIBE with `use_patterns`) to
 * channels. Redis pub/sub keeps nothing: a message published while no subscriber listens, or while
 * the connection is down, is never seen, so this input is at most once by nature. The client
 * subscribes again after a reconnect. Messages that arrive while the pipeline is busy wait here,
 * at most 10,000 of them; beyond that they are dropped, with a warning (Redis itself cuts off a
 * subscriber that falls further behind).
 */
import { Message, NotConnectedError, f, registerInput, type Infer, type Transaction } from '@svc/engine';
import { PullInput, ThrottledLog } from '@svc/engine/kit';
import { RedisConnection, redisClientFields } from './client.js';

const spec = f.object({
  ...redisClientFields,
  channels: f
    .array(f.string())
    .validate((c) => (c.length > 0 ? undefined : 'channels must name at least one channel'))
    .describe('A list of channels to consume from.'),
  use_patterns: f.bool().default(false).describe('Whether to use the PSUBSCRIBE command, allowing for glob-style patterns within target channel names.'),
  auto_replay_nacks: f
    .bool()
    .default(true)
    .describe(
      'Whether messages that are rejected (nacked) at the output level should be automatically replayed indefinitely, eventually resulting in back pressure if the cause of the rejections is persistent. If set to `false` these messages will instead be deleted.',
    ),
});
type Conf = Infer<typeof spec>;

/** The most messages waiting for the pipeline. */
const MAX_WAITING = 10_000;
/** The most messages in one batch. */
const MAX_BATCH = 100;

class RedisPubSubInput extends PullInput<Message> {
  private dropped = 0;
  private subscribed = false;
  private readonly done = new Set<string>();

  constructor(
    private readonly conf: Conf,
    private readonly conn: RedisConnection,
    private readonly overflow: ThrottledLog,
  ) {
    super(MAX_BATCH);
  }

  /** Subscribes once; the client subscribes again by itself after a reconnect. */
  async connect(): Promise<void> {
    if (this.subscribed || this.closed) return;
    if (!this.conn.ready) throw new NotConnectedError(`redis_pubsub: not connected to Redis at ${this.conn.where}`);
    for (const c of this.conf.channels) {
      // A subscription made by an earlier attempt that failed part way is not made twice.
      if (this.done.has(c)) continue;
      if (this.conf.use_patterns) await this.conn.subscribe(c, (message, channel) => this.arrived(message, channel, c), true);
      else await this.conn.subscribe(c, (message, channel) => this.arrived(message, channel, ''), false);
      this.done.add(c);
    }
    this.subscribed = true;
  }

  private arrived(message: Buffer, channel: Buffer, pattern: string): void {
    if (this.closed) return;
    if (this.queued >= MAX_WAITING) {
      this.dropped++;
      this.overflow.warn(`redis_pubsub: ${this.dropped} message(s) dropped so far: the pipeline is behind by ${MAX_WAITING} messages`);
      return;
    }
    this.offer(new Message(message, { redis_pubsub_channel: channel.toString(), redis_pubsub_pattern: pattern }));
  }

  /** Nothing to acknowledge: Redis pub/sub keeps no message. */
  protected transaction(batch: Message[]): Transaction {
    return { batch, ack: () => undefined };
  }

  protected async shutDown(): Promise<void> {
    await this.conn.close();
  }
}

registerInput('redis_pubsub', {
  summary: 'Consume from a Redis publish/subscribe channel using either the SUBSCRIBE or PSUBSCRIBE commands.',
  description: [
    'In order to subscribe to channels using the `PSUBSCRIBE` command set the field `use_patterns` to `true`, then you',
    'can include glob-style patterns in your channel names. For example:',
    '',
    '- `h?llo` subscribes to hello, hallo and hxllo',
    '- `h*llo` subscribes to hllo and heeeello',
    '- `h[ae]llo` subscribes to hello and hallo, but not hillo',
    '',
    'Use `\\` to escape special characters if you want to match them verbatim.',
    '',
    'This input adds the following metadata fields to each message: `redis_pubsub_channel`, `redis_pubsub_pattern`',
    '(empty without `use_patterns`).',
    '',
    'Redis pub/sub delivers a message only to subscribers connected when it is published: messages published while',
    'the connection is down are not received. Messages waiting for the pipeline are read as one batch (up to 100).',
  ].join('\n'),
  config: spec,
  examples: [
    `input:
  redis_pubsub:
    url: redis://localhost:6379
    channels: [ "alerts.*" ]
    use_patterns: true`,
  ],
  factory: async (conf, ctx) => new RedisPubSubInput(conf, await RedisConnection.open(conf, 'redis_pubsub input', ctx.logger), new ThrottledLog(ctx.logger)),
});
