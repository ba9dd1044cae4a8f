/**
 * The `nats_kv` processor: one key-value operation per message on `bucket`, the messages of a
 * batch in order (an `update` after a `put` of the same key sees it). `get` and `get_revision`
 * replace the message with the entry; `create`, `put`, `update`, `delete` and `purge` keep it and
 * add the metadata of what was written; `history` and `keys` replace it with a JSON array. A failed
 * operation flags its message with the error and passes it on, as Benthos.
 *
 * One connection serves every pipeline thread (`mainThread`); it is opened at the first batch
 * and again after it was lost.
 */
import type { KV, KvEntry } from 'nats';
import {
  Message,
  compileInterpolation,
  errorMessage,
  f,
  parseDuration,
  registerProcessor,
  type Batch,
  type ComponentContext,
  type Infer,
  type Interpolation,
  type Processor,
} from '@svc/engine';
import { NatsDialer, connectionFields, connectionTailFields } from './connection.js';
import { bucketField, entryMessage, LazyBucket, operationName } from './kv.js';

const OPERATIONS = ['get', 'get_revision', 'create', 'put', 'update', 'delete', 'purge', 'history', 'keys'] as const;
type Operation = (typeof OPERATIONS)[number];
const WITH_REVISION: readonly Operation[] = ['get_revision', 'update'];

const kvProcessorSpec = f
  .object({
    ...connectionFields,
    bucket: bucketField,
    operation: f
      .enum(OPERATIONS)
      .describe(
        'The operation to perform on the KV bucket: get, get_revision, create, put, update (only if `revision` is the latest), delete (keeps history), purge (drops history), history (an array of the revisions) or keys (an array of the keys matching `key`).',
      ),
    key: f
      .string()
      .interpolated()
      .validate((k) => (k !== '' ? undefined : "'key' must be set to a non-empty string"))
      .describe('The key for each message. Supports wildcards for the `history` and `keys` operations.'),
    revision: f
      .string()
      .interpolated()
      .optional()
      .advanced()
      .describe('The revision of the key to operate on. Used for `get_revision` and `update` operations.'),
    timeout: f.duration().default('5s').advanced().describe('The maximum period to wait on an operation before aborting and returning an error.'),
    ...connectionTailFields,
  })
  .validate((c) => {
    const needs = WITH_REVISION.includes(c.operation);
    if (needs && c.revision === undefined) return `'revision' must be set when operation is '${c.operation}'`;
    if (!needs && c.revision !== undefined) return `'revision' cannot be set when operation is '${c.operation}'`;
    return undefined;
  });
type KvProcessorConfig = Infer<typeof kvProcessorSpec>;

class NatsKvProcessor implements Processor {
  private readonly dialer: NatsDialer;
  private readonly key: Interpolation;
  private readonly revision: Interpolation | undefined;
  private readonly timeoutMs: number;
  private readonly lazy: LazyBucket;

  constructor(
    private readonly conf: KvProcessorConfig,
    ctx: ComponentContext,
  ) {
    this.dialer = new NatsDialer(conf, `${ctx.type} processor`, ctx.label);
    this.lazy = new LazyBucket(this.dialer, conf.bucket);
    this.key = compileInterpolation(conf.key);
    this.revision = conf.revision === undefined ? undefined : compileInterpolation(conf.revision);
    this.timeoutMs = parseDuration(conf.timeout);
  }

  private bucket(): Promise<KV> {
    return this.lazy.kv();
  }

  async process(batch: Batch): Promise<Batch[]> {
    const out: Message[] = [];
    for (let i = 0; i < batch.length; i++) {
      const msg = batch[i]!;
      try {
        out.push(await this.within(this.run(batch, i)));
      } catch (err) {
        msg.setError(new Error(`${this.dialer.component}: ${this.dialer.scrub(errorMessage(err))}`));
        out.push(msg);
      }
    }
    return [out];
  }

  private async within<T>(p: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        p,
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${this.conf.timeout}`)), this.timeoutMs))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async run(batch: Batch, index: number): Promise<Message> {
    const msg = batch[index]!;
    const key = this.key.value(msg, { batch, index });
    const kv = await this.bucket();
    const written = (revision: number, op: KvEntry['operation']) => {
      const m = msg.copy();
      m.setMeta('nats_kv_key', key);
      m.setMeta('nats_kv_bucket', this.conf.bucket);
      m.setMeta('nats_kv_revision', revision);
      m.setMeta('nats_kv_operation', operationName(op));
      return m;
    };
    switch (this.conf.operation) {
      case 'get':
      case 'get_revision': {
        const e = await kv.get(key, this.conf.operation === 'get_revision' ? { revision: this.revisionOf(batch, index) } : undefined);
        if (!e || (this.conf.operation === 'get' && e.operation !== 'PUT')) throw new Error('nats: key not found');
        return entryMessage(e);
      }
      case 'create':
        return written(await kv.create(key, msg.content), 'PUT');
      case 'put':
        return written(await kv.put(key, msg.content), 'PUT');
      case 'update':
        return written(await kv.update(key, msg.content, this.revisionOf(batch, index)), 'PUT');
      case 'delete':
        await kv.delete(key);
        return written(0, 'DEL');
      case 'purge':
        await kv.purge(key);
        return written(0, 'PURGE');
      case 'history': {
        const records: unknown[] = [];
        for await (const e of await kv.history({ key })) {
          records.push({
            key: e.key,
            // Go's encoding/json writes the []byte value as base64, as Benthos' message shows it.
            value: Buffer.from(e.value).toString('base64'),
            bucket: e.bucket,
            revision: e.revision,
            delta: e.delta ?? 0,
            operation: operationName(e.operation),
            created: e.created.toISOString(),
          });
        }
        const m = new Message(Buffer.alloc(0));
        m.setJson(records);
        return m;
      }
      case 'keys': {
        const keys: string[] = [];
        for await (const k of await kv.keys(key)) keys.push(k);
        const m = new Message(Buffer.alloc(0), { nats_kv_bucket: this.conf.bucket });
        m.setJson(keys);
        return m;
      }
    }
  }

  private revisionOf(batch: Batch, index: number): number {
    const text = this.revision!.value(batch[index]!, { batch, index });
    if (!/^\d+$/.test(text)) throw new Error(`revision "${text}" is not a revision number`);
    return Number(text);
  }

  close(): Promise<void> {
    return this.lazy.close();
  }
}

registerProcessor('nats_kv', {
  summary: 'Perform operations on a NATS key-value bucket.',
  description: [
    'Runs `operation` on `bucket` for each message, in order, with the interpolated `key` (and `revision` for',
    '`get_revision` and `update`):',
    '',
    '- `get`, `get_revision`: the message becomes the entry, with `nats_kv_key`, `nats_kv_bucket`, `nats_kv_revision`,',
    '  `nats_kv_delta`, `nats_kv_operation` and `nats_kv_created`;',
    '- `create` (fails when the key exists), `put`, `update` (fails unless `revision` is the latest), `delete`, `purge`:',
    '  the message is kept, with `nats_kv_key`, `nats_kv_bucket`, `nats_kv_revision` and `nats_kv_operation`;',
    '- `history`: an array of objects `key`, `value` (base64), `bucket`, `revision`, `delta`, `operation`, `created`;',
    '- `keys`: an array of the keys matching `key` (wildcards allowed), with `nats_kv_bucket`.',
    '',
    'A failed operation (a missing key, a stale revision, `timeout` passed) flags the message with the error.',
  ].join('\n'),
  config: kvProcessorSpec,
  mainThread: true,
  examples: [
    `# The stored profile of each event's user, merged into the event.
pipeline:
  processors:
    - branch:
        processors:
          - nats_kv:
              urls: [ nats://127.0.0.1:4222 ]
              bucket: profiles
              operation: get
              key: \${! json("user_id") }
        result_map: root.profile = this`,
  ],
  factory: (conf, ctx: ComponentContext) => new NatsKvProcessor(conf, ctx),
});
