/**
 * `ttlru` cache (Benthos'): an LRU of at most `cap` entries where each entry also expires
 * `default_ttl` after it was written (hashicorp's expirable LRU): a read makes it the most recent
 * but does not extend its life; a write to a full cache evicts the least recent. Per-item ttls are
 * ignored, as in Benthos. One instance for all threads (`mainThread`).
 */
import { ErrorCode, SvcError, f, parseDuration, registerCache, type Cache } from '@svc/engine';
import { INIT_VALUES_EXAMPLE, initValuesSpec } from './init-values.js';

const spec = f.object({
  cap: f.int().default(1024).describe('The cache maximum capacity (number of entries)'),
  default_ttl: f.duration().default('5m0s').describe('The cache ttl of each element'),
  ttl: f.duration().optional().advanced().describe('Deprecated. Please use `default_ttl` field'),
  init_values: initValuesSpec,
  optimistic: f
    .bool()
    .default(false)
    .advanced()
    .describe('If true, we do not lock on read/write events (in Benthos); one thread runs every operation here, so add is atomic either way.'),
});

interface Entry {
  value: Buffer;
  expires: number;
}

export class TtlruCache implements Cache {
  private readonly items = new Map<string, Entry>();

  constructor(
    private readonly cap: number,
    private readonly ttlMs: number,
    /** Milliseconds now; tests pass their own clock. */
    private readonly now: () => number = Date.now,
  ) {}

  /** The live entry of `key` (an expired one is removed). */
  private peek(key: string): Entry | undefined {
    const e = this.items.get(key);
    if (e !== undefined && e.expires <= this.now()) {
      this.items.delete(key);
      return undefined;
    }
    return e;
  }

  get(key: string): Buffer | undefined {
    const e = this.peek(key);
    if (e === undefined) return undefined;
    this.items.delete(key);
    this.items.set(key, e);
    return e.value;
  }

  set(key: string, value: Buffer): void {
    this.items.delete(key);
    this.items.set(key, { value, expires: this.now() + this.ttlMs });
    if (this.items.size > this.cap) this.items.delete(this.items.keys().next().value!);
  }

  add(key: string, value: Buffer): boolean {
    if (this.peek(key) !== undefined) return false;
    this.set(key, value);
    return true;
  }

  delete(key: string): void {
    this.items.delete(key);
  }
}

registerCache('ttlru', {
  summary: 'Stores key/value pairs in a ttlru in-memory cache. This cache is therefore reset every time the service restarts.',
  description: [
    'A cache with a fixed number of entries, each with the cache-wide TTL `default_ttl` from when it was written. If the cache is full when an item is added, the least recently used one is evicted.',
    'The field `init_values` can be used to pre-populate the cache with any number of key/value pairs; these values can be overridden during execution.',
  ].join('\n'),
  config: spec,
  mainThread: true,
  examples: [`cache_resources:\n  - label: foocache\n    ttlru:\n      default_ttl: 5m\n      cap: 1024\n${INIT_VALUES_EXAMPLE}`],
  factory: (conf, ctx) => {
    let ttl = conf.default_ttl;
    if (conf.ttl !== undefined) {
      ctx.logger.warn('field "ttl" is deprecated, please use "default_ttl"');
      ttl = conf.ttl;
    }
    if (conf.cap <= 0) throw new SvcError(ErrorCode.ConfigLint, 'invalid ttlru cache parameter capacity: must be bigger than 0');
    const ttlMs = parseDuration(ttl);
    if (ttlMs <= 0) throw new SvcError(ErrorCode.ConfigLint, 'invalid ttlru cache parameter default_ttl: must be bigger than 0s');
    const c = new TtlruCache(conf.cap, ttlMs);
    for (const [k, v] of Object.entries(conf.init_values)) c.set(k, Buffer.from(v));
    return c;
  },
});
