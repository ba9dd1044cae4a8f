/**
 * The `amqp_0_9` input: consumes a queue of an AMQP 0.9.1 broker (RabbitMQ).
 *
 * Deliveries the broker pushed (at most `prefetch_count` unacknowledged at once) are handed out
 * together: every delivery buffered when `read()` is called becomes one message of one
 * transaction. An ack acks each delivery on the broker; a nack requeues them (or drops them
 * when the error matches `nack_reject_patterns`), so nothing is lost: the broker owns every
 * message until the output is done with it.
 *
 * Each connection is a session. When it dies, reads throw NotConnectedError and the runtime
 * reconnects with back-off; the broker redelivers whatever the dead channel held unacked, so an
 * ack that arrives afterwards for one of its deliveries is a no-op (a delivery tag means nothing
 * on another channel: acking it there would close that channel).
 */
import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import { RE2JS } from 're2js';
import {
  END_OF_INPUT,
  Message,
  NotConnectedError,
  errorMessage,
  f,
  registerInput,
  type Ack,
  type ComponentContext,
  type EndOfInput,
  type Infer,
  type Input,
  type Logger,
  type Transaction,
} from '@svc/engine';
import { re2PatternField } from '@svc/engine';
import { trackAck } from '@svc/engine/kit';
import { Dialer, connectionFields } from './connection.js';
import { deliveryMetadata } from './metadata.js';

export const amqpInputSpec = f.object({
  urls: connectionFields.urls,
  queue: f
    .string()
    .validate((q) => (q !== '' ? undefined : 'queue must name the queue to consume from'))
    .describe('The queue to consume from.'),
  queue_declare: f
    .object({
      enabled: f.bool().default(false).describe('Whether to declare the queue (if it exists, the declaration checks that it matches).'),
      durable: f.bool().default(true).describe('Whether the declared queue survives a broker restart.'),
      auto_delete: f.bool().default(false).describe('Whether the declared queue is deleted when its last consumer goes.'),
    })
    .advanced()
    .describe('Declares the queue on connect, so it exists before it is consumed.'),
  bindings_declare: f
    .array(
      f.object({
        exchange: f.string().default('').describe('The exchange of the binding.'),
        key: f.string().default('').describe('The binding (routing) key.'),
      }),
    )
    .default([])
    .advanced()
    .describe('Bindings of the queue to exchanges, declared on connect.'),
  consumer_tag: f.string().default('').describe('The consumer tag; empty lets the broker choose one.'),
  auto_ack: f
    .bool()
    .default(false)
    .advanced()
    .describe(
      'Acknowledge messages as soon as they are read rather than once the output delivered them: faster, but a message that fails downstream, or is in flight when the engine stops, is lost.',
    ),
  nack_reject_patterns: f
    .array(re2PatternField())
    .default([])
    .advanced()
    .describe(
      'RE2 regexes: a message that failed downstream with an error matching one of them is rejected without requeue (dropped, or dead-lettered if the queue has a dead-letter exchange). Other failures are requeued.',
    ),
  prefetch_count: f
    .int()
    .default(10)
    .validate((n) => (n >= 0 && n <= 65535 ? undefined : 'prefetch_count must be between 0 (no limit) and 65535'))
    .describe('The most unacknowledged messages the broker sends at once; 0 means no limit.'),
  prefetch_size: f
    .int()
    .default(0)
    .advanced()
    .describe('The most unacknowledged bytes the broker sends at once. RabbitMQ does not implement it: only 0 (no limit) is honoured.'),
  tls: connectionFields.tls,
});

export type AmqpInputConfig = Infer<typeof amqpInputSpec>;

/** The most deliveries in one transaction when nothing else bounds it (prefetch_count 0). */
const MAX_BATCH = 1024;
/** How long `close()` waits for transactions in flight to be acked before it closes the channel. */
const CLOSE_DRAIN_MS = 10_000;

/** One connection and its consuming channel. */
interface Session {
  readonly model: ChannelModel;
  readonly channel: Channel;
  readonly url: string;
  consumerTag: string;
  alive: boolean;
  /** Why it died. */
  reason: string;
  /** Transactions handed out and not yet settled on the broker. */
  outstanding: number;
}

export class AmqpInput implements Input {
  private readonly dialer: Dialer;
  private readonly log: Logger;
  private readonly rejectPatterns: RE2JS[];
  private readonly maxBatch: number;
  private session: Session | undefined;
  /** Deliveries of the current session not yet handed out, in delivery order. */
  private buffer: ConsumeMessage[] = [];
  private wake: (() => void) | undefined;
  private closed = false;
  /** Consecutive nacks without an ack in between: requeues back off while they persist. */
  private nackStreak = 0;
  /** Requeues waiting out their back-off; `close()` runs them at once. */
  private readonly delayedNacks = new Map<NodeJS.Timeout, () => void>();
  /** Resolves `close()`'s wait once the last transaction in flight settled. */
  private settledAll: (() => void) | undefined;

  constructor(
    private readonly conf: AmqpInputConfig,
    ctx: ComponentContext,
  ) {
    this.log = ctx.logger;
    this.dialer = new Dialer(conf.urls, conf.tls, `${ctx.type} input`, ctx.logger);
    this.rejectPatterns = conf.nack_reject_patterns.map((p) => RE2JS.compile(p));
    this.maxBatch = conf.prefetch_count > 0 ? conf.prefetch_count : MAX_BATCH;
    if (conf.prefetch_size !== 0) this.log.warn(`${this.dialer.component}: prefetch_size is not implemented by RabbitMQ and is ignored`);
  }

  async connect(): Promise<void> {
    if (this.closed) return;
    if (this.session?.alive) return;
    this.dropSession();
    const { model, url } = await this.dialer.dial();
    const where = `queue "${this.conf.queue}" at ${this.dialer.redacted(url)}`;
    let step = `open a channel for ${where}`;
    try {
      model.on('error', (err: Error) => this.log.debug(`${this.dialer.component}: connection error: ${this.dialer.scrub(errorMessage(err))}`));
      const channel = await model.createChannel();
      const s: Session = { model, channel, url, consumerTag: '', alive: true, reason: '', outstanding: 0 };
      channel.on('error', (err: Error) => (s.reason ||= this.dialer.scrub(errorMessage(err))));
      channel.on('close', () => this.lost(s, s.reason || 'the channel was closed'));
      model.on('close', (err?: Error) => this.lost(s, err ? this.dialer.scrub(errorMessage(err)) : 'the connection was closed'));
      const q = this.conf.queue_declare;
      if (q.enabled) {
        step = `declare ${where}`;
        await channel.assertQueue(this.conf.queue, { durable: q.durable, autoDelete: q.auto_delete });
      }
      for (const b of this.conf.bindings_declare) {
        step = `bind ${where} to exchange "${b.exchange}" with key "${b.key}"`;
        await channel.bindQueue(this.conf.queue, b.exchange, b.key);
      }
      step = `set the prefetch count for ${where}`;
      await channel.prefetch(this.conf.prefetch_count);
      this.session = s;
      step = `consume from ${where}`;
      const r = await channel.consume(this.conf.queue, (d) => this.deliver(s, d), {
        // auto_ack acks as it reads (below), so prefetch_count still bounds what is buffered here.
        noAck: false,
        ...(this.conf.consumer_tag !== '' ? { consumerTag: this.conf.consumer_tag } : {}),
      });
      s.consumerTag = r.consumerTag;
    } catch (err) {
      this.session = undefined;
      model.close().catch(() => undefined);
      const missing = /NOT.FOUND - no queue/i.test(errorMessage(err)) && !this.conf.queue_declare.enabled;
      throw this.dialer.error(`cannot ${step}`, err, missing ? 'declare it first, or set queue_declare.enabled' : undefined);
    }
    if (this.closed) return this.dropSession();
    this.log.info(`Receiving AMQP 0.9 messages from ${where}`);
  }

  private deliver(s: Session, d: ConsumeMessage | null): void {
    if (d === null) {
      // The broker cancelled the consumer (the queue was deleted): start over.
      this.lost(s, `the broker cancelled the consumer of queue "${this.conf.queue}" (was it deleted?)`);
      s.model.close().catch(() => undefined);
      return;
    }
    // A delivery of a session that is no longer current is the broker's again once its channel closes.
    if (s !== this.session || !s.alive) return;
    this.buffer.push(d);
    this.wake?.();
  }

  /** The session died: reads throw NotConnectedError until the runtime reconnects. */
  private lost(s: Session, reason: string): void {
    if (!s.alive) return;
    s.alive = false;
    s.reason = reason;
    if (s === this.session) this.buffer = [];
    if (s.outstanding > 0)
      this.log.debug(`${this.dialer.component}: ${s.outstanding} transaction(s) in flight on the lost channel; the broker redelivers them`);
    this.settledAll?.();
    this.wake?.();
  }

  async read(): Promise<Transaction | EndOfInput> {
    for (;;) {
      if (this.closed) return END_OF_INPUT;
      const s = this.session;
      if (!s || !s.alive) {
        throw new NotConnectedError(
          `${this.dialer.component}: lost the connection to ${s ? this.dialer.redacted(s.url) : 'the broker'}: ${s?.reason || 'not connected'}`,
        );
      }
      if (this.buffer.length > 0) return this.take(s);
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  private take(s: Session): Transaction {
    const deliveries = this.buffer.length <= this.maxBatch ? this.buffer : this.buffer.slice(0, this.maxBatch);
    this.buffer = deliveries === this.buffer ? [] : this.buffer.slice(deliveries.length);
    const batch = new Array<Message>(deliveries.length);
    for (let i = 0; i < deliveries.length; i++) batch[i] = new Message(deliveries[i]!.content, deliveryMetadata(deliveries[i]!));
    if (this.conf.auto_ack) {
      // Everything up to the last of these was handed out, in order: one frame acks them all.
      this.safely(s, () => s.channel.ack(deliveries[deliveries.length - 1]!, true), deliveries.length, 'ack');
      return { batch, ack: () => undefined };
    }
    s.outstanding++;
    return { batch, ack: this.ackFor(s, deliveries) };
  }

  private ackFor(s: Session, deliveries: ConsumeMessage[]): Ack {
    return trackAck((err) => {
      if (!err) {
        this.nackStreak = 0;
        this.settle(s, deliveries, 'ack', (d) => s.channel.ack(d));
        return;
      }
      const text = errorMessage(err);
      if (this.rejectPatterns.some((p) => p.matcher(text).find())) {
        this.log.debug(`${this.dialer.component}: rejecting ${deliveries.length} message(s) without requeue: ${text}`);
        this.settle(s, deliveries, 'reject', (d) => s.channel.nack(d, false, false));
        return;
      }
      // Requeued at once, a message the output keeps refusing would come straight back: back off
      // (up to 1 s) while nacks keep coming, as the runtime's auto_replay_nacks does.
      this.nackStreak++;
      const delay = Math.min(1000, 2 ** Math.min(this.nackStreak, 10));
      const requeue = () => this.settle(s, deliveries, 'requeue', (d) => s.channel.nack(d, false, true));
      // Closing: the consumer is cancelled, so nothing requeued comes back here; a back-off would
      // only hold close() (and the shutdown drain) for up to a second per nack.
      if (this.closed) return requeue();
      const timer = setTimeout(() => {
        this.delayedNacks.delete(timer);
        requeue();
      }, delay);
      this.delayedNacks.set(timer, requeue);
    });
  }

  /** Acks, rejects or requeues the deliveries of one transaction on their own channel, if it still lives. */
  private settle(s: Session, deliveries: ConsumeMessage[], what: string, op: (d: ConsumeMessage) => void): void {
    s.outstanding--;
    this.safely(
      s,
      () => {
        for (let i = 0; i < deliveries.length; i++) op(deliveries[i]!);
      },
      deliveries.length,
      what,
    );
    if (s.outstanding === 0) this.settledAll?.();
  }

  private safely(s: Session, op: () => void, count: number, what: string): void {
    if (!s.alive) {
      this.log.debug(`${this.dialer.component}: not sending the ${what} of ${count} delivery(ies) from a closed channel: the broker redelivers them`);
      return;
    }
    try {
      op();
    } catch (err) {
      // The channel closed under us: the broker redelivers.
      this.log.debug(`${this.dialer.component}: could not ${what} ${count} delivery(ies): ${this.dialer.scrub(errorMessage(err))}`);
    }
  }

  /** Closes the current session's connection (its unacked deliveries go back to the queue). */
  private dropSession(): void {
    const s = this.session;
    this.session = undefined;
    this.buffer = [];
    if (!s) return;
    s.alive = false;
    s.model.close().catch(() => undefined);
  }

  /**
   * Stops consuming, requeues what was not handed out, waits (up to 10 s) for the transactions in
   * flight to be acked, then closes the connection.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wake?.();
    const s = this.session;
    if (s?.alive) {
      try {
        if (s.consumerTag) await s.channel.cancel(s.consumerTag);
      } catch {
        // closing anyway
      }
      const unread = this.buffer;
      this.buffer = [];
      this.safely(s, () => unread.forEach((d) => s.channel.nack(d, false, true)), unread.length, 'requeue');
      for (const [timer, requeue] of this.delayedNacks) {
        clearTimeout(timer);
        requeue();
      }
      this.delayedNacks.clear();
      if (s.outstanding > 0 && s.alive) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          this.settledAll = resolve;
          timer = setTimeout(resolve, CLOSE_DRAIN_MS);
        });
        clearTimeout(timer);
      }
      // The channel first: amqplib sends connection.close ahead of channel frames still queued,
      // and the broker would drop the last acks with the connection.
      await s.channel.close().catch(() => undefined);
    }
    this.dropSession();
  }
}

registerInput('amqp_0_9', {
  summary: 'Consumes a queue of an AMQP 0.9.1 broker (RabbitMQ), acknowledging each message once it was delivered.',
  description: [
    'Connects to the first of `urls` that answers and consumes `queue`. The broker sends at most `prefetch_count`',
    'unacknowledged messages at once; the messages waiting when the pipeline asks for more are read as one batch.',
    '',
    'A message is acknowledged on the broker once the output delivered it. When delivery fails it is requeued',
    '(with a back-off of up to 1 s while failures persist), or rejected without requeue when the error matches',
    '`nack_reject_patterns` (a dead-letter exchange of the queue then receives it). When the connection is lost the',
    'input reconnects with back-off, trying `urls` in order; the broker redelivers what was unacknowledged.',
    '',
    '`queue_declare` and `bindings_declare` declare the queue and its bindings on connect. TLS is automatic for',
    '`amqps://` URLs; `tls` customises it.',
    '',
    'Each message carries every header as metadata (names with `-` as `_`, nested tables and arrays flattened as',
    '`parent_child`, `parent_0`), then `amqp_content_type`, `amqp_content_encoding`, `amqp_delivery_mode`,',
    '`amqp_priority`, `amqp_correlation_id`, `amqp_reply_to`, `amqp_expiration`, `amqp_message_id`, `amqp_timestamp`',
    '(Unix seconds), `amqp_type`, `amqp_user_id`, `amqp_app_id`, `amqp_consumer_tag`, `amqp_delivery_tag`,',
    '`amqp_redelivered`, `amqp_exchange` and `amqp_routing_key` (those without a value are absent).',
  ].join('\n'),
  config: amqpInputSpec,
  examples: [
    `input:
  amqp_0_9:
    urls: [ amqp://guest:guest@127.0.0.1:5672/ ]
    queue: orders
    prefetch_count: 50`,
    `# Declare the queue, bind it to an exchange, and fail over to a second broker.
input:
  amqp_0_9:
    urls: [ "amqp://app:\${RABBITMQ_PASSWORD}@rabbit-a:5672/,amqp://app:\${RABBITMQ_PASSWORD}@rabbit-b:5672/" ]
    queue: audit
    queue_declare: { enabled: true, durable: true }
    bindings_declare:
      - { exchange: events, key: audit.# }
    nack_reject_patterns: [ "^invalid:" ]`,
  ],
  factory: (conf, ctx) => new AmqpInput(conf, ctx),
});
