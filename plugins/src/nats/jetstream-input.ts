/**
 * The `nats_jetstream` input: consumes a JetStream stream through a pull consumer with explicit
 * acks, acking each message only once the output delivered it.
 *
 * With `durable` (or `queue`: several inputs sharing one durable consumer share its messages, as a
 * queue group does) the consumer lives on the server: a restarted engine goes on where the last
 * one stopped. Without either, an ephemeral consumer starts at `deliver`. A message not acked
 * within `ack_wait` (the process died, the output is stuck) is delivered again by the server;
 * a nack asks for it again at once: nothing is lost.
 */
import type { ConsumerMessages, JsMsg, NatsConnection } from 'nats';
import {
  ErrorCode,
  Message,
  NotConnectedError,
  SvcError,
  errorMessage,
  f,
  parseDuration,
  registerInput,
  type ComponentContext,
  type Infer,
  type Logger,
  type MetaValue,
  type Transaction,
} from '@svc/engine';
import { PullInput } from '@svc/engine/kit';
import { NatsDialer, connectionFields, connectionTailFields } from './connection.js';
import { headerMetadata } from './headers.js';

export const jetStreamInputSpec = f
  .object({
    ...connectionFields,
    queue: f.string().default('').describe('An optional queue group to consume as: inputs with the same queue share one durable consumer of that name.'),
    subject: f
      .string()
      .default('')
      .describe('A subject to consume from. Supports wildcards for consuming multiple subjects. Either a subject or stream must be specified.'),
    durable: f.string().default('').describe('Preserve the state of your consumer under a durable name.'),
    stream: f.string().default('').describe('A stream to consume from. Either a subject or stream must be specified.'),
    bind: f.bool().default(false).describe('Indicates that the subscription should use an existing consumer.'),
    create_stream: f
      .bool()
      .default(false)
      .advanced()
      .describe("Whether to automatically create the stream if it doesn't exist (requires the stream field to be set)."),
    deliver: f
      .enum(['all', 'last', 'last_per_subject', 'new'])
      .default('all')
      .describe('Determines which messages to deliver when consuming without a durable subscriber: all, last, last_per_subject or new.'),
    ack_wait: f.duration().default('30s').advanced().describe('The maximum amount of time NATS server should wait for an ack from consumer.'),
    max_ack_pending: f
      .int()
      .default(1024)
      .validate((n) => (n >= 1 ? undefined : 'max_ack_pending must be at least 1'))
      .advanced()
      .describe('The maximum number of outstanding acks to be allowed before consuming is halted.'),
    ...connectionTailFields,
  })
  .validate((c) => {
    if (c.subject === '' && c.stream === '') return 'either a subject or stream must be specified';
    if (c.queue !== '' && c.durable !== '') return "both 'queue' and 'durable' can't be set simultaneously";
    if (c.bind && c.durable === '' && c.queue === '') return 'bind needs the durable consumer to bind to (durable)';
    if (c.create_stream && c.stream === '') return 'create_stream needs the stream field to be set';
    return undefined;
  });

export type JetStreamInputConfig = Infer<typeof jetStreamInputSpec>;

/** How long `close()` waits for transactions in flight to be acked. */
const CLOSE_DRAIN_MS = 10_000;

interface Session {
  readonly nc: NatsConnection;
  readonly messages: ConsumerMessages;
  alive: boolean;
  reason: string;
}

export class JetStreamInput extends PullInput<JsMsg> {
  private readonly log: Logger;
  private readonly dialer: NatsDialer;
  private readonly ackWaitNanos: number;
  private session: Session | undefined;

  constructor(
    private readonly conf: JetStreamInputConfig,
    ctx: ComponentContext,
  ) {
    // Everything waiting goes as one transaction (as amqp_0_9 here): a transaction per message
    // costs more than the pull itself.
    super(Infinity);
    this.log = ctx.logger;
    this.dialer = new NatsDialer(conf, `${ctx.type} input`, ctx.label);
    if (conf.subject === '' && conf.stream === '')
      throw new SvcError(ErrorCode.ConfigLint, `${this.dialer.component}: either a subject or stream must be specified`);
    this.ackWaitNanos = parseDuration(conf.ack_wait) * 1_000_000;
  }

  async connect(): Promise<void> {
    if (this.closed || this.session?.alive) return;
    const nc = await this.dialer.dial();
    let step = 'open JetStream';
    try {
      const jsm = await nc.jetstreamManager();
      const js = nc.jetstream();
      let stream = this.conf.stream;
      if (stream !== '' && this.conf.create_stream) {
        step = `create stream ${stream}`;
        const exists = await jsm.streams.info(stream).then(
          () => true,
          () => false,
        );
        if (!exists) await jsm.streams.add({ name: stream, subjects: [this.conf.subject || stream] });
      }
      if (stream === '') {
        step = `find the stream of subject ${this.conf.subject}`;
        stream = await jsm.streams.find(this.conf.subject);
      }
      const name = this.conf.durable || this.conf.queue;
      step = `${this.conf.bind ? 'bind to' : 'create'} the consumer ${name || '(ephemeral)'} of stream ${stream}`;
      const consumerName = this.conf.bind ? name : await this.ensureConsumer(jsm, stream, name);
      const consumer = await js.consumers.get(stream, consumerName);
      step = `consume ${stream}/${consumerName}`;
      const messages = await consumer.consume({ max_messages: Math.min(this.conf.max_ack_pending, 256) });
      const s: Session = { nc, messages, alive: true, reason: '' };
      this.session = s;
      void nc.closed().then((err) => this.lost(s, err ? this.dialer.scrub(errorMessage(err)) : 'the connection was closed'));
      void this.pump(s);
      this.log.info(`Receiving NATS JetStream messages from stream ${stream}, consumer ${consumerName}`);
    } catch (err) {
      await nc.close().catch(() => undefined);
      throw this.dialer.error(`cannot ${step}`, err);
    }
  }

  /** The durable (or a new ephemeral) consumer's name, created with explicit acks when missing. */
  private async ensureConsumer(jsm: Awaited<ReturnType<NatsConnection['jetstreamManager']>>, stream: string, name: string): Promise<string> {
    const { AckPolicy, DeliverPolicy } = await import('nats');
    if (name !== '') {
      const existing = await jsm.consumers.info(stream, name).catch(() => undefined);
      if (existing) return name;
    }
    const deliver = { all: DeliverPolicy.All, last: DeliverPolicy.Last, last_per_subject: DeliverPolicy.LastPerSubject, new: DeliverPolicy.New }[
      this.conf.deliver
    ];
    const info = await jsm.consumers.add(stream, {
      ...(name !== '' ? { durable_name: name } : { inactive_threshold: 5 * 60 * 1_000_000_000 }),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: deliver,
      ack_wait: this.ackWaitNanos,
      max_ack_pending: this.conf.max_ack_pending,
      ...(this.conf.subject !== '' ? { filter_subject: this.conf.subject } : {}),
    });
    return info.name;
  }

  /** Moves delivered messages into the buffer, holding off while it is full. */
  private async pump(s: Session): Promise<void> {
    try {
      for await (const m of s.messages) {
        if (!s.alive || s !== this.session) return;
        this.offer(m);
        while (this.queued >= this.conf.max_ack_pending && s.alive) await this.room();
      }
    } catch (err) {
      this.lost(s, this.dialer.scrub(errorMessage(err)));
      return;
    }
    this.lost(s, 'the consumer stopped');
  }

  private lost(s: Session, reason: string): void {
    if (!s.alive) return;
    s.alive = false;
    s.reason = reason;
    if (s === this.session) {
      // The server delivers them again after ack_wait; acks in flight can no longer reach it.
      this.takeQueued();
      this.stopAwaitingAcks();
    }
    this.wakeReader();
    this.wakeFetchers();
  }

  protected override assertConnected(): void {
    const s = this.session;
    if (!s?.alive) throw new NotConnectedError(`${this.dialer.component}: ${s ? `lost the connection: ${s.reason}` : 'not connected'}`);
  }

  protected transaction(msgs: JsMsg[]): Transaction {
    const batch = new Array<Message>(msgs.length);
    for (let k = 0; k < msgs.length; k++) {
      const m = msgs[k]!;
      const meta: Record<string, MetaValue> = {};
      headerMetadata(m.headers, meta);
      const i = m.info;
      meta.nats_subject = m.subject;
      meta.nats_sequence_stream = String(i.streamSequence);
      meta.nats_sequence_consumer = String(i.deliverySequence);
      meta.nats_num_delivered = String(i.deliveryCount);
      meta.nats_num_pending = String(i.pending);
      meta.nats_domain = i.domain;
      meta.nats_consumer = i.consumer;
      meta.nats_timestamp_unix_nano = String(i.timestampNanos);
      batch[k] = new Message(Buffer.from(m.data), meta);
    }
    return this.track(batch, (err) => {
      try {
        for (const m of msgs) {
          if (err) m.nak();
          else m.ack();
        }
      } catch (e) {
        // The connection is gone: the server delivers the messages again after ack_wait.
        this.log.debug(`${this.dialer.component}: could not ${err ? 'nak' : 'ack'} ${msgs.length} message(s): ${this.dialer.scrub(errorMessage(e))}`);
      }
    });
  }

  /** Stops consuming, hands back what was not read (nak), waits (up to 10 s) for acks in flight. */
  protected async shutDown(): Promise<void> {
    const s = this.session;
    if (!s) return;
    s.messages.stop();
    for (const m of this.takeQueued()) m.nak();
    if (s.alive) await this.acksSettled(CLOSE_DRAIN_MS);
    s.alive = false;
    this.wakeFetchers();
    await s.nc.drain().catch(() => s.nc.close());
  }
}

registerInput('nats_jetstream', {
  summary: 'Reads messages from NATS JetStream subjects, acking each once it was delivered.',
  description: [
    'Consumes `stream` (or the stream that captures `subject`) through a pull consumer with explicit acks: the',
    '`durable` consumer (created when missing, with `deliver`, `ack_wait`, `max_ack_pending` and `subject` as its',
    'filter), the one named `queue` (inputs sharing it share the messages), an existing one (`bind`), or else an',
    'ephemeral consumer. `create_stream` creates `stream` for `subject` when it does not exist.',
    '',
    'The messages waiting when the pipeline asks for more are read as one batch (at most `max_ack_pending`). A',
    'message is acked once the output delivered it; a nack asks the server to deliver it again at once, and a',
    'message not acked within `ack_wait` (the process died) is delivered again by the server.',
    '',
    'Metadata: `nats_subject`, `nats_sequence_stream`, `nats_sequence_consumer`, `nats_num_delivered`,',
    '`nats_num_pending`, `nats_domain`, `nats_timestamp_unix_nano`, `nats_consumer`, and every header.',
  ].join('\n'),
  config: jetStreamInputSpec,
  examples: [
    `input:
  nats_jetstream:
    urls: [ nats://127.0.0.1:4222 ]
    subject: orders.>
    durable: order-processor
    ack_wait: 1m`,
  ],
  factory: (conf, ctx) => new JetStreamInput(conf, ctx),
});
