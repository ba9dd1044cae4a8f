/**
 * The `nats` output (core NATS) and the `nats_jetstream` output.
 *
 * `nats_jetstream` publishes each message and resolves a write only once the stream stored every
 * message of it (the server's publish acknowledgement); a message it refused fails the write with a
 * BatchError naming it, so only it is sent again. Core NATS has no acknowledgement: a `nats` write
 * resolves once the server received the batch (a flush round trip after the publishes), which is
 * as far as the protocol goes (at most once to subscribers).
 */
import type { JetStreamClient, NatsConnection } from 'nats';
import {
  NotConnectedError,
  errorMessage,
  f,
  maxInFlightField,
  registerOutput,
  type Batch,
  type ComponentContext,
  type Infer,
  type Logger,
  type Output,
} from '@svc/engine';
import { NatsDialer, connectionFields, connectionTailFields } from './connection.js';
import { throwFailures } from '../batch-outcome.js';
import { metadataFilterField } from './headers.js';
import { OutgoingMessages, type Outgoing } from './outgoing.js';

function outputSpec(maxInFlight: number) {
  return f.object({
    ...connectionFields,
    subject: f
      .string()
      .interpolated()
      .validate((s) => (s !== '' ? undefined : 'subject must name the subject to publish to'))
      .describe('The subject to publish to.'),
    headers: f.map(f.string().interpolated()).default({}).describe('Explicit message headers to add to messages.'),
    metadata: metadataFilterField,
    max_in_flight: maxInFlightField(maxInFlight),
    ...connectionTailFields,
  });
}

const natsOutputSpec = outputSpec(64);
const jetStreamOutputSpec = outputSpec(1024);
type NatsOutputConfig = Infer<typeof natsOutputSpec>;

class NatsOutput implements Output {
  private readonly log: Logger;
  private readonly dialer: NatsDialer;
  private messages: OutgoingMessages | undefined;
  private nc: NatsConnection | undefined;
  private js: JetStreamClient | undefined;

  constructor(
    private readonly conf: NatsOutputConfig,
    ctx: ComponentContext,
    private readonly jetStream: boolean,
  ) {
    this.log = ctx.logger;
    this.dialer = new NatsDialer(conf, `${ctx.type} output`, ctx.label);
  }

  async connect(): Promise<void> {
    if (this.nc && !this.nc.isClosed()) return;
    const { headers } = await import('nats');
    this.messages ??= new OutgoingMessages(this.conf, headers);
    const nc = await this.dialer.dial();
    this.nc = nc;
    this.js = this.jetStream ? nc.jetstream() : undefined;
    this.log.info(`Sending NATS${this.jetStream ? ' JetStream' : ''} messages to subject: ${this.conf.subject}`);
  }

  async write(batch: Batch): Promise<void> {
    const nc = this.nc;
    const messages = this.messages;
    if (!nc || nc.isClosed() || !messages) throw new NotConnectedError(`${this.dialer.component}: not connected`);
    const outgoing: (Outgoing | Error)[] = batch.map((_, i) => {
      try {
        return messages.at(batch, i);
      } catch (err) {
        return new Error(`${this.dialer.component}: ${errorMessage(err)}`);
      }
    });
    if (this.js) return this.publishStored(this.js, outgoing);
    const failures = new Map<number, Error>();
    for (let i = 0; i < outgoing.length; i++) {
      const o = outgoing[i]!;
      if (o instanceof Error) failures.set(i, o);
      else nc.publish(o.subject, o.data, o.headers ? { headers: o.headers } : undefined);
    }
    try {
      await nc.flush();
    } catch (err) {
      throw new NotConnectedError(`${this.dialer.component}: the server did not confirm receipt: ${this.dialer.scrub(errorMessage(err))}`);
    }
    throwFailures(batch.length, failures);
  }

  /** JetStream: every message published, each resolved by the stream's acknowledgement. */
  private async publishStored(js: JetStreamClient, outgoing: (Outgoing | Error)[]): Promise<void> {
    const failures = new Map<number, Error>();
    await Promise.all(
      outgoing.map(async (o, i) => {
        if (o instanceof Error) return failures.set(i, o);
        try {
          await js.publish(o.subject, o.data, o.headers ? { headers: o.headers } : undefined);
        } catch (err) {
          const why = `${this.dialer.component}: the stream did not store the message for ${o.subject}: ${this.dialer.scrub(errorMessage(err))}`;
          failures.set(i, this.nc?.isClosed() !== false ? new NotConnectedError(why) : new Error(why));
        }
        return undefined;
      }),
    );
    throwFailures(outgoing.length, failures);
  }

  async close(): Promise<void> {
    const nc = this.nc;
    this.nc = undefined;
    if (nc && !nc.isClosed()) await nc.drain().catch(() => nc.close());
  }
}

registerOutput('nats', {
  summary: 'Publishes messages to a NATS subject (core NATS: no delivery acknowledgement).',
  description: [
    'Publishes each message to `subject` (interpolated per message) with the `headers` given (interpolated) and the',
    'metadata that `metadata.include_prefixes` / `include_patterns` select. A write resolves once the server received',
    'the batch (a flush round trip); core NATS does not acknowledge delivery to subscribers, so use',
    '`nats_jetstream` where messages must not be lost.',
  ].join('\n'),
  config: natsOutputSpec,
  examples: [
    `output:
  nats:
    urls: [ nats://127.0.0.1:4222 ]
    subject: events.\${! meta("kind") }
    headers:
      Content-Type: application/json`,
  ],
  factory: (conf, ctx) => new NatsOutput(conf, ctx, false),
});

registerOutput('nats_jetstream', {
  summary: 'Publishes messages to a NATS JetStream subject, each acknowledged once the stream stored it.',
  description: [
    'Publishes each message to `subject` (interpolated per message; a stream must capture it) with the `headers` given',
    'and the metadata `metadata` selects. A write resolves only once the stream acknowledged every message of it; a',
    'message it refused (no stream for the subject, a full stream) is nacked back to the input, never lost.',
  ].join('\n'),
  config: jetStreamOutputSpec,
  examples: [
    `output:
  nats_jetstream:
    urls: [ nats://127.0.0.1:4222 ]
    subject: orders.\${! json("region") }
    metadata:
      include_prefixes: [ trace_ ]`,
  ],
  factory: (conf, ctx) => new NatsOutput(conf, ctx, true),
});
