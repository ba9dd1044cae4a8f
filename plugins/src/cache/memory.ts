/**
 * `memory` cache (Benthos'): a map in memory; each item expires `default_ttl` after it was last
 * written (or its own ttl), and expired items are removed by a compaction that a write starts at
 * most every `compaction_interval` (empty: no expiry at all). Behaves as Benthos' does, quirks
 * included: a get never returns an expired item, but an `add` of a key whose item expired and was
 * not yet compacted away finds it still there. `init_values` never expire. One instance for all
 * pipeline threads (`mainThread`).
 */
import { f, parseDuration, registerCache, type Cache, type Infer } from '@svc/engine';
import { INIT_VALUES_EXAMPLE, initValuesSpec } from './init-values.js';

const spec = f.object({
  default_ttl: f
    .duration()
    .default('5m')
    .describe('The default TTL of each item. After this period an item will be eligible for removal during the next compaction.'),
  compaction_interval: f
    .duration()
    .default('60s')
    .describe(
      'The period of time to wait before each compaction, at which point expired items are removed. This field can be set to an empty string in order to disable compactions/expiry entirely.',
    ),
  init_values: initValuesSpec,
  shards: f
    .int()
    .default(1)
    .advanced()
    .describe('A number of logical shards to spread keys across (Benthos spreads its locks); accepted for compatibility: one map serves every key here.'),
});

interface Item {
  value: Buffer;
  /** Epoch ms; 0: never (an init value). */
  expires: number;
}

export class MemoryCache implements Cache {
  private readonly items = new Map<string, Item>();
  private lastCompaction: number;

  constructor(
    private readonly defaultTtlMs: number,
    /** 0: no expiry. */
    private readonly compactionMs: number,
    init: Record<string, string>,
    /** Milliseconds now; tests pass their own clock. */
    private readonly now: () => number = Date.now,
  ) {
    this.lastCompaction = now();
    for (const [k, v] of Object.entries(init)) this.items.set(k, { value: Buffer.from(v), expires: 0 });
  }

  private expired(i: Item, now: number): boolean {
    return this.compactionMs !== 0 && i.expires !== 0 && i.expires < now;
  }

  private compaction(now: number): void {
    if (this.compactionMs === 0 || now - this.lastCompaction < this.compactionMs) return;
    for (const [k, v] of this.items) if (this.expired(v, now)) this.items.delete(k);
    this.lastCompaction = now;
  }

  get(key: string): Buffer | undefined {
    const i = this.items.get(key);
    if (i === undefined || this.expired(i, this.now())) return undefined;
    return i.value;
  }

  set(key: string, value: Buffer, ttlMs?: number): void {
    const now = this.now();
    this.compaction(now);
    this.items.set(key, { value, expires: now + (ttlMs ?? this.defaultTtlMs) });
  }

  add(key: string, value: Buffer, ttlMs?: number): boolean {
    if (this.items.has(key)) return false;
    const now = this.now();
    this.compaction(now);
    this.items.set(key, { value, expires: now + (ttlMs ?? this.defaultTtlMs) });
    return true;
  }

  delete(key: string): void {
    this.compaction(this.now());
    this.items.delete(key);
  }
}

export function memoryCache(conf: Infer<typeof spec>): MemoryCache {
  return new MemoryCache(parseDuration(conf.default_ttl), conf.compaction_interval === '' ? 0 : parseDuration(conf.compaction_interval), conf.init_values);
}

registerCache('memory', {
  summary:
    'Stores key/value pairs in a map held in memory. This cache is therefore reset every time the service restarts. Each item in the cache has a TTL set from the moment it was last edited, after which it will be removed during the next compaction.',
  description: [
    'The compaction interval determines how often the cache is cleared of expired items, and this process is only triggered on writes to the cache.',
    'Item expiry can be disabled entirely by setting the `compaction_interval` to an empty string.',
    '',
    'The field `init_values` can be used to prepopulate the memory cache with any number of key/value pairs which are exempt from TTLs.',
    'These values can be overridden during execution, at which point the configured TTL is respected as usual.',
    '',
    'One cache serves every pipeline thread: on a worker thread each operation is handed to the main thread.',
  ].join('\n'),
  config: spec,
  mainThread: true,
  examples: [`cache_resources:\n  - label: foocache\n    memory:\n      default_ttl: 60s\n${INIT_VALUES_EXAMPLE}`],
  factory: (conf) => memoryCache(conf),
});
