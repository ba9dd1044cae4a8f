/**
 * The `nats_kv` output: puts each message into a key-value bucket under its interpolated `key`.
 * A write resolves once the bucket stored every message of it (each put is a JetStream publish
 * the server acknowledges); a put that failed fails only its message (a BatchError), so nothing
 * else is written twice. A put is idempotent for the bucket's latest value, which is what makes
 * the at-least-once redelivery of an input harmless here.
 */
import type { KV, NatsConnection } from 'nats';
import {
  NotConnectedError,
  compileInterpolation,
  errorMessage,
  f,
  maxInFlightField,
  registerOutput,
  type Batch,
  type ComponentContext,
  type Infer,
  type Interpolation,
  type Logger,
  type Output,
} from '@svc/engine';
import { throwFailures } from '../batch-outcome.js';
import { NatsDialer, connectionFields, connectionTailFields } from './connection.js';
import { bucketField, openBucket } from './kv.js';

const kvOutputSpec = f.object({
  ...connectionFields,
  bucket: bucketField,
  key: f
    .string()
    .interpolated()
    .validate((k) => (k !== '' ? undefined : 'key must be set, e.g. ${! meta("id") }'))
    .describe('The key for each message.'),
  max_in_flight: maxInFlightField(1024),
  ...connectionTailFields,
});
type KvOutputConfig = Infer<typeof kvOutputSpec>;

class NatsKvOutput implements Output {
  private readonly log: Logger;
  private readonly dialer: NatsDialer;
  private readonly key: Interpolation;
  private nc: NatsConnection | undefined;
  private kv: KV | undefined;

  constructor(
    private readonly conf: KvOutputConfig,
    ctx: ComponentContext,
  ) {
    this.log = ctx.logger;
    this.dialer = new NatsDialer(conf, `${ctx.type} output`, ctx.label);
    this.key = compileInterpolation(conf.key);
  }

  async connect(): Promise<void> {
    if (this.nc && !this.nc.isClosed()) return;
    const { nc, kv } = await openBucket(this.dialer, this.conf.bucket);
    this.nc = nc;
    this.kv = kv;
    this.log.info(`Writing NATS KV messages to bucket ${this.conf.bucket}`);
  }

  async write(batch: Batch): Promise<void> {
    const nc = this.nc;
    const kv = this.kv;
    if (!nc || nc.isClosed() || !kv) throw new NotConnectedError(`${this.dialer.component}: not connected`);
    const failures = new Map<number, Error>();
    await Promise.all(
      batch.map(async (msg, i) => {
        let key: string;
        try {
          key = this.key.value(msg, { batch, index: i });
        } catch (err) {
          failures.set(i, new Error(`${this.dialer.component}: key: ${errorMessage(err)}`));
          return;
        }
        try {
          await this.put(kv, key, msg.content);
        } catch (err) {
          const why = `${this.dialer.component}: the bucket ${this.conf.bucket} did not store key ${key}: ${this.dialer.scrub(errorMessage(err))}`;
          failures.set(i, nc.isClosed() ? new NotConnectedError(why) : new Error(why));
        }
      }),
    );
    throwFailures(batch.length, failures);
  }

  /**
   * A put issued with the others of this turn of the event loop: the client flushes what was
   * published within one microtask run as one socket write, and each write of the runtime comes
   * in a microtask run of its own, so issuing each put at once costs a write (a syscall) per
   * message. Gathered, 1,024 writes in flight cost a few socket writes.
   */
  private put(kv: KV, key: string, value: Buffer): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.gathered.push(() => kv.put(key, value).then(resolve, reject));
      if (this.gathered.length === 1) setImmediate(this.issue);
    });
  }

  private readonly gathered: (() => void)[] = [];
  private readonly issue = (): void => {
    for (const put of this.gathered.splice(0)) put();
  };

  async close(): Promise<void> {
    const nc = this.nc;
    this.nc = undefined;
    this.kv = undefined;
    if (nc && !nc.isClosed()) await nc.drain().catch(() => nc.close());
  }
}

registerOutput('nats_kv', {
  summary: 'Put messages in a NATS key-value bucket.',
  description: [
    'Puts each message into `bucket` (which must exist) under `key`, interpolated per message. A write resolves once',
    'the bucket stored every message of it; a put that failed is nacked back to the input, never lost.',
  ].join('\n'),
  config: kvOutputSpec,
  examples: [
    `output:
  nats_kv:
    urls: [ nats://127.0.0.1:4222 ]
    bucket: users
    key: users.\${! json("id") }`,
  ],
  factory: (conf, ctx) => new NatsKvOutput(conf, ctx),
});
