/**
 * `multilevel` cache (Benthos'): other cache resources as levels, first the fastest. A get reads
 * through them in order and writes what it found into the levels before the one it came from; set
 * and delete write through all; add checks every level but the last, adds to the last (which
 * decides), then adds to the others, last to first. The levels are looked up by label when first
 * used, so they may be declared after it.
 */
import { ErrorCode, SvcError, errorMessage, f, registerCache, type Cache, type ComponentContext } from '@svc/engine';

export class MultilevelCache implements Cache {
  private caches: Cache[] | undefined;

  constructor(
    private readonly levels: string[],
    private readonly ctx: ComponentContext,
  ) {}

  private get all(): Cache[] {
    return (this.caches ??= this.levels.map((l) => this.ctx.resources.get('cache', l)));
  }

  async get(key: string): Promise<Buffer | undefined> {
    const all = this.all;
    for (let i = 0; i < all.length; i++) {
      const v = await all[i]!.get(key);
      if (v === undefined) continue;
      for (let j = 0; j < i; j++) {
        try {
          await all[j]!.set(key, v);
        } catch (err) {
          this.ctx.logger.error(`Unable to passively set key '${key}' for cache '${this.levels[j]}': ${errorMessage(err)}`);
        }
      }
      return v;
    }
    return undefined;
  }

  async set(key: string, value: Buffer, ttlMs?: number): Promise<void> {
    for (const c of this.all) await c.set(key, value, ttlMs);
  }

  async add(key: string, value: Buffer, ttlMs?: number): Promise<boolean> {
    const all = this.all;
    for (let i = 0; i < all.length - 1; i++) if ((await all[i]!.get(key)) !== undefined) return false;
    if (!(await all[all.length - 1]!.add(key, value, ttlMs))) return false;
    for (let i = all.length - 2; i >= 0; i--) if (!(await all[i]!.add(key, value, ttlMs))) return false;
    return true;
  }

  async delete(key: string): Promise<void> {
    for (const c of this.all) await c.delete(key);
  }
}

registerCache('multilevel', {
  summary: 'Combines multiple caches as levels, performing read-through and write-through operations across them.',
  description:
    'The multilevel cache is useful for reducing traffic against a remote cache by routing it through a local cache: requests only go through to the later levels when the earlier ones miss the key.',
  config: f.array(f.string()),
  examples: [
    'cache_resources:\n  - label: leveled\n    multilevel: [ hot, cold ]\n  - label: hot\n    memory:\n      default_ttl: 60s\n  - label: cold\n    redis:\n      url: redis://localhost:6379\n',
  ],
  factory: (levels, ctx) => {
    if (levels.length < 2) throw new SvcError(ErrorCode.ConfigLint, `expected at least two cache levels, found ${levels.length}`);
    return new MultilevelCache(levels, ctx);
  },
});
