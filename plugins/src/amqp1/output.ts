/**
 * The `amqp_1` output: sends to `target_address` on an AMQP 1.0 broker over one link, each message
 * unsettled, and resolves a write only once the broker accepted every message of it (the
 * disposition). A message the broker rejected, released or modified fails the write with a
 * BatchError naming it, so only it is sent again; a connection lost with messages in flight fails
 * them with NotConnectedError (the runtime reconnects and sends them again: at least once).
 *
 * Messages wait for the link's credit: the broker's flow control holds the output back, never a
 * buffer here.
 */
import type { Connection, Delivery, EventContext, Message as AmqpMessage, Sender } from 'rhea';
import {
  JsonNumber,
  NotConnectedError,
  compileMapping,
  errorMessage,
  f,
  maxInFlightField,
  registerOutput,
  stringifyJson,
  type Batch,
  type ComponentContext,
  type Infer,
  type Logger,
  type Mapping,
  type Output,
} from '@svc/engine';
import { throwFailures } from '../batch-outcome.js';
import { Amqp1Dialer, loadRhea, connectionError, connectionFields, connectionTailFields, describe, openLink, urlsGiven } from './connection.js';

const amqp1OutputSpec = f
  .object({
    ...connectionFields,
    target_address: f
      .string()
      .validate((s) => (s !== '' ? undefined : 'target_address must name the address to send to, e.g. /amq/queue/orders'))
      .describe('The target address to write to (RabbitMQ 3: `/amq/queue/NAME`, `/exchange/NAME/KEY`; RabbitMQ 4: `/queues/NAME`).'),
    max_in_flight: maxInFlightField(64),
    ...connectionTailFields,
    application_properties_map: f
      .mapping()
      .optional()
      .advanced()
      .describe('An optional Bloblang mapping that can be defined in order to set the `application-properties` on output messages.'),
    metadata: f
      .object({
        exclude_prefixes: f
          .array(f.string())
          .default([])
          .describe('Provide a list of explicit metadata key prefixes to be excluded when adding metadata to sent messages.'),
      })
      .describe('Specify criteria for which metadata values are attached to messages as headers (message annotations).'),
    content_type: f
      .enum(['opaque_binary', 'string'])
      .default('opaque_binary')
      .advanced()
      .describe(
        'Specify the message body content type. The option `string` will transfer the message as an AMQP value of type string. Consider choosing the option `string` if your intention is to transfer UTF-8 string messages (like JSON messages) to the destination.',
      ),
    persistent: f
      .bool()
      .default(false)
      .advanced()
      .describe(
        'If set to true, the message will be marked as persistent, ensuring it is stored durably and not lost if an intermediary (such as a broker) restarts. By default, messages are not durable.',
      ),
  })
  .validate(urlsGiven);

type Amqp1OutputConfig = Infer<typeof amqp1OutputSpec>;

interface Link {
  readonly connection: Connection;
  readonly sender: Sender;
  alive: boolean;
  reason: string;
  /** Deliveries sent and not yet settled by the broker: what to tell each. */
  readonly pending: Map<Delivery, (err?: Error) => void>;
  /** Messages waiting for credit, in order. */
  readonly waiting: { message: AmqpMessage; done: (err?: Error) => void }[];
  /** A flush is scheduled. */
  flushing: boolean;
}

class Amqp1Output implements Output {
  private readonly log: Logger;
  private readonly dialer: Amqp1Dialer;
  private readonly properties: Mapping | undefined;
  private link: Link | undefined;
  private rhea: Awaited<ReturnType<typeof loadRhea>> | undefined;

  constructor(
    private readonly conf: Amqp1OutputConfig,
    ctx: ComponentContext,
  ) {
    this.log = ctx.logger;
    this.dialer = new Amqp1Dialer(conf, `${ctx.type} output`, ctx.label, ctx.logger);
    this.properties = conf.application_properties_map !== undefined ? compileMapping(conf.application_properties_map) : undefined;
  }

  async connect(): Promise<void> {
    if (this.link?.alive) return;
    this.rhea ??= await loadRhea();
    const { connection, url } = await this.dialer.dial();
    const where = `${this.conf.target_address} at ${this.dialer.scrub(url)}`;
    let sender: Sender;
    try {
      sender = await openLink(
        connection,
        () => connection.open_sender({ target: { address: this.conf.target_address } }),
        'sender_open',
        'sender_error',
        (ctx) => ctx.sender?.error,
      );
    } catch (err) {
      throw this.dialer.error(`cannot send to ${where}`, err);
    }
    const l: Link = { connection, sender, alive: true, reason: '', pending: new Map(), waiting: [], flushing: false };
    const lost = (ctx: EventContext) => this.lost(l, this.dialer.scrub(connectionError(ctx)));
    connection.on('disconnected', lost);
    connection.on('connection_error', lost);
    connection.on('connection_close', lost);
    connection.on('session_error', (ctx: EventContext) => this.lost(l, this.dialer.scrub(describe(ctx.session?.error ?? 'the session ended'))));
    connection.on('session_close', () => this.lost(l, 'the broker ended the session'));
    connection.on('error', (err: unknown) => this.lost(l, this.dialer.scrub(describe(err))));
    sender.on('sender_error', (ctx: EventContext) => this.lost(l, this.dialer.scrub(describe(ctx.sender?.error ?? 'the link was detached'))));
    sender.on('sender_close', () => this.lost(l, 'the broker detached the link'));
    sender.on('sendable', () => this.flush(l));
    sender.on('accepted', (ctx: EventContext) => this.settled(l, ctx.delivery));
    sender.on('rejected', (ctx: EventContext) =>
      this.settled(l, ctx.delivery, `the broker rejected the message: ${describe(ctx.delivery?.remote_state?.error ?? 'no reason given')}`),
    );
    sender.on('released', (ctx: EventContext) => this.settled(l, ctx.delivery, 'the broker released the message (not delivered)'));
    sender.on('modified', (ctx: EventContext) => this.settled(l, ctx.delivery, 'the broker did not deliver the message (modified)'));
    this.link = l;
    this.log.info(`Sending AMQP 1.0 messages to ${where}`);
  }

  private settled(l: Link, delivery: Delivery | undefined, refused?: string): void {
    if (!delivery) return;
    const done = l.pending.get(delivery);
    if (!done) return;
    l.pending.delete(delivery);
    done(refused !== undefined ? new Error(`${this.dialer.component}: ${refused}`) : undefined);
  }

  private lost(l: Link, reason: string): void {
    if (!l.alive) return;
    l.alive = false;
    l.reason = reason;
    const err = new NotConnectedError(`${this.dialer.component}: lost the connection before the broker settled the message: ${reason}`);
    for (const done of l.pending.values()) done(err);
    l.pending.clear();
    for (const w of l.waiting.splice(0)) w.done(err);
    try {
      l.connection.close();
    } catch {
      // already gone
    }
  }

  /** Sends waiting messages while the link has credit. */
  private flush(l: Link): void {
    while (l.alive && l.waiting.length > 0 && l.sender.sendable()) {
      const w = l.waiting.shift()!;
      l.pending.set(l.sender.send(w.message), w.done);
    }
  }

  /**
   * Sends what waits at the next turn of the event loop: rhea writes what was sent within one tick
   * as one socket write, and each write of the runtime comes in a tick of its own, so sending at
   * once costs a socket write per message; gathered, the writes in flight cost a few.
   */
  private flushSoon(l: Link): void {
    if (l.flushing) return;
    l.flushing = true;
    setImmediate(() => {
      l.flushing = false;
      this.flush(l);
    });
  }

  async write(batch: Batch): Promise<void> {
    const l = this.link;
    if (!l?.alive) throw new NotConnectedError(`${this.dialer.component}: ${l ? `lost the connection: ${l.reason}` : 'not connected'}`);
    if (batch.length === 1) {
      // One message (the common write with max_in_flight): no bookkeeping of which failed.
      let message: AmqpMessage;
      try {
        message = this.message(batch, 0);
      } catch (err) {
        throw new Error(`${this.dialer.component}: ${errorMessage(err)}`);
      }
      return new Promise<void>((resolve, reject) => {
        l.waiting.push({ message, done: (err) => (err ? reject(err) : resolve()) });
        this.flushSoon(l);
      });
    }
    const failures = new Map<number, Error>();
    const settled: Promise<void>[] = [];
    for (let i = 0; i < batch.length; i++) {
      let message: AmqpMessage;
      try {
        message = this.message(batch, i);
      } catch (err) {
        failures.set(i, new Error(`${this.dialer.component}: ${errorMessage(err)}`));
        continue;
      }
      settled.push(
        new Promise<void>((resolve) => {
          l.waiting.push({ message, done: (err) => (err && failures.set(i, err), resolve()) });
        }),
      );
    }
    this.flushSoon(l);
    await Promise.all(settled);
    throwFailures(batch.length, failures);
  }

  /** The AMQP message for `batch[index]`. */
  private message(batch: Batch, index: number): AmqpMessage {
    const msg = batch[index]!;
    const rhea = this.rhea!;
    const m: AmqpMessage = {
      body: this.conf.content_type === 'string' ? msg.content.toString() : rhea.message.data_section(msg.content),
    };
    if (this.conf.persistent) m.durable = true;
    if (this.properties) {
      let root: unknown;
      try {
        root = this.properties.exec(msg, { batch, index }).root;
      } catch (err) {
        throw new Error(`application_properties_map: ${errorMessage(err)}`);
      }
      if (root !== undefined && root !== null) {
        if (typeof root !== 'object' || Array.isArray(root) || root instanceof JsonNumber)
          throw new Error(`application_properties_map resulted in a non-object mapping: ${Array.isArray(root) ? 'array' : typeof root}`);
        const props: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(root)) props[k] = this.amqpValue(v);
        m.application_properties = props;
      }
    }
    if (msg.hasMeta()) {
      const excluded = this.conf.metadata.exclude_prefixes;
      let annotations: Record<string, unknown> | undefined;
      for (const [k, v] of msg.metaEntries()) {
        if (excluded.some((p) => k.startsWith(p))) continue;
        (annotations ??= {})[k] = this.amqpValue(v);
      }
      if (annotations) m.message_annotations = annotations;
    }
    return m;
  }

  /** A value of a mapping or of metadata as AMQP encodes it: 64-bit integers exactly, structures as JSON text. */
  private amqpValue(v: unknown): unknown {
    if (v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v;
    if (v instanceof JsonNumber) {
      const n = v.int;
      if (n === undefined) return v.value;
      const b = Buffer.alloc(8);
      b.writeBigInt64BE(n);
      return this.rhea!.types.wrap_long(b);
    }
    if (Buffer.isBuffer(v)) return v;
    return stringifyJson(v);
  }

  async close(): Promise<void> {
    const l = this.link;
    this.link = undefined;
    if (!l) return;
    // Writes in flight were awaited by the runtime; what is left fails as not delivered.
    this.lost(l, 'the output was closed');
  }
}

registerOutput('amqp_1', {
  summary: 'Sends messages to an AMQP (1.0) server, each acknowledged once the broker accepted it.',
  description: [
    'Connects to the first of `urls` that answers and sends each message to `target_address` over one link. A write',
    'resolves only once the broker accepted every message of it (its disposition); a message it rejected, released',
    'or modified is nacked back to the input, never lost. Up to `max_in_flight` batches are sent at once; the link',
    "credit the broker grants is the output's back-pressure.",
    '',
    'The body is sent as a data section, or as an AMQP string value with `content_type: string`. `persistent` marks',
    'messages durable (RabbitMQ keeps them across a restart). Metadata, less `metadata.exclude_prefixes`, is sent as',
    'message annotations; `application_properties_map` (a mapping evaluated per message) sets the',
    'application-properties.',
    '',
    'A user and password in a URL authenticate with SASL PLAIN; `sasl` sets the mechanism explicitly. TLS is on for',
    '`amqps://` URLs; `tls` customises it.',
  ].join('\n'),
  config: amqp1OutputSpec,
  examples: [
    `output:
  amqp_1:
    urls: [ amqp://guest:guest@127.0.0.1:5672/ ]
    target_address: /amq/queue/orders
    persistent: true
    max_in_flight: 64
    application_properties_map: |
      root.region = this.region
    metadata:
      exclude_prefixes: [ kafka_ ]`,
  ],
  factory: (conf, ctx) => new Amqp1Output(conf, ctx),
});
