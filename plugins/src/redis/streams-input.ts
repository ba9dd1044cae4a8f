/**
 * The `redis_streams` input (Redpanda Connect's): reads streams as a member (`client_id`) of a
 * consumer group with XREADGROUP.
 *
 * An entry read is in the group's pending list under this consumer until it is acknowledged, and
 * it is acknowledged (XACK) only after the output delivered it: the acks are sent every
 * `commit_period` and when the input closes. A process that dies leaves its unacknowledged entries
 * pending; the next run with the same `client_id` reads its own pending entries first (from id 0,
 * as Benthos does) before new ones (`>`), so nothing read is lost; what was delivered and not yet
 * acked when it died is delivered again. A nacked batch is served again before new entries.
 *
 * The entries of one XREADGROUP reply (up to `limit` per stream) form one batch. Acks go on a
 * connection of their own, so a blocking read never holds them back.
 */
import {
  Message,
  NotConnectedError,
  errorMessage,
  f,
  parseDuration,
  registerInput,
  type ComponentContext,
  type Infer,
  type Logger,
  type Transaction,
} from '@svc/engine';
import { PullInput } from '@svc/engine/kit';
import { RedisConnection, redisClientFields } from './client.js';

const spec = f.object({
  ...redisClientFields,
  body_key: f.string().default('body').describe('The field key to extract the raw message from. All other keys will be stored in the message as metadata.'),
  streams: f
    .array(f.string())
    .validate((s) => (s.length > 0 ? undefined : 'streams must name at least one stream'))
    .describe('A list of streams to consume from.'),
  auto_replay_nacks: f
    .bool()
    .default(true)
    .describe(
      'Whether messages that are rejected (nacked) at the output level should be automatically replayed indefinitely, eventually resulting in back pressure if the cause of the rejections is persistent. If set to `false` these messages are still served again by this input (their entries stay pending until delivered).',
    ),
  limit: f.int().default(10).describe('The maximum number of messages to consume from a single request.'),
  client_id: f.string().default('').describe('An identifier for the client connection.'),
  consumer_group: f.string().default('').describe('An identifier for the consumer group of the stream.'),
  create_streams: f.bool().default(true).advanced().describe('Create subscribed streams if they do not exist (MKSTREAM option).'),
  start_from_oldest: f
    .bool()
    .default(true)
    .advanced()
    .describe(
      'If an offset is not found for a stream, determines whether to consume from the oldest available offset, otherwise messages are consumed from the latest offset.',
    ),
  commit_period: f
    .duration()
    .default('1s')
    .advanced()
    .describe('The period of time between each commit of the current offset. Offsets are always committed during shutdown.'),
  timeout: f.duration().default('1s').advanced().describe('The length of time to poll for new messages before reattempting.'),
});
type Conf = Infer<typeof spec>;

/** How long `close()` waits for the batches in flight to be acknowledged before it sends the last acks. */
const CLOSE_DRAIN_MS = 10_000;

/** One entry as XREADGROUP gives it: its id and its field/value list (null when it was deleted). */
type RawEntry = [Buffer, Buffer[] | null];
/** The reply (RESP3): entries by stream name; null when the wait timed out. */
type RawReply = Map<Buffer, RawEntry[]> | null;

/** A batch read: its messages and, per stream, the entry ids to acknowledge. */
interface Pending {
  batch: Message[];
  ids: Map<string, string[]>;
}

/** Its queue holds nacked batches, served again before new entries. */
class RedisStreamsInput extends PullInput<Pending> {
  private readonly log: Logger;
  private readonly blockMs: string;
  private readonly commitMs: number;
  /** Per stream, the id to read this consumer's pending entries from; absent once they are all read. */
  private readonly backlogs = new Map<string, string>();
  /** Acknowledged ids not yet sent, per stream. */
  private acks = new Map<string, string[]>();
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private grouped = false;
  private skipped = false;

  constructor(
    private readonly conf: Conf,
    private readonly reader: RedisConnection,
    private readonly acker: RedisConnection,
    ctx: ComponentContext,
  ) {
    super();
    this.log = ctx.logger;
    this.blockMs = String(Math.max(1, parseDuration(conf.timeout)));
    this.commitMs = Math.max(1, parseDuration(conf.commit_period));
    for (const s of conf.streams) this.backlogs.set(s, '0');
    this.timer = setInterval(() => void this.flush(), this.commitMs);
    this.timer.unref();
  }

  async connect(): Promise<void> {
    if (this.closed) return;
    if (!this.reader.ready) throw new NotConnectedError(`redis_streams: not connected to Redis at ${this.reader.where}`);
    if (this.grouped) return;
    const from = this.conf.start_from_oldest ? '0' : '$';
    for (const s of this.conf.streams) {
      const cmd = ['XGROUP', 'CREATE', s, this.conf.consumer_group, from];
      if (this.conf.create_streams) cmd.push('MKSTREAM');
      try {
        await this.reader.send(cmd);
      } catch (err) {
        if (/BUSYGROUP/.test(errorMessage(err))) continue;
        throw new NotConnectedError(`redis_streams: creating group ${this.conf.consumer_group} for stream ${s}: ${this.reader.scrub(err)}`, {
          cause: err,
        });
      }
    }
    this.grouped = true;
    this.log.info(`Receiving messages from Redis streams: ${this.conf.streams.join(', ')}`);
  }

  /** Reads the next entries (read() found no replay waiting). */
  protected override async fetch(): Promise<void> {
    if (!this.reader.ready) throw new NotConnectedError(`redis_streams: lost the connection to Redis at ${this.reader.where}`);
    let reply: RawReply;
    try {
      reply = await this.reader.send<RawReply>(this.readCommand());
    } catch (err) {
      if (this.closed) return;
      // The group is gone (a Redis restarted without persistence, a stream deleted): connect() makes it again.
      if (/NOGROUP/.test(errorMessage(err))) this.grouped = false;
      throw new NotConnectedError(`redis_streams: reading ${this.conf.streams.join(', ')}: ${this.reader.scrub(err)}`, { cause: err });
    }
    // Read after the stop began: the entries stay pending under this consumer and are read first next time.
    if (this.closed) return;
    const p = this.pendingOf(reply);
    if (p) this.offer(p);
  }

  private readCommand(): string[] {
    const cmd = ['XREADGROUP', 'GROUP', this.conf.consumer_group, this.conf.client_id, 'COUNT', String(this.conf.limit)];
    // Pending entries (a backlog id) are answered at once; only new ones (`>`) are waited for.
    if (this.backlogs.size === 0) cmd.push('BLOCK', this.blockMs);
    cmd.push('STREAMS', ...this.conf.streams);
    for (const s of this.conf.streams) cmd.push(this.backlogs.get(s) ?? '>');
    return cmd;
  }

  private pendingOf(reply: RawReply): Pending | undefined {
    const batch: Message[] = [];
    const ids = new Map<string, string[]>();
    for (const [rawStream, entries] of reply ?? new Map<Buffer, RawEntry[]>()) {
      const stream = rawStream.toString();
      if (this.backlogs.has(stream)) {
        if (entries.length > 0) this.backlogs.set(stream, entries[entries.length - 1]![0].toString());
        else this.backlogs.delete(stream);
      }
      for (const [rawId, fields] of entries) {
        const id = rawId.toString();
        const m = this.messageOf(id, fields);
        if (!m) continue;
        batch.push(m);
        let list = ids.get(stream);
        if (!list) ids.set(stream, (list = []));
        list.push(id);
      }
    }
    return batch.length > 0 ? { batch, ids } : undefined;
  }

  /** The message of an entry: its `body_key` value as content, its other fields and `redis_stream` (the id) as metadata. */
  private messageOf(id: string, fields: Buffer[] | null): Message | undefined {
    let body: Buffer | undefined;
    const meta: Record<string, string> = { redis_stream: id };
    for (let i = 0; fields && i + 1 < fields.length; i += 2) {
      const k = fields[i]!.toString();
      if (k === this.conf.body_key) body = fields[i + 1]!;
      else meta[k] = fields[i + 1]!.toString();
    }
    if (body === undefined) {
      // As Benthos: an entry without the body key (or deleted since it was read) is skipped.
      if (!this.skipped) this.log.warn(`redis_streams: skipping entry ${id}: it has no "${this.conf.body_key}" field (body_key)`);
      this.skipped = true;
      return undefined;
    }
    return new Message(body, meta);
  }

  protected transaction(items: Pending[]): Transaction {
    const p = items[0]!;
    // Processors change messages in place: without the runtime's replays, keep them as read.
    const asRead = this.conf.auto_replay_nacks ? p.batch : p.batch.map((m) => m.copy());
    return this.track(p.batch, (err) => {
      if (err) {
        // Served again as it was read (with auto_replay_nacks the runtime replays it before this).
        this.offer({ batch: asRead, ids: p.ids });
        return;
      }
      for (const [s, list] of p.ids) {
        const all = this.acks.get(s);
        if (all) all.push(...list);
        else this.acks.set(s, list.slice());
      }
    });
  }

  /** Sends the acknowledgements gathered so far (one XACK per stream), after any flush under way. */
  private flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.acks.size === 0) return;
      const acks = this.acks;
      this.acks = new Map();
      for (const [s, ids] of acks) {
        try {
          await this.acker.send(['XACK', s, this.conf.consumer_group, ...ids]);
        } catch (err) {
          // Kept for the next flush: unacknowledged entries stay pending, never lost.
          const again = this.acks.get(s);
          this.acks.set(s, again ? [...ids, ...again] : ids);
          this.log.error(`redis_streams: failed to ack stream ${s}: ${this.acker.scrub(err)}`);
        }
      }
    });
    return this.flushing;
  }

  protected async shutDown(): Promise<void> {
    await this.acksSettled(CLOSE_DRAIN_MS);
    clearInterval(this.timer);
    await this.flush();
    await Promise.all([this.reader.close(), this.acker.close()]);
  }
}

registerInput('redis_streams', {
  summary: 'Pulls messages from Redis (v5.0+) streams with the XREADGROUP command. The `client_id` should be unique for each consumer of a group.',
  description: [
    'Redis stream entries are key/value pairs, as such it is necessary to specify the key that contains the body of the',
    'message. All other keys/value pairs are saved as metadata fields, and `redis_stream` holds the entry id.',
    '',
    'The consumer group is created when missing (from the oldest entry with `start_from_oldest`, else from new ones;',
    'with the stream itself when `create_streams`). Entries are acknowledged (`XACK`) only once the output delivered',
    'them, every `commit_period` and at shutdown. After a crash, the same `client_id` first reads its own pending',
    'entries again, so an entry is delivered at least once; keep `client_id` stable across restarts. The entries of',
    'one read (up to `limit` per stream) form one batch.',
  ].join('\n'),
  config: spec,
  examples: [
    `input:
  redis_streams:
    url: redis://localhost:6379
    streams: [ orders ]
    consumer_group: billing
    client_id: billing-1
    limit: 100`,
  ],
  factory: async (conf, ctx) => {
    const [reader, acker] = await Promise.all([
      RedisConnection.open(conf, 'redis_streams input', ctx.logger),
      RedisConnection.open(conf, 'redis_streams input (acks)', ctx.logger),
    ]);
    return new RedisStreamsInput(conf, reader, acker, ctx);
  },
});
