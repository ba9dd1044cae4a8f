/**
 * The `amqp_1` input: receives from `source_address` on an AMQP 1.0 broker (RabbitMQ, Azure
 * Service Bus, ActiveMQ Artemis, Qpid) over one link with manual credit.
 *
 * Deliveries arrive unsettled and at most `credit` of them are unsettled at once (Benthos' field):
 * credit is given back only as deliveries are settled. The deliveries waiting when `read()` is
 * called become one transaction (a quarter of the credit at most). An ack accepts each delivery once the output delivered it; a nack
 * releases it (the broker delivers it again; Benthos modifies it with `delivery-failed`, which
 * RabbitMQ 3 refuses by ending the session), so the broker owns
 * every message until the output is done with it. A lost connection makes reads throw
 * NotConnectedError; the broker puts back what the dead link held unsettled.
 */
import type { Connection, Delivery, EventContext, Receiver } from 'rhea';
import {
  END_OF_INPUT,
  Message,
  NotConnectedError,
  f,
  registerInput,
  type ComponentContext,
  type EndOfInput,
  type Infer,
  type Input,
  type Logger,
  type Transaction,
} from '@svc/engine';
import { trackAck } from '@svc/engine/kit';
import { Amqp1Dialer, connectionError, connectionFields, connectionTailFields, describe, openLink, urlsGiven } from './connection.js';
import { deliveryBody, deliveryMetadata } from './metadata.js';

export const amqp1InputSpec = f
  .object({
    ...connectionFields,
    source_address: f
      .string()
      .validate((s) => (s !== '' ? undefined : 'source_address must name the address to consume from, e.g. /amq/queue/orders'))
      .describe('The source address to consume from (RabbitMQ 3: `/amq/queue/NAME`; RabbitMQ 4: `/queues/NAME`).'),
    azure_renew_lock: f
      .bool()
      .default(false)
      .advanced()
      .describe(
        'Experimental: Azure service bus specific option to renew lock if processing takes more then configured lock time. Not implemented: refused when true.',
      ),
    read_header: f.bool().default(false).advanced().describe('Read additional message header fields into `amqp_*` metadata properties.'),
    credit: f
      .int()
      .default(64)
      .validate((n) => (n >= 1 ? undefined : 'credit must be at least 1'))
      .advanced()
      .describe(
        'Specifies the maximum number of unacknowledged messages the sender can transmit. Once this limit is reached, no more messages will arrive until messages are acknowledged and settled.',
      ),
    ...connectionTailFields,
  })
  .validate((c) => urlsGiven(c) ?? (c.azure_renew_lock ? 'azure_renew_lock is not implemented: leave it false' : undefined));

type Amqp1InputConfig = Infer<typeof amqp1InputSpec>;

/** How long `close()` waits for transactions in flight to be acked. */
const CLOSE_DRAIN_MS = 10_000;

interface Session {
  readonly connection: Connection;
  readonly receiver: Receiver;
  readonly url: string;
  alive: boolean;
  reason: string;
  /** Transactions handed out and not yet settled. */
  outstanding: number;
}

class Amqp1Input implements Input {
  private readonly log: Logger;
  private readonly dialer: Amqp1Dialer;
  private session: Session | undefined;
  private buffer: { message: Message; delivery: Delivery }[] = [];
  private wake: (() => void) | undefined;
  private settledAll: (() => void) | undefined;
  private closed = false;
  /** Consecutive nacks without an ack in between: they are sent back with a growing delay. */
  private nackStreak = 0;
  private readonly delayedNacks = new Map<NodeJS.Timeout, () => void>();

  constructor(
    private readonly conf: Amqp1InputConfig,
    ctx: ComponentContext,
  ) {
    this.log = ctx.logger;
    this.dialer = new Amqp1Dialer(conf, `${ctx.type} input`, ctx.label, ctx.logger);
  }

  async connect(): Promise<void> {
    if (this.closed || this.session?.alive) return;
    const { connection, url } = await this.dialer.dial();
    const where = `${this.conf.source_address} at ${this.dialer.scrub(url)}`;
    let receiver: Receiver;
    try {
      receiver = await openLink(
        connection,
        () => connection.open_receiver({ source: { address: this.conf.source_address }, autoaccept: false, credit_window: 0 }),
        'receiver_open',
        'receiver_error',
        (ctx) => ctx.receiver?.error,
      );
    } catch (err) {
      throw this.dialer.error(`cannot receive from ${where}`, err);
    }
    const s: Session = { connection, receiver, url, alive: true, reason: '', outstanding: 0 };
    const lost = (ctx: EventContext) => this.lost(s, this.dialer.scrub(connectionError(ctx)));
    connection.on('disconnected', lost);
    connection.on('connection_error', lost);
    connection.on('connection_close', lost);
    connection.on('session_error', (ctx: EventContext) => this.lost(s, this.dialer.scrub(describe(ctx.session?.error ?? 'the session ended'))));
    connection.on('session_close', () => this.lost(s, 'the broker ended the session'));
    connection.on('error', (err: unknown) => this.lost(s, this.dialer.scrub(describe(err))));
    receiver.on('receiver_error', (ctx: EventContext) => this.lost(s, this.dialer.scrub(describe(ctx.receiver?.error ?? 'the link was detached'))));
    receiver.on('receiver_close', () => this.lost(s, 'the broker detached the link'));
    receiver.on('message', (ctx: EventContext) => {
      if (s !== this.session || !s.alive || !ctx.message || !ctx.delivery) return;
      this.buffer.push({ message: new Message(deliveryBody(ctx.message), deliveryMetadata(ctx.message, this.conf.read_header)), delivery: ctx.delivery });
      this.wake?.();
    });
    this.session = s;
    receiver.add_credit(this.conf.credit);
    this.log.info(`Receiving AMQP 1.0 messages from ${where}`);
  }

  private lost(s: Session, reason: string): void {
    if (!s.alive) return;
    s.alive = false;
    s.reason = reason;
    if (s === this.session) this.buffer = [];
    try {
      s.connection.close();
    } catch {
      // already gone
    }
    this.settledAll?.();
    this.wake?.();
  }

  async read(): Promise<Transaction | EndOfInput> {
    for (;;) {
      if (this.closed) return END_OF_INPUT;
      const s = this.session;
      if (!s?.alive) throw new NotConnectedError(`${this.dialer.component}: ${s ? `lost the connection: ${s.reason}` : 'not connected'}`);
      if (this.buffer.length > 0) return this.take(s);
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
  }

  private take(s: Session): Transaction {
    // A quarter of the credit at most: the first part is accepted (and its credit given back) while
    // the rest is still in the pipeline, so the broker keeps sending instead of waiting for all of it.
    const max = Math.max(1, Math.ceil(this.conf.credit / 4));
    const taken = this.buffer.length <= max ? this.buffer : this.buffer.slice(0, max);
    this.buffer = taken === this.buffer ? [] : this.buffer.slice(taken.length);
    const batch = taken.map((t) => t.message);
    const deliveries = taken.map((t) => t.delivery);
    s.outstanding++;
    return {
      batch,
      ack: trackAck((err) => {
        if (!err) {
          this.nackStreak = 0;
          return this.settle(s, deliveries, (d) => d.accept());
        }
        // Handed back at once, a message the output keeps refusing would come straight back:
        // back off (up to 1 s) while nacks keep coming, as amqp_0_9 here does.
        this.nackStreak++;
        // Released, not modified as Benthos does: RabbitMQ 3 refuses a modified disposition and ends the session.
        const handBack = () => this.settle(s, deliveries, (d) => d.release());
        if (this.closed) return handBack();
        const timer = setTimeout(
          () => {
            this.delayedNacks.delete(timer);
            handBack();
          },
          Math.min(1000, 2 ** Math.min(this.nackStreak, 10)),
        );
        this.delayedNacks.set(timer, handBack);
      }),
    };
  }

  /** Settles the deliveries of one transaction on their own link, if it still lives, and gives their credit back. */
  private settle(s: Session, deliveries: Delivery[], op: (d: Delivery) => void): void {
    s.outstanding--;
    if (s.alive) {
      try {
        for (const d of deliveries) op(d);
        if (!this.closed) s.receiver.add_credit(deliveries.length);
      } catch (err) {
        // The link closed under us: the broker delivers them again.
        this.log.debug(`${this.dialer.component}: could not settle ${deliveries.length} delivery(ies): ${this.dialer.scrub(describe(err))}`);
      }
    }
    if (s.outstanding === 0) this.settledAll?.();
  }

  /** Stops receiving, hands back what was not read, waits (up to 10 s) for acks in flight, then closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wake?.();
    const s = this.session;
    if (!s) return;
    if (s.alive) {
      for (const { delivery } of this.buffer.splice(0)) delivery.release();
      for (const [timer, handBack] of this.delayedNacks) {
        clearTimeout(timer);
        handBack();
      }
      this.delayedNacks.clear();
      if (s.outstanding > 0) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          this.settledAll = resolve;
          timer = setTimeout(resolve, CLOSE_DRAIN_MS);
        });
        clearTimeout(timer);
      }
    }
    s.alive = false;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      s.connection.once('connection_close', () => {
        clearTimeout(timer);
        resolve();
      });
      try {
        s.connection.close();
      } catch {
        clearTimeout(timer);
        resolve();
      }
    });
  }
}

registerInput('amqp_1', {
  summary: 'Reads messages from an AMQP (1.0) server, accepting each once it was delivered.',
  description: [
    'Connects to the first of `urls` that answers and receives from `source_address` over one link. At most `credit`',
    'messages are unacknowledged at once; the messages waiting when the pipeline asks for more are read as one batch',
    'of at most a quarter of `credit`, so that accepts (and credit) flow back while the rest is in the pipeline.',
    '',
    'A message is accepted on the broker once the output delivered it. When delivery fails it is released (the',
    'broker delivers it again; a back-off of up to 1 s while failures persist). Benthos modifies it with',
    '`delivery-failed` instead, which RabbitMQ 3 refuses by ending the session. When the',
    'connection is lost the input reconnects with back-off; the broker delivers again what was not accepted.',
    '',
    'A user and password in a URL authenticate with SASL PLAIN; `sasl` sets the mechanism (`none`, `plain`,',
    '`anonymous`) and credentials explicitly. TLS is on for `amqps://` URLs; `tls` customises it.',
    '',
    'Metadata: `amqp_content_type`, `amqp_content_encoding`, `amqp_creation_time` and every message annotation with',
    'a string value (its key with `-` as `_`); with `read_header` also `amqp_durable`, `amqp_priority`, `amqp_ttl`,',
    '`amqp_first_acquirer` and `amqp_delivery_count`.',
    '',
    'Addresses: RabbitMQ 3.x (with the `rabbitmq_amqp1_0` plugin) takes `/amq/queue/NAME` for an existing queue and',
    '`/queue/NAME`; RabbitMQ 4 takes `/queues/NAME`.',
  ].join('\n'),
  config: amqp1InputSpec,
  examples: [
    `input:
  amqp_1:
    urls: [ amqp://guest:guest@127.0.0.1:5672/ ]
    source_address: /amq/queue/orders
    credit: 256
    read_header: true`,
  ],
  factory: (conf, ctx) => new Amqp1Input(conf, ctx),
});
