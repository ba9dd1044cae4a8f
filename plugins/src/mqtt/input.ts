/**
 * The `mqtt` input: subscribes to topic filters on an MQTT broker and acknowledges each QoS 1 or 2
 * message (PUBACK, PUBREC) only once the pipeline delivered it, in the order the messages came.
 *
 * With `clean_session: false` and a fixed `client_id` the broker keeps the session while the engine
 * is away: what was not acknowledged (the process died mid-run) is sent again, flagged
 * `mqtt_duplicate`, and what was published meanwhile waits. With a clean session the broker forgets
 * everything at disconnect, as MQTT says. A nack is replayed by the runtime (`auto_replay_nacks`);
 * with replays off a nacked message is acknowledged and so dropped.
 */
import type { QoS } from 'mqtt-packet';
import {
  ErrorCode,
  Message,
  NotConnectedError,
  SvcError,
  f,
  registerInput,
  type ComponentContext,
  type Infer,
  type Logger,
  type Transaction,
} from '@svc/engine';
import { PullInput } from '@svc/engine/kit';
import { MqttDialer, checkedQos, clientFields, qosField } from './client.js';
import type { MqttSession, Received } from './session.js';

function topicsProblem(topics: readonly string[]): string | undefined {
  return topics.length > 0 && topics.every((x) => x !== '') ? undefined : 'topics must list at least one topic filter, e.g. [ sensors/# ]';
}

export const mqttInputSpec = f.object({
  ...clientFields,
  topics: f.array(f.string()).validate(topicsProblem).describe('A list of topics to consume from.'),
  qos: qosField(1, 'The level of delivery guarantee to enforce. Has options 0, 1, 2.').advanced(),
  clean_session: f.bool().default(true).advanced().describe('Set whether the connection is non-persistent.'),
  auto_replay_nacks: f
    .bool()
    .default(true)
    .describe(
      'Whether messages that are rejected (nacked) at the output level should be automatically replayed indefinitely, eventually resulting in back pressure if the cause of the rejections is persistent. If set to false these messages will instead be deleted.',
    ),
});

export type MqttInputConfig = Infer<typeof mqttInputSpec>;

/** How long `close()` waits for transactions in flight to be acked. */
const CLOSE_DRAIN_MS = 10_000;
/** At most this many messages go in one transaction. */
const MAX_BATCH = 128;
/** Received messages waiting beyond this stop reading from the broker (QoS 0 has no window). */
const HIGH_WATER = 8192;

export class MqttInput extends PullInput<Received> {
  private readonly log: Logger;
  private readonly dialer: MqttDialer;
  private readonly qos: QoS;
  private session: MqttSession | undefined;
  private paused = false;

  constructor(
    private readonly conf: MqttInputConfig,
    ctx: ComponentContext,
  ) {
    super(MAX_BATCH);
    this.log = ctx.logger;
    this.dialer = new MqttDialer(conf, `${ctx.type} input`);
    this.qos = checkedQos(this.dialer.component, 'qos', conf.qos);
    const why = topicsProblem(conf.topics);
    if (why) throw new SvcError(ErrorCode.ConfigLint, `${this.dialer.component}: ${why}`);
  }

  async connect(): Promise<void> {
    if (this.closed || this.session?.alive) return;
    this.paused = false;
    const s = await this.dialer.dial(this.conf.clean_session, (m) => {
      this.offer(m);
      if (this.queued >= HIGH_WATER && !this.paused) {
        this.paused = true;
        m.session.pause();
      }
    });
    this.session = s;
    void s.lost.then(() => {
      // A persistent session gets again what was not acknowledged: drop it here, or it comes twice.
      // A clean one never does: what came is still delivered.
      if (!this.conf.clean_session) this.offer(...this.takeQueued().filter((m) => m.session !== s));
      // Acks of this session can no longer reach the broker: closing need not wait for them.
      this.stopAwaitingAcks();
      if (!this.closed) this.log.error(`${this.dialer.component}: ${this.dialer.scrub(s.reason)}`);
      this.wakeReader();
    });
    let granted: number[];
    try {
      granted = await s.subscribe(this.conf.topics, this.qos);
    } catch (err) {
      s.destroy();
      throw err;
    }
    const refused = this.conf.topics.filter((_, i) => (granted[i] ?? 0x80) === 0x80);
    if (refused.length > 0) {
      await s.end();
      throw new NotConnectedError(`${this.dialer.component}: the broker refused the subscription to ${refused.join(', ')}`);
    }
    this.log.info(`Receiving MQTT messages from topics: ${this.conf.topics.join(', ')}`);
  }

  protected override assertConnected(): void {
    const s = this.session;
    if (!s?.alive) throw new NotConnectedError(`${this.dialer.component}: ${s ? s.reason : 'not connected'}`);
  }

  /** What waited, up to 128 messages; acked (each message of it, in arrival order) once delivered. */
  protected transaction(taken: Received[]): Transaction {
    if (this.paused && this.queued < HIGH_WATER / 2) {
      this.paused = false;
      this.session?.resume();
    }
    const batch = new Array<Message>(taken.length);
    for (let i = 0; i < taken.length; i++) {
      const p = taken[i]!.packet;
      batch[i] = new Message(typeof p.payload === 'string' ? Buffer.from(p.payload) : p.payload, {
        mqtt_duplicate: p.dup,
        mqtt_qos: p.qos,
        mqtt_retained: p.retain,
        mqtt_topic: p.topic,
        mqtt_message_id: p.messageId ?? 0,
      });
    }
    // A nack reaches here only with auto_replay_nacks off: the message is dropped, so acked.
    return this.track(batch, () => {
      for (const m of taken) if (m.session.alive) m.ack();
    });
  }

  /** Drops what was not read (the broker sends it again), waits (up to 10 s) for the acks in flight, disconnects. */
  protected async shutDown(): Promise<void> {
    this.takeQueued();
    const s = this.session;
    if (!s) return;
    if (s.alive) await this.acksSettled(CLOSE_DRAIN_MS);
    await s.end();
  }
}

registerInput('mqtt', {
  summary: 'Subscribe to topics on MQTT brokers, acknowledging each message once it was delivered.',
  description: [
    'Subscribes to `topics` (filters with `+` and `#`) at `qos`, over MQTT 3.1.1. A QoS 1 or 2 message is',
    'acknowledged (PUBACK, PUBREC) only once the pipeline delivered it, in the order the messages came; the broker',
    'sends at most its in-flight window of unacknowledged messages (Mosquitto: `max_inflight_messages`, 20 by',
    'default), so an output batch larger than that waits for its `period`. The messages waiting when the pipeline',
    'asks for more are read as one batch.',
    '',
    'With `clean_session: false` and a fixed `client_id`, the broker keeps the subscription and the messages while',
    'the engine is away, and sends again what was not acknowledged (`mqtt_duplicate: true`): at least once across',
    'a crash. With `clean_session: true` (the default) the broker forgets all that at disconnect.',
    '',
    'A `will` is registered with the broker, which publishes it when the engine goes away without disconnecting.',
    'URLs are `tcp://`, `ssl://` (TLS, `tls` settings), or `ws://` / `wss://` (MQTT over websockets, subprotocol `mqtt`).',
    '',
    'Metadata: `mqtt_duplicate`, `mqtt_qos`, `mqtt_retained`, `mqtt_topic`, `mqtt_message_id`.',
  ].join('\n'),
  config: mqttInputSpec,
  examples: [
    `input:
  mqtt:
    urls: [ tcp://127.0.0.1:1883 ]
    client_id: svc-sensors
    topics: [ sensors/+/temperature ]
    qos: 1
    clean_session: false`,
  ],
  factory: (conf, ctx) => new MqttInput(conf, ctx),
});
