/**
 * `lru` cache (Benthos'): at most `cap` entries, evicted by one of hashicorp/golang-lru's
 * algorithms as in Benthos (`standard`, `two_queues`, `arc`: see lru-algorithms.ts); a read counts
 * as a use, an `add` of an existing key does not (a peek). No expiry (a ttl is ignored, as in
 * Benthos). One instance for all threads (`mainThread`).
 */
import { ErrorCode, SvcError, f, registerCache, type Cache } from '@svc/engine';
import { INIT_VALUES_EXAMPLE, initValuesSpec } from './init-values.js';
import { Arc, SimpleLru, TwoQueues, type LruAlgorithm } from './lru-algorithms.js';

const spec = f.object({
  cap: f.int().default(1000).describe('The cache maximum capacity (number of entries)'),
  init_values: initValuesSpec,
  algorithm: f
    .enum(['standard', 'arc', 'two_queues'])
    .default('standard')
    .advanced()
    .describe(
      'the lru cache implementation: `standard` is a simple LRU cache; `arc` is an adaptive replacement cache, tracking recent evictions as well as recent usage in both the frequent and recent caches; `two_queues` tracks frequently used and recently used entries separately, so that a burst of accesses does not take out frequently used entries.',
    ),
  two_queues_recent_ratio: f
    .float()
    .optional()
    .advanced()
    .describe('is the ratio of the two_queues cache dedicated to recently added entries that have only been accessed once (default 0.25).'),
  two_queues_ghost_ratio: f
    .float()
    .optional()
    .advanced()
    .describe('is the default ratio of ghost entries kept to track entries recently evicted on two_queues cache (default 0.5).'),
  optimistic: f
    .bool()
    .default(false)
    .advanced()
    .describe('If true, we do not lock on read/write events (in Benthos); one thread runs every operation here, so add is atomic either way.'),
});

export class LruCache implements Cache {
  constructor(private readonly inner: LruAlgorithm<Buffer>) {}

  get(key: string): Buffer | undefined {
    return this.inner.get(key);
  }

  set(key: string, value: Buffer): void {
    this.inner.add(key, value);
  }

  /** As Benthos: a peek (not a use) finds the key there, else a write. */
  add(key: string, value: Buffer): boolean {
    if (this.inner.peek(key) !== undefined) return false;
    this.inner.add(key, value);
    return true;
  }

  delete(key: string): void {
    this.inner.remove(key);
  }
}

registerCache('lru', {
  summary: 'Stores key/value pairs in a lru in-memory cache. This cache is therefore reset every time the service restarts.',
  description: [
    'A fixed-size LRU cache (the eviction algorithms of hashicorp/golang-lru, as in Benthos).',
    'The field `init_values` can be used to pre-populate the cache with any number of key/value pairs; these values can be overridden during execution.',
  ].join('\n'),
  config: spec,
  mainThread: true,
  examples: [`cache_resources:\n  - label: foocache\n    lru:\n      cap: 1024\n${INIT_VALUES_EXAMPLE}`],
  factory: (conf) => {
    if (conf.cap <= 0) throw new SvcError(ErrorCode.ConfigLint, 'invalid lru cache parameter capacity: must be bigger than 0');
    const inner =
      conf.algorithm === 'arc'
        ? new Arc<Buffer>(conf.cap)
        : conf.algorithm === 'two_queues'
          ? new TwoQueues<Buffer>(conf.cap, conf.two_queues_recent_ratio ?? 0.25, conf.two_queues_ghost_ratio ?? 0.5)
          : new SimpleLru<Buffer>(conf.cap);
    const c = new LruCache(inner);
    for (const [k, v] of Object.entries(conf.init_values)) c.set(k, Buffer.from(v));
    return c;
  },
});
