/**
 * The `mqtt` output: publishes each message to `topic` (interpolated per message) at `qos`. A write
 * resolves once the broker acknowledged every message of it (QoS 1: PUBACK, QoS 2: PUBCOMP; QoS 0:
 * once written to the connection, all MQTT offers); a message not acknowledged within
 * `write_timeout` fails alone (BatchError), so only it is sent again.
 */
import type { QoS } from 'mqtt-packet';
import {
  ErrorCode,
  NotConnectedError,
  SvcError,
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
  type Output,
} from '@svc/engine';
import { Semaphore, ThrottledLog } from '@svc/engine/kit';
import { throwFailures } from '../batch-outcome.js';
import { MqttDialer, checkedQos, clientFields, qosField } from './client.js';
import type { MqttSession } from './session.js';

const mqttOutputSpec = f.object({
  ...clientFields,
  topic: f
    .string()
    .interpolated()
    .validate((t) => (t !== '' ? undefined : 'topic must name the topic to publish to'))
    .describe('The topic to publish messages to.'),
  qos: qosField(1, 'The QoS value to set for each message. Has options 0, 1, 2.'),
  write_timeout: f.duration().default('3s').describe('The maximum amount of time to wait to write data before the attempt is abandoned.'),
  retained: f.bool().default(false).describe('Set message as retained on the topic.'),
  retained_interpolated: f
    .string()
    .interpolated()
    .optional()
    .advanced()
    .describe(
      'Override the value of `retained` with an interpolable value, this allows it to be dynamically set based on message contents. The value must resolve to either `true` or `false`.',
    ),
  max_in_flight: maxInFlightField(64),
});

type MqttOutputConfig = Infer<typeof mqttOutputSpec>;

/** Go's strconv.ParseBool, which Benthos reads `retained_interpolated` with. */
const BOOLS: Record<string, boolean> = {
  '1': true,
  t: true,
  T: true,
  TRUE: true,
  true: true,
  True: true,
  '0': false,
  f: false,
  F: false,
  FALSE: false,
  false: false,
  False: false,
};

class MqttOutput implements Output {
  private readonly log: Logger;
  private readonly badRetained: ThrottledLog;
  private readonly dialer: MqttDialer;
  private readonly topic: Interpolation;
  private readonly retained: Interpolation | undefined;
  private readonly writeTimeoutMs: number;
  private readonly qos: QoS;
  /** Messages awaiting the broker's acknowledgement, across writes: at most max_in_flight (Benthos writes message by message). */
  private readonly slots: Semaphore;
  private session: MqttSession | undefined;

  constructor(
    private readonly conf: MqttOutputConfig,
    ctx: ComponentContext,
  ) {
    this.log = ctx.logger;
    this.badRetained = new ThrottledLog(ctx.logger, 30_000);
    this.dialer = new MqttDialer(conf, `${ctx.type} output`);
    this.topic = compileInterpolation(conf.topic);
    this.retained = conf.retained_interpolated ? compileInterpolation(conf.retained_interpolated) : undefined;
    this.writeTimeoutMs = parseDuration(conf.write_timeout);
    this.qos = checkedQos(this.dialer.component, 'qos', conf.qos);
    this.slots = new Semaphore(Math.max(1, conf.max_in_flight));
    if (conf.topic === '') throw new SvcError(ErrorCode.ConfigLint, `${this.dialer.component}: topic must name the topic to publish to`);
  }

  async connect(): Promise<void> {
    if (this.session?.alive) return;
    const s = await this.dialer.dial(true);
    this.session = s;
    void s.lost.then(() => {
      if (this.session === s) this.log.error(`${this.dialer.component}: ${this.dialer.scrub(s.reason)}`);
    });
    this.log.info(`Writing MQTT messages to topic: ${this.conf.topic}`);
  }

  /** `retained`, or what `retained_interpolated` says for message i (an unreadable value logs and keeps `retained`). */
  private retain(batch: Batch, i: number): boolean {
    if (!this.retained) return this.conf.retained;
    let text: string;
    try {
      text = this.retained.value(batch[i]!, { batch, index: i });
    } catch (err) {
      this.badRetained.error(`${this.dialer.component}: retained interpolation error: ${errorMessage(err)}`);
      return this.conf.retained;
    }
    const v = BOOLS[text];
    if (v === undefined) this.badRetained.error(`${this.dialer.component}: error parsing boolean value from retained flag: "${text}"`);
    return v ?? this.conf.retained;
  }

  async write(batch: Batch): Promise<void> {
    const s = this.session;
    if (!s?.alive) throw new NotConnectedError(`${this.dialer.component}: ${s ? s.reason : 'not connected'}`);
    const qos = this.qos;
    const failures = new Map<number, Error>();
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < batch.length; i++) {
      let topic: string;
      try {
        topic = this.topic.value(batch[i]!, { batch, index: i });
      } catch (err) {
        failures.set(i, new Error(`${this.dialer.component}: topic interpolation error: ${errorMessage(err)}`));
        continue;
      }
      const retain = this.retain(batch, i);
      const slot = this.slots.acquire();
      if (slot) await slot;
      sends.push(
        s
          .publish(topic, batch[i]!.content, qos, retain, this.writeTimeoutMs)
          .catch((err: Error) => {
            failures.set(i, err instanceof NotConnectedError ? err : new Error(`${this.dialer.component}: ${errorMessage(err)}`));
          })
          .finally(() => this.slots.release()),
      );
    }
    await Promise.all(sends);
    throwFailures(batch.length, failures);
  }

  async close(): Promise<void> {
    const s = this.session;
    this.session = undefined;
    if (s?.alive) await s.end();
  }
}

registerOutput('mqtt', {
  summary: 'Pushes messages to an MQTT broker.',
  description: [
    'Publishes each message to `topic` (interpolated per message) at `qos`, over MQTT 3.1.1, retained when',
    '`retained` (or `retained_interpolated`, read per message as `true` or `false`) says so. A write resolves once',
    'the broker acknowledged each message (QoS 1: PUBACK, QoS 2: PUBCOMP; QoS 0 has no acknowledgement: once',
    'written); a message not acknowledged within `write_timeout` is nacked back to the input, never lost. At most',
    '`max_in_flight` messages await their acknowledgement at once, across writes (Benthos writes message by message).',
    'URLs are `tcp://`, `ssl://` (TLS, `tls` settings), or `ws://` / `wss://` (MQTT over websockets, subprotocol `mqtt`).',
  ].join('\n'),
  config: mqttOutputSpec,
  examples: [
    `output:
  mqtt:
    urls: [ tcp://127.0.0.1:1883 ]
    client_id: svc-alerts
    topic: alerts/\${! meta("site") }
    qos: 2
    max_in_flight: 256`,
  ],
  factory: (conf, ctx) => new MqttOutput(conf, ctx),
});
