/**
 * `lru` cache (Benthos'): at most `cap` entries; a read or write makes an entry the most recent,
 * and a write to a full cache evicts the least recent. No expiry (a ttl is ignored, as in Benthos).
 * The `standard` algorithm (hashicorp's LRU, which Benthos uses); `arc` and `two_queues` are
 * refused at start rather than run as something else. One instance for all threads (`mainThread`).
 */
import { ErrorCode, SvcError, f, registerCache, type Cache } from '@svc/engine';
import { INIT_VALUES_EXAMPLE, initValuesSpec } from './init-values.js';

const spec = f.object({
  cap: f.int().default(1000).describe('The cache maximum capacity (number of entries)'),
  init_values: initValuesSpec,
  algorithm: f
    .enum(['standard', 'arc', 'two_queues'])
    .default('standard')
    .advanced()
    .describe('the lru cache implementation: `standard` is a simple LRU cache (`arc` and `two_queues` are not implemented here and refused at start).'),
  two_queues_recent_ratio: f.float().optional().advanced().describe('For `two_queues` (not implemented here).'),
  two_queues_ghost_ratio: f.float().optional().advanced().describe('For `two_queues` (not implemented here).'),
  optimistic: f
    .bool()
    .default(false)
    .advanced()
    .describe('If true, we do not lock on read/write events (in Benthos); one thread runs every operation here, so add is atomic either way.'),
});

/** Least recent first: a Map keeps insertion order, and a use re-inserts. */
export class LruCache implements Cache {
  private readonly items = new Map<string, Buffer>();

  constructor(private readonly cap: number) {}

  private put(key: string, value: Buffer): void {
    this.items.delete(key);
    this.items.set(key, value);
    if (this.items.size > this.cap) this.items.delete(this.items.keys().next().value!);
  }

  get(key: string): Buffer | undefined {
    const v = this.items.get(key);
    if (v !== undefined) {
      this.items.delete(key);
      this.items.set(key, v);
    }
    return v;
  }

  set(key: string, value: Buffer): void {
    this.put(key, value);
  }

  /** As Benthos: a peek (not a use) finds the key there, else a write. */
  add(key: string, value: Buffer): boolean {
    if (this.items.has(key)) return false;
    this.put(key, value);
    return true;
  }

  delete(key: string): void {
    this.items.delete(key);
  }
}

registerCache('lru', {
  summary: 'Stores key/value pairs in a lru in-memory cache. This cache is therefore reset every time the service restarts.',
  description: [
    'A fixed-size LRU cache: reading or writing an entry makes it the most recently used; writing to a full cache evicts the least recently used one.',
    'The field `init_values` can be used to pre-populate the cache with any number of key/value pairs; these values can be overridden during execution.',
  ].join('\n'),
  config: spec,
  mainThread: true,
  examples: [`cache_resources:\n  - label: foocache\n    lru:\n      cap: 1024\n${INIT_VALUES_EXAMPLE}`],
  factory: (conf) => {
    if (conf.cap <= 0) throw new SvcError(ErrorCode.ConfigLint, 'invalid lru cache parameter capacity: must be bigger than 0');
    if (conf.algorithm !== 'standard') {
      throw new SvcError(ErrorCode.ConfigLint, `lru algorithm "${conf.algorithm}" is not implemented here: use algorithm: standard`);
    }
    const c = new LruCache(conf.cap);
    for (const [k, v] of Object.entries(conf.init_values)) c.set(k, Buffer.from(v));
    return c;
  },
});
