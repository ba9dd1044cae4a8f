/**
 * The `amqp_0_9` output: publishes each message to an exchange of an AMQP 0.9.1 broker
 * (RabbitMQ) on a confirm channel.
 *
 * A write resolves only once the broker confirmed every message of the batch. A message the
 * broker nacks, or returns as unroutable (with `mandatory`), rejects the write, and the
 * transaction is nacked back to its input: nothing is acknowledged that the broker did not take.
 * A lost connection is a NotConnectedError (the runtime reconnects and writes the batch again);
 * an error that only closed the channel (an exchange that does not exist) fails the write and
 * the next write opens a new channel.
 */
import type { ChannelModel, ConfirmChannel, Message as AmqpMessage, Options } from 'amqplib';
import {
  BatchError,
  NotConnectedError,
  compileInterpolation,
  errorMessage,
  f,
  maxInFlightField,
  parseDuration,
  registerOutput,
  type Batch,
  type ComponentContext,
  type Infer,
  type Interpolation,
  type Logger,
  type Message,
  type Output,
} from '@svc/engine';
import { Dialer, connectionFields } from './connection.js';
import { messageHeaders } from './metadata.js';

const interpolated = (description: string, value = '') => f.string().interpolated().default(value).describe(description);

export const amqpOutputSpec = f.object({
  urls: connectionFields.urls,
  exchange: f.string().interpolated().describe('The exchange to publish to; empty is the default exchange (routes by `key` to the queue of that name).'),
  exchange_declare: f
    .object({
      enabled: f.bool().default(false).describe('Whether to declare the exchange (if it exists, the declaration checks that it matches).'),
      type: f.enum(['direct', 'fanout', 'topic', 'headers', 'x-custom']).default('direct').describe('The type of the declared exchange.'),
      durable: f.bool().default(true).describe('Whether the declared exchange survives a broker restart.'),
    })
    .advanced()
    .describe('Declares the exchange before publishing to it (once per connection and exchange name).'),
  key: interpolated('The routing key of each message (`/` becomes `.`, as in Benthos).'),
  type: interpolated('The `type` property of each message (`/` becomes `.`).'),
  content_type: interpolated('The content type property of each message.', 'application/octet-stream').advanced(),
  content_encoding: interpolated('The content encoding property of each message.').advanced(),
  correlation_id: interpolated('The correlation id property of each message.').advanced(),
  reply_to: interpolated('The reply-to property of each message (a queue name).').advanced(),
  expiration: interpolated('The per-message TTL property, in milliseconds as text.').advanced(),
  message_id: interpolated('The message id property of each message.').advanced(),
  user_id: interpolated('The user id property; the broker requires it to be the user of the connection.').advanced(),
  app_id: interpolated('The application id property of each message.').advanced(),
  metadata: f
    .object({
      exclude_prefixes: f.array(f.string()).default([]).describe('Metadata keys starting with one of these are not sent as headers.'),
    })
    .describe('Which metadata is sent as headers: all of it (names with `_` as `-`) except keys with these prefixes.'),
  priority: interpolated('The priority of each message, 0 to 9; empty leaves it unset.').advanced(),
  max_in_flight: maxInFlightField(64, 'The most writes awaiting confirmation at once.'),
  persistent: f
    .bool()
    .default(false)
    .advanced()
    .describe('Whether messages are persistent (delivery mode 2: written to disk by durable queues) rather than transient.'),
  mandatory: f
    .bool()
    .default(false)
    .advanced()
    .describe('Whether a message that no queue receives is returned by the broker; a returned message fails its write (it is nacked back to its input).'),
  immediate: f.bool().default(false).advanced().describe('Not implemented by RabbitMQ since 3.0: accepted for compatibility and ignored.'),
  timeout: f
    .duration()
    .default('')
    .advanced()
    .describe('The longest a write waits for the broker to confirm its messages before it fails; empty waits indefinitely.'),
  tls: connectionFields.tls,
});

export type AmqpOutputConfig = Infer<typeof amqpOutputSpec>;

/** A mandatory publish awaiting its confirm: a `basic.return` for it arrives before the confirm. */
interface PendingReturn {
  exchange: string;
  key: string;
  content: Buffer;
  returned?: string;
}

/** A confirm channel and what is known of its health. */
interface PublishChannel {
  readonly ch: ConfirmChannel;
  open: boolean;
  /** Why the broker closed it (set before its unconfirmed publishes fail). */
  error: string;
  /** Mandatory publishes awaiting confirms, in publish order. */
  readonly pending: PendingReturn[];
  /** Set while amqplib's write buffer is full: publishing waits for its 'drain'. */
  drained: Promise<void> | undefined;
}

/** One connection: its current channel and the exchanges declared on it. */
interface Session {
  readonly model: ChannelModel;
  readonly url: string;
  alive: boolean;
  reason: string;
  channel: PublishChannel | undefined;
  opening: Promise<PublishChannel> | undefined;
  readonly declared: Map<string, Promise<void>>;
}

/** The per-message properties: interpolated fields compiled once. */
interface Templates {
  exchange: Interpolation;
  key: Interpolation;
  type: Interpolation;
  contentType: Interpolation;
  contentEncoding: Interpolation;
  correlationId: Interpolation;
  replyTo: Interpolation;
  expiration: Interpolation;
  messageId: Interpolation;
  userId: Interpolation;
  appId: Interpolation;
  priority: Interpolation;
}

export class AmqpOutput implements Output {
  private readonly dialer: Dialer;
  private readonly log: Logger;
  private readonly t: Templates;
  private readonly timeoutMs: number;
  private session: Session | undefined;
  private closed = false;

  constructor(
    private readonly conf: AmqpOutputConfig,
    ctx: ComponentContext,
  ) {
    this.log = ctx.logger;
    this.dialer = new Dialer(conf.urls, conf.tls, `${ctx.type} output`, ctx.logger);
    this.t = {
      exchange: compileInterpolation(conf.exchange),
      key: compileInterpolation(conf.key),
      type: compileInterpolation(conf.type),
      contentType: compileInterpolation(conf.content_type),
      contentEncoding: compileInterpolation(conf.content_encoding),
      correlationId: compileInterpolation(conf.correlation_id),
      replyTo: compileInterpolation(conf.reply_to),
      expiration: compileInterpolation(conf.expiration),
      messageId: compileInterpolation(conf.message_id),
      userId: compileInterpolation(conf.user_id),
      appId: compileInterpolation(conf.app_id),
      priority: compileInterpolation(conf.priority),
    };
    this.timeoutMs = parseDuration(conf.timeout);
    if (conf.immediate) this.log.warn(`${this.dialer.component}: immediate is not implemented by RabbitMQ and is ignored`);
  }

  async connect(): Promise<void> {
    if (this.closed) return;
    if (!this.session?.alive) {
      this.dropSession();
      const { model, url } = await this.dialer.dial();
      const s: Session = { model, url, alive: true, reason: '', channel: undefined, opening: undefined, declared: new Map() };
      model.on('error', (err: Error) => this.log.debug(`${this.dialer.component}: connection error: ${this.dialer.scrub(errorMessage(err))}`));
      model.on('close', (err?: Error) => {
        s.alive = false;
        s.reason = err ? this.dialer.scrub(errorMessage(err)) : 'the connection was closed';
      });
      this.session = s;
      this.log.info(`Sending AMQP 0.9 messages to ${this.dialer.redacted(url)}`);
    }
    const s = this.session!;
    await this.channelOf(s);
    if (this.t.exchange.isStatic) await this.declare(s, this.conf.exchange);
  }

  /** The session's confirm channel, opened when there is none or the broker closed the last one. */
  private channelOf(s: Session): Promise<PublishChannel> {
    if (s.channel?.open) return Promise.resolve(s.channel);
    return (s.opening ??= this.openChannel(s).finally(() => (s.opening = undefined)));
  }

  private async openChannel(s: Session): Promise<PublishChannel> {
    let ch: ConfirmChannel;
    try {
      ch = await s.model.createConfirmChannel();
    } catch (err) {
      throw this.notConnected(s, err);
    }
    const pc: PublishChannel = { ch, open: true, error: '', pending: [], drained: undefined };
    ch.on('error', (err: Error) => (pc.error ||= this.dialer.scrub(errorMessage(err))));
    ch.on('close', () => (pc.open = false));
    ch.on('return', (m: AmqpMessage) => this.returned(pc, m));
    s.channel = pc;
    return pc;
  }

  /** Declares `exchange` (once per connection) when exchange_declare is enabled. */
  private declare(s: Session, exchange: string): Promise<void> {
    const d = this.conf.exchange_declare;
    if (!d.enabled || exchange === '') return Promise.resolve();
    let p = s.declared.get(exchange);
    if (!p) {
      p = this.channelOf(s)
        .then((pc) => pc.ch.assertExchange(exchange, d.type, { durable: d.durable }))
        .then(
          () => undefined,
          (err: unknown) => {
            s.declared.delete(exchange);
            if (err instanceof NotConnectedError) throw err;
            throw this.dialer.error(`cannot declare exchange "${exchange}" (type ${d.type}, durable ${d.durable})`, err);
          },
        );
      s.declared.set(exchange, p);
    }
    return p;
  }

  /** A `basic.return`: marks the oldest unconfirmed mandatory publish it describes. */
  private returned(pc: PublishChannel, m: AmqpMessage): void {
    const { exchange, routingKey } = m.fields;
    const why = `${(m.fields as { replyCode?: number }).replyCode ?? ''} ${(m.fields as { replyText?: string }).replyText ?? 'returned'}`.trim();
    const p = pc.pending.find((e) => e.returned === undefined && e.exchange === exchange && e.key === routingKey && e.content.equals(m.content));
    if (p) p.returned = why;
    else this.log.debug(`${this.dialer.component}: a returned message matched no publish awaiting confirmation (exchange "${exchange}", key "${routingKey}")`);
  }

  async write(batch: Batch): Promise<void> {
    const s = this.session;
    if (!s?.alive) throw new NotConnectedError(`${this.dialer.component}: not connected${s ? `: ${s.reason}` : ''}`);
    const pc = await this.channelOf(s);
    const confirms: Promise<void>[] = new Array(batch.length);
    for (let i = 0; i < batch.length; i++) {
      const msg = batch[i]!;
      const ctx = { batch, index: i };
      const exchange = this.eval('exchange', this.t.exchange, msg, ctx);
      if (this.conf.exchange_declare.enabled && !this.t.exchange.isStatic) await this.declare(s, exchange);
      const key = this.eval('key', this.t.key, msg, ctx).replaceAll('/', '.');
      if (pc.drained) await pc.drained;
      confirms[i] = this.publish(s, pc, exchange, key, msg, this.options(msg, ctx));
      // Confirms of earlier messages may fail while later ones are prepared: keep them handled.
      confirms[i]!.catch(() => undefined);
    }
    await this.confirmed(confirms);
  }

  /**
   * Waits for every confirm. When the broker refused some messages and confirmed others, the
   * failure is a BatchError naming the refused ones, so that only they are published again; when
   * it refused all of them (or the timeout passed: which ones arrived is unknown) the write fails.
   */
  private async confirmed(confirms: Promise<void>[]): Promise<void> {
    const all = Promise.allSettled(confirms);
    let results: PromiseSettledResult<void>[];
    if (this.timeoutMs <= 0) {
      results = await all;
    } else {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${this.dialer.component}: the broker did not confirm ${confirms.length} message(s) within ${this.conf.timeout}`)),
          this.timeoutMs,
        );
      });
      try {
        results = await Promise.race([all, timeout]);
      } finally {
        clearTimeout(timer);
      }
    }
    const refused: number[] = [];
    for (let i = 0; i < results.length; i++) if (results[i]!.status === 'rejected') refused.push(i);
    if (refused.length === 0) return;
    const reasonAt = (i: number) => {
      const r = (results[i] as PromiseRejectedResult).reason;
      return r instanceof Error ? r : new Error(String(r));
    };
    const first = reasonAt(refused[0]!);
    if (refused.length === confirms.length) throw first;
    const err = new BatchError(confirms.length, first);
    for (const i of refused) err.failed(i, reasonAt(i));
    throw err;
  }

  private eval(field: string, t: Interpolation, msg: Message, ctx: { batch: Batch; index: number }): string {
    try {
      return t.value(msg, ctx);
    } catch (err) {
      throw new Error(`${this.dialer.component}: ${field}: ${errorMessage(err)}`);
    }
  }

  private options(msg: Message, ctx: { batch: Batch; index: number }): Options.Publish {
    const t = this.t;
    const o: Options.Publish = { deliveryMode: this.conf.persistent ? 2 : 1, mandatory: this.conf.mandatory };
    const set = (name: keyof Options.Publish, field: string, tpl: Interpolation) => {
      const v = this.eval(field, tpl, msg, ctx);
      if (v !== '') (o as Record<string, unknown>)[name] = v;
    };
    set('contentType', 'content_type', t.contentType);
    set('contentEncoding', 'content_encoding', t.contentEncoding);
    set('correlationId', 'correlation_id', t.correlationId);
    set('replyTo', 'reply_to', t.replyTo);
    set('expiration', 'expiration', t.expiration);
    set('messageId', 'message_id', t.messageId);
    set('userId', 'user_id', t.userId);
    set('appId', 'app_id', t.appId);
    const type = this.eval('type', t.type, msg, ctx);
    if (type !== '') o.type = type.replaceAll('/', '.');
    const priority = this.eval('priority', t.priority, msg, ctx);
    if (priority !== '') {
      const n = Number(priority);
      if (!/^\s*\d+\s*$/.test(priority) || n > 9) {
        throw new Error(`${this.dialer.component}: priority must be an integer from 0 to 9, got "${priority}"`);
      }
      o.priority = n;
    }
    const headers = messageHeaders(msg, this.conf.metadata.exclude_prefixes);
    if (headers) o.headers = headers;
    return o;
  }

  /** Publishes one message; resolves once the broker confirmed it. */
  private publish(s: Session, pc: PublishChannel, exchange: string, key: string, msg: Message, opts: Options.Publish): Promise<void> {
    const content = msg.content;
    return new Promise<void>((resolve, reject) => {
      const pending: PendingReturn | undefined = opts.mandatory ? { exchange, key, content } : undefined;
      if (pending) pc.pending.push(pending);
      const forget = () => {
        if (!pending) return;
        const i = pc.pending.indexOf(pending);
        if (i >= 0) pc.pending.splice(i, 1);
      };
      try {
        const flowing = pc.ch.publish(exchange, key, content, opts, (err: unknown) => {
          forget();
          if (err) return reject(this.confirmError(s, pc, exchange, key, err));
          if (pending?.returned !== undefined) {
            return reject(
              new Error(
                `${this.dialer.component}: the broker returned the message as unroutable (${pending.returned}; exchange "${exchange}", key "${key}"): bind a queue that matches, or unset mandatory`,
              ),
            );
          }
          resolve();
        });
        if (!flowing && !pc.drained) {
          // Wait for the socket to take what is buffered (or the channel to close) before publishing more.
          pc.drained = new Promise<void>((r) => {
            const done = () => {
              pc.ch.off('drain', done);
              pc.ch.off('close', done);
              pc.drained = undefined;
              r();
            };
            pc.ch.on('drain', done);
            pc.ch.on('close', done);
          });
        }
      } catch (err) {
        forget();
        reject(this.confirmError(s, pc, exchange, key, err));
      }
    });
  }

  /** Why a publish was not confirmed, as the error its write fails with. */
  private confirmError(s: Session, pc: PublishChannel, exchange: string, key: string, err: unknown): Error {
    const text = errorMessage(err);
    if (pc.error) {
      // The broker closed the channel (the connection lives): a failed write, not a lost connection.
      const hint =
        /NOT.FOUND/i.test(pc.error) && /exchange/i.test(pc.error)
          ? this.conf.exchange_declare.enabled
            ? ''
            : `; create the exchange, or set exchange_declare.enabled`
          : '';
      return new Error(`${this.dialer.component}: cannot publish to exchange "${exchange}" with key "${key}": ${pc.error}${hint}`);
    }
    if (text === 'message nacked')
      return new Error(`${this.dialer.component}: the broker refused (nacked) the message for exchange "${exchange}", key "${key}"`);
    return this.notConnected(s, err);
  }

  private notConnected(s: Session, err: unknown): NotConnectedError {
    s.alive = false;
    s.reason ||= this.dialer.scrub(errorMessage(err));
    return new NotConnectedError(`${this.dialer.component}: lost the connection to ${this.dialer.redacted(s.url)}: ${s.reason}`);
  }

  private dropSession(): void {
    const s = this.session;
    this.session = undefined;
    if (!s) return;
    s.alive = false;
    s.model.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    const s = this.session;
    this.session = undefined;
    if (!s) return;
    s.alive = false;
    // Writes in flight were awaited by the runtime: close the channel, then the connection.
    try {
      if (s.channel?.open) await s.channel.ch.close();
    } catch {
      // closing anyway
    }
    await s.model.close().catch(() => undefined);
  }
}

registerOutput('amqp_0_9', {
  summary: 'Publishes messages to an exchange of an AMQP 0.9.1 broker (RabbitMQ), each acknowledged only once the broker confirmed it.',
  description: [
    'Connects to the first of `urls` that answers and publishes each message to `exchange` with the routing key',
    '`key` on a confirm channel. `exchange`, `key`, `type` and the message properties can interpolate the message.',
    'Metadata is sent as headers (names with `_` as `-`), except keys starting with one of',
    '`metadata.exclude_prefixes`.',
    '',
    'A write succeeds only once the broker confirmed every message of it. A message the broker refuses, one it',
    'returns as unroutable with `mandatory: true`, or a publish to an exchange that does not exist fails the write,',
    'and the message is nacked back to its input, never lost. When the connection is lost the output reconnects',
    'with back-off, trying `urls` in order, and writes again what was not confirmed.',
    '',
    '`exchange_declare` declares the exchange before the first publish to it. TLS is automatic for `amqps://`',
    'URLs; `tls` customises it.',
  ].join('\n'),
  config: amqpOutputSpec,
  examples: [
    `output:
  amqp_0_9:
    urls: [ amqp://guest:guest@127.0.0.1:5672/ ]
    exchange: orders
    exchange_declare: { enabled: true, type: topic }
    key: orders.\${! meta("region") }
    persistent: true`,
    `# Straight into a queue through the default exchange; unroutable messages fail instead of vanishing.
output:
  amqp_0_9:
    urls: [ amqp://guest:guest@127.0.0.1:5672/ ]
    exchange: ""
    key: results
    mandatory: true
    content_type: application/json
    metadata:
      exclude_prefixes: [ amqp_ ]`,
  ],
  factory: (conf, ctx) => new AmqpOutput(conf, ctx),
});
