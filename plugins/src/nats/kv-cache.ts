/**
 * The `nats_kv` cache: items are the latest values of a key-value bucket. `add` is a KV create
 * (refused when the key holds a value), `delete` a KV delete (history kept); a ttl is ignored, as
 * in Benthos (the bucket's own max age applies). One connection serves every pipeline thread
 * (`mainThread`), opened at the first operation and again after it was lost.
 */
import type { KV, NatsConnection } from 'nats';
import { errorMessage, f, registerCache, type Cache, type ComponentContext, type Infer } from '@svc/engine';
import { NatsDialer, connectionFields, connectionTailFields } from './connection.js';
import { bucketField, openBucket } from './kv.js';

const kvCacheSpec = f.object({ ...connectionFields, bucket: bucketField, ...connectionTailFields });
type KvCacheConfig = Infer<typeof kvCacheSpec>;

class NatsKvCache implements Cache {
  private readonly dialer: NatsDialer;
  private open: Promise<{ nc: NatsConnection; kv: KV }> | undefined;

  constructor(
    private readonly conf: KvCacheConfig,
    ctx: ComponentContext,
  ) {
    this.dialer = new NatsDialer(conf, `${ctx.type} cache`, ctx.label);
  }

  private async bucket(): Promise<KV> {
    const current = this.open;
    if (current) {
      const b = await current.catch(() => undefined);
      if (b && !b.nc.isClosed()) return b.kv;
      if (this.open === current) this.open = undefined;
    }
    this.open ??= openBucket(this.dialer, this.conf.bucket);
    return (await this.open).kv;
  }

  private async op<T>(what: string, run: (kv: KV) => Promise<T>): Promise<T> {
    const kv = await this.bucket();
    try {
      return await run(kv);
    } catch (err) {
      throw this.dialer.error(what, err);
    }
  }

  get(key: string): Promise<Buffer | undefined> {
    return this.op(`cannot get ${key}`, async (kv) => {
      const e = await kv.get(key);
      return e && e.operation === 'PUT' ? Buffer.from(e.value) : undefined;
    });
  }

  set(key: string, value: Buffer): Promise<void> {
    return this.op(`cannot set ${key}`, async (kv) => void (await kv.put(key, value)));
  }

  add(key: string, value: Buffer): Promise<boolean> {
    return this.op(`cannot add ${key}`, async (kv) => {
      try {
        await kv.create(key, value);
        return true;
      } catch (err) {
        if (/wrong last sequence|key exists/i.test(errorMessage(err))) return false;
        throw err;
      }
    });
  }

  delete(key: string): Promise<void> {
    return this.op(`cannot delete ${key}`, (kv) => kv.delete(key));
  }

  async close(): Promise<void> {
    const open = this.open;
    this.open = undefined;
    const b = await open?.catch(() => undefined);
    if (b && !b.nc.isClosed()) await b.nc.drain().catch(() => b.nc.close());
  }
}

registerCache('nats_kv', {
  summary: 'Cache key/values in a NATS key-value bucket.',
  description: [
    'Items are the latest values of `bucket` (which must exist): `add` creates a key only when it holds no value, `delete`',
    'deletes it (its history is kept). A ttl is ignored, as in Benthos: give the bucket a max age instead.',
  ].join('\n'),
  config: kvCacheSpec,
  mainThread: true,
  examples: ['cache_resources:\n  - label: seen\n    nats_kv:\n      urls: [ nats://127.0.0.1:4222 ]\n      bucket: dedupe\n'],
  factory: (conf, ctx) => new NatsKvCache(conf, ctx),
});
