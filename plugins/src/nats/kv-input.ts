/**
 * The `nats_kv` input: watches a key-value bucket (`key`, wildcards allowed) and reads each entry
 * as a message: first the latest value of every key (or, with `include_history`, every revision
 * kept), then every update as it happens.
 *
 * As Benthos: a KV watch has no acknowledgement, so a watch started again (a restart, a lost
 * connection) reads every current value again: at least once, the repeats being the same
 * key and revision. A nack is replayed by the runtime (`auto_replay_nacks`).
 */
import type { KvEntry, NatsConnection, QueuedIterator } from 'nats';
import {
  END_OF_INPUT,
  NotConnectedError,
  errorMessage,
  f,
  registerInput,
  type ComponentContext,
  type EndOfInput,
  type Infer,
  type Input,
  type Logger,
  type Transaction,
} from '@svc/engine';
import { NatsDialer, connectionFields, connectionTailFields } from './connection.js';
import { bucketField, entryMessage, openBucket } from './kv.js';

const kvInputSpec = f.object({
  ...connectionFields,
  bucket: bucketField,
  key: f.string().default('>').describe('Key to watch for updates, can include wildcards.'),
  auto_replay_nacks: f
    .bool()
    .default(true)
    .describe(
      'Whether messages that are rejected (nacked) at the output level should be automatically replayed indefinitely, eventually resulting in back pressure if the cause of the rejections is persistent. If set to `false` these messages will instead be deleted. Disabling auto replays can greatly improve memory efficiency of high throughput streams as the original shape of the data can be discarded immediately upon consumption and mutation.',
    ),
  ignore_deletes: f.bool().default(false).advanced().describe('Do not send delete markers as messages.'),
  include_history: f.bool().default(false).advanced().describe('Include all the history per key, not just the last one.'),
  meta_only: f.bool().default(false).advanced().describe('Retrieve only the metadata of the entry'),
  ...connectionTailFields,
});
type KvInputConfig = Infer<typeof kvInputSpec>;

/** The most entries in one transaction. */
const MAX_BATCH = 1024;

interface Watch {
  readonly nc: NatsConnection;
  readonly entries: QueuedIterator<KvEntry>;
  alive: boolean;
  reason: string;
}

class NatsKvInput implements Input {
  private readonly log: Logger;
  private readonly dialer: NatsDialer;
  private watch: Watch | undefined;
  private buffer: KvEntry[] = [];
  private wakeReader: (() => void) | undefined;
  private wakeWatcher: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly conf: KvInputConfig,
    ctx: ComponentContext,
  ) {
    this.log = ctx.logger;
    this.dialer = new NatsDialer(conf, `${ctx.type} input`, ctx.label);
  }

  async connect(): Promise<void> {
    if (this.closed || this.watch?.alive) return;
    const { nc, kv } = await openBucket(this.dialer, this.conf.bucket);
    let entries: QueuedIterator<KvEntry>;
    try {
      const { KvWatchInclude } = await import('nats');
      entries = await kv.watch({
        key: this.conf.key,
        ignoreDeletes: this.conf.ignore_deletes,
        headers_only: this.conf.meta_only,
        include: this.conf.include_history ? KvWatchInclude.AllHistory : KvWatchInclude.LastValue,
      });
    } catch (err) {
      await nc.close().catch(() => undefined);
      throw this.dialer.error(`cannot watch ${this.conf.key} in the KV bucket ${this.conf.bucket}`, err);
    }
    const w: Watch = { nc, entries, alive: true, reason: '' };
    this.watch = w;
    this.buffer = [];
    void nc.closed().then((err) => this.lost(w, err ? this.dialer.scrub(errorMessage(err)) : 'the connection was closed'));
    void this.pump(w);
    this.log.info(`Watching NATS KV bucket ${this.conf.bucket} for key(s) ${this.conf.key}`);
  }

  /** Moves watched entries into the buffer, holding off while it is full. */
  private async pump(w: Watch): Promise<void> {
    try {
      for await (const e of w.entries) {
        if (!w.alive || w !== this.watch) return;
        this.buffer.push(e);
        this.wakeReader?.();
        while (this.buffer.length >= MAX_BATCH && w.alive) await new Promise<void>((r) => (this.wakeWatcher = r));
      }
    } catch (err) {
      this.lost(w, this.dialer.scrub(errorMessage(err)));
      return;
    }
    this.lost(w, 'the watch ended');
  }

  private lost(w: Watch, reason: string): void {
    if (!w.alive) return;
    w.alive = false;
    w.reason = reason;
    w.entries.stop();
    void w.nc.close().catch(() => undefined);
    this.wakeReader?.();
    this.wakeWatcher?.();
  }

  async read(): Promise<Transaction | EndOfInput> {
    for (;;) {
      if (this.closed) return END_OF_INPUT;
      const w = this.watch;
      // What was watched before the connection went is still read out.
      if (this.buffer.length > 0) {
        const taken = this.buffer.length <= MAX_BATCH ? this.buffer : this.buffer.slice(0, MAX_BATCH);
        this.buffer = taken === this.buffer ? [] : this.buffer.slice(taken.length);
        this.wakeWatcher?.();
        // No acknowledgement exists for a watch: an ack is nothing, a nack is replayed by the runtime.
        return { batch: taken.map(entryMessage), ack: () => undefined };
      }
      if (!w?.alive) throw new NotConnectedError(`${this.dialer.component}: ${w ? `lost the watch: ${w.reason}` : 'not connected'}`);
      await new Promise<void>((r) => (this.wakeReader = r));
      this.wakeReader = undefined;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wakeReader?.();
    const w = this.watch;
    if (!w) return;
    w.alive = false;
    w.entries.stop();
    this.wakeWatcher?.();
    await w.nc.drain().catch(() => w.nc.close());
  }
}

registerInput('nats_kv', {
  summary: 'Watches for updates in a NATS key-value bucket.',
  description: [
    'Reads the entries of `bucket` whose keys match `key` (wildcards allowed): first the latest value of every key (all',
    'the revisions kept with `include_history`), then each update as it happens. `ignore_deletes` leaves delete',
    'markers out; `meta_only` reads entries without their values.',
    '',
    'A watch has no acknowledgement (as in Benthos): when it starts again (a restart, a lost connection) every current',
    'value is read again, so a pipeline sees each key at least once. Nacked messages are replayed (`auto_replay_nacks`).',
    '',
    'Metadata: `nats_kv_key`, `nats_kv_bucket`, `nats_kv_revision`, `nats_kv_delta`, `nats_kv_operation`',
    '(`KeyValuePutOp`, `KeyValueDeleteOp`, `KeyValuePurgeOp`) and `nats_kv_created`.',
  ].join('\n'),
  config: kvInputSpec,
  examples: [
    `input:
  nats_kv:
    urls: [ nats://127.0.0.1:4222 ]
    bucket: settings
    key: tenants.>
    ignore_deletes: true`,
  ],
  factory: (conf, ctx) => new NatsKvInput(conf, ctx),
});
