/**
 * The `nats` input: subscribes to a subject of core NATS (optionally as a member of a queue group).
 *
 * Core NATS delivers at most once: the server does not keep a message for a subscriber that is
 * gone or slow, so nothing here can make it at-least-once (use `nats_jetstream` for that). What is
 * kept: messages already received are handed out in order, at most `prefetch_count` wait here
 * (beyond that, as the Go client does, newer ones are dropped and counted as a slow consumer), and
 * `send_ack` answers a message that has a reply subject with `+ACK` once delivered (`-NAK` on a
 * failure, after `nak_delay`), which is what a JetStream push consumer sending here expects.
 */
import type { Msg, NatsConnection, Subscription } from 'nats';
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
  type MetaValue,
  type Transaction,
} from '@svc/engine';
import { PullInput, ThrottledLog } from '@svc/engine/kit';
import { NatsDialer, connectionFields, connectionTailFields } from './connection.js';
import { headerMetadata } from './headers.js';

export const natsInputSpec = f.object({
  ...connectionFields,
  subject: f
    .string()
    .validate((s) => (s !== '' ? undefined : 'subject must name the subject to consume from'))
    .describe('A subject to consume from. Supports wildcards for consuming multiple subjects.'),
  queue: f.string().default('').describe('An optional queue group to consume as.'),
  auto_replay_nacks: f.bool().default(true).describe('Whether a rejected message is delivered again (true) or dropped (false).'),
  send_ack: f
    .bool()
    .default(true)
    .describe(
      'Control whether ACKS are sent as a reply to each message. When enabled, these replies are sent only once the data has been delivered to all outputs.',
    ),
  nak_delay: f.duration().default('').advanced().describe('An optional delay duration on redelivering a message when negatively acknowledged.'),
  prefetch_count: f
    .int()
    .default(524288)
    .validate((n) => (n >= 0 ? undefined : 'prefetch count must be greater than or equal to zero'))
    .advanced()
    .describe('The maximum number of messages to pull at a time.'),
  ...connectionTailFields,
});

export type NatsInputConfig = Infer<typeof natsInputSpec>;

interface Session {
  readonly nc: NatsConnection;
  readonly sub: Subscription;
  alive: boolean;
  reason: string;
}

export class NatsInput extends PullInput<Msg> {
  private readonly log: Logger;
  private readonly slow: ThrottledLog;
  private readonly dialer: NatsDialer;
  private readonly nakDelayMs: number;
  private session: Session | undefined;

  constructor(
    private readonly conf: NatsInputConfig,
    ctx: ComponentContext,
  ) {
    super();
    this.log = ctx.logger;
    this.slow = new ThrottledLog(ctx.logger, 30_000);
    this.dialer = new NatsDialer(conf, `${ctx.type} input`, ctx.label);
    this.nakDelayMs = conf.nak_delay === '' ? 0 : parseDuration(conf.nak_delay);
  }

  async connect(): Promise<void> {
    if (this.closed || this.session?.alive) return;
    const nc = await this.dialer.dial();
    const limit = this.conf.prefetch_count > 0 ? this.conf.prefetch_count : Infinity;
    let dropped = 0;
    const s: Session = {
      nc,
      alive: true,
      reason: '',
      sub: nc.subscribe(this.conf.subject, {
        ...(this.conf.queue !== '' ? { queue: this.conf.queue } : {}),
        callback: (err, m) => {
          if (err || s !== this.session) return;
          if (this.queued >= limit) {
            this.slow.warn(`${this.dialer.component}: slow consumer: ${++dropped} message(s) dropped with ${limit} waiting (prefetch_count)`);
            return;
          }
          this.offer(m);
        },
      }),
    };
    this.session = s;
    void nc.closed().then((err) => {
      s.alive = false;
      s.reason = err ? this.dialer.scrub(errorMessage(err)) : 'the connection was closed';
      this.wakeReader();
    });
    this.log.info(`Receiving NATS messages from subject: ${this.conf.subject}`);
  }

  protected override assertConnected(): void {
    const s = this.session;
    if (!s?.alive) throw new NotConnectedError(`${this.dialer.component}: ${s ? `lost the connection: ${s.reason}` : 'not connected'}`);
  }

  /** A message of its own; its reply (with `send_ack`) goes through the session it is read on. */
  protected transaction(items: Msg[]): Transaction {
    const m = items[0]!;
    const s = this.session!;
    const meta: Record<string, MetaValue> = {};
    meta.nats_subject = m.subject;
    meta.nats_reply_subject = m.reply ?? '';
    headerMetadata(m.headers, meta);
    return this.track([new Message(Buffer.from(m.data), meta)], (err) => {
      if (!this.conf.send_ack || !m.reply || !s.alive) return;
      if (!err) return s.nc.publish(m.reply, '+ACK');
      const nak = this.nakDelayMs > 0 ? `-NAK ${JSON.stringify({ delay: this.nakDelayMs * 1_000_000 })}` : '-NAK';
      s.nc.publish(m.reply, nak);
    });
  }

  protected async shutDown(): Promise<void> {
    const s = this.session;
    this.session = undefined;
    // Core NATS keeps nothing to hand back: what was received and not read is dropped.
    this.takeQueued();
    if (s && !s.nc.isClosed()) await s.nc.drain().catch(() => s.nc.close());
  }
}

registerInput('nats', {
  summary: 'Subscribes to a NATS subject (core NATS: at most once).',
  description: [
    'Subscribes to `subject` (wildcards allowed), as a member of the queue group `queue` when set. Core NATS keeps no',
    'message for a subscriber that is gone: use `nats_jetstream` where messages must not be lost. At most',
    '`prefetch_count` received messages wait here; beyond that newer ones are dropped (a slow consumer, logged).',
    'With `send_ack` a message with a reply subject is answered `+ACK` once delivered (`-NAK`, after `nak_delay`,',
    'on a failure).',
    '',
    'Metadata: `nats_subject`, `nats_reply_subject` and every header.',
  ].join('\n'),
  config: natsInputSpec,
  examples: [
    `input:
  nats:
    urls: [ nats://127.0.0.1:4222 ]
    subject: events.>
    queue: workers`,
  ],
  factory: (conf, ctx) => new NatsInput(conf, ctx),
});
