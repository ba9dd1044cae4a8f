/**
 * The `nats_kv` cache: items are the latest values of a key-value bucket. `add` is a KV create
 * (refused when the key holds a value), `delete` a KV delete (history kept); a ttl is ignored, as
 * in Benthos (the bucket's own max age applies). One connection serves every pipeline thread
 * (`mainThread`), opened at the first operation and again after it was lost.
 */
import type { KV } from 'nats';
import { errorMessage, f, registerCache, type Cache, type ComponentContext, type Infer } from '@svc/engine';
import { NatsDialer, connectionFields, connectionTailFields } from './connection.js';
import { bucketField, LazyBucket } from './kv.js';

const kvCacheSpec = f.object({ ...connectionFields, bucket: bucketField, ...connectionTailFields });
type KvCacheConfig = Infer<typeof kvCacheSpec>;

class NatsKvCache implements Cache {
  private readonly dialer: NatsDialer;
  private readonly lazy: LazyBucket;

  constructor(conf: KvCacheConfig, ctx: ComponentContext) {
    this.dialer = new NatsDialer(conf, `${ctx.type} cache`, ctx.label);
    this.lazy = new LazyBucket(this.dialer, conf.bucket);
  }

  private bucket(): Promise<KV> {
    return this.lazy.kv();
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

  close(): Promise<void> {
    return this.lazy.close();
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
