/**
 * The three eviction algorithms of Benthos' `lru` cache, as hashicorp/golang-lru v2 implements them
 * (Benthos uses that package): `standard` (a plain LRU), `two_queues` (2Q: entries seen once wait
 * in a recent queue, entries seen again move to a frequent one, and recently evicted keys are
 * remembered as ghosts) and `arc` (adaptive replacement: recent and frequent lists with ghost lists
 * that shift the balance between them). Each behaves like its Go counterpart, so a capacity-bound
 * cache keeps the same keys on svc and on Benthos.
 */

/** The operations the `lru` cache runs on an algorithm. */
export interface LruAlgorithm<V> {
  /** The value, counted as a use. */
  get(key: string): V | undefined;
  /** The value, not counted as a use. */
  peek(key: string): V | undefined;
  add(key: string, value: V): void;
  remove(key: string): void;
}

/** hashicorp's simplelru: a Map in use order (least recent first), at most `size` entries. */
export class SimpleLru<V> implements LruAlgorithm<V> {
  private readonly items = new Map<string, V>();

  constructor(private readonly size: number) {}

  get len(): number {
    return this.items.size;
  }

  contains(key: string): boolean {
    return this.items.has(key);
  }

  get(key: string): V | undefined {
    if (!this.items.has(key)) return undefined;
    const v = this.items.get(key) as V;
    this.items.delete(key);
    this.items.set(key, v);
    return v;
  }

  peek(key: string): V | undefined {
    return this.items.get(key);
  }

  add(key: string, value: V): void {
    this.items.delete(key);
    this.items.set(key, value);
    if (this.items.size > this.size) this.removeOldest();
  }

  remove(key: string): boolean {
    return this.items.delete(key);
  }

  /** Removes the least recently used entry; its key. */
  removeOldest(): string | undefined {
    const k = this.items.keys().next();
    if (k.done) return undefined;
    this.items.delete(k.value);
    return k.value;
  }
}

/** hashicorp's TwoQueueCache. */
export class TwoQueues<V> implements LruAlgorithm<V> {
  private readonly recentSize: number;
  private readonly recent: SimpleLru<V>;
  private readonly frequent: SimpleLru<V>;
  private readonly recentEvict: SimpleLru<true>;

  constructor(
    private readonly size: number,
    recentRatio: number,
    ghostRatio: number,
  ) {
    if (recentRatio < 0 || recentRatio > 1) throw new Error('invalid recent ratio');
    if (ghostRatio < 0 || ghostRatio > 1) throw new Error('invalid ghost ratio');
    this.recentSize = Math.trunc(size * recentRatio);
    const evictSize = Math.trunc(size * ghostRatio);
    if (evictSize <= 0) throw new Error('must provide a positive size');
    this.recent = new SimpleLru(size);
    this.frequent = new SimpleLru(size);
    this.recentEvict = new SimpleLru(evictSize);
  }

  get(key: string): V | undefined {
    const f = this.frequent.get(key);
    if (f !== undefined || this.frequent.contains(key)) return f;
    if (this.recent.contains(key)) {
      const v = this.recent.peek(key) as V;
      this.recent.remove(key);
      this.frequent.add(key, v);
      return v;
    }
    return undefined;
  }

  peek(key: string): V | undefined {
    return this.frequent.contains(key) ? this.frequent.peek(key) : this.recent.peek(key);
  }

  add(key: string, value: V): void {
    if (this.frequent.contains(key)) return this.frequent.add(key, value);
    if (this.recent.contains(key)) {
      this.recent.remove(key);
      return this.frequent.add(key, value);
    }
    if (this.recentEvict.contains(key)) {
      this.ensureSpace(true);
      this.recentEvict.remove(key);
      return this.frequent.add(key, value);
    }
    this.ensureSpace(false);
    this.recent.add(key, value);
  }

  private ensureSpace(recentEvict: boolean): void {
    const recentLen = this.recent.len;
    if (recentLen + this.frequent.len < this.size) return;
    if (recentLen > 0 && (recentLen > this.recentSize || (recentLen === this.recentSize && !recentEvict))) {
      const k = this.recent.removeOldest();
      if (k !== undefined) this.recentEvict.add(k, true);
      return;
    }
    this.frequent.removeOldest();
  }

  remove(key: string): void {
    if (this.frequent.remove(key)) return;
    if (this.recent.remove(key)) return;
    this.recentEvict.remove(key);
  }
}

/** hashicorp's ARCCache. */
export class Arc<V> implements LruAlgorithm<V> {
  /** The target size of t1 (the recent list). */
  private p = 0;
  private readonly t1: SimpleLru<V>;
  private readonly b1: SimpleLru<true>;
  private readonly t2: SimpleLru<V>;
  private readonly b2: SimpleLru<true>;

  constructor(private readonly size: number) {
    this.t1 = new SimpleLru(size);
    this.b1 = new SimpleLru(size);
    this.t2 = new SimpleLru(size);
    this.b2 = new SimpleLru(size);
  }

  get(key: string): V | undefined {
    if (this.t1.contains(key)) {
      const v = this.t1.peek(key) as V;
      this.t1.remove(key);
      this.t2.add(key, v);
      return v;
    }
    return this.t2.get(key);
  }

  peek(key: string): V | undefined {
    return this.t1.contains(key) ? this.t1.peek(key) : this.t2.peek(key);
  }

  add(key: string, value: V): void {
    if (this.t1.contains(key)) {
      this.t1.remove(key);
      return this.t2.add(key, value);
    }
    if (this.t2.contains(key)) return this.t2.add(key, value);
    if (this.b1.contains(key)) {
      const b1 = this.b1.len;
      const b2 = this.b2.len;
      const delta = b2 > b1 ? Math.trunc(b2 / b1) : 1;
      this.p = this.p + delta >= this.size ? this.size : this.p + delta;
      if (this.t1.len + this.t2.len >= this.size) this.replace(false);
      this.b1.remove(key);
      return this.t2.add(key, value);
    }
    if (this.b2.contains(key)) {
      const b1 = this.b1.len;
      const b2 = this.b2.len;
      const delta = b1 > b2 ? Math.trunc(b1 / b2) : 1;
      this.p = delta >= this.p ? 0 : this.p - delta;
      if (this.t1.len + this.t2.len >= this.size) this.replace(true);
      this.b2.remove(key);
      return this.t2.add(key, value);
    }
    if (this.t1.len + this.t2.len >= this.size) this.replace(false);
    if (this.b1.len > this.size - this.p) this.b1.removeOldest();
    if (this.b2.len > this.p) this.b2.removeOldest();
    this.t1.add(key, value);
  }

  private replace(b2ContainsKey: boolean): void {
    const t1 = this.t1.len;
    if (t1 > 0 && (t1 > this.p || (t1 === this.p && b2ContainsKey))) {
      const k = this.t1.removeOldest();
      if (k !== undefined) this.b1.add(k, true);
    } else {
      const k = this.t2.removeOldest();
      if (k !== undefined) this.b2.add(k, true);
    }
  }

  remove(key: string): void {
    if (this.t1.remove(key)) return;
    if (this.t2.remove(key)) return;
    if (this.b1.remove(key)) return;
    this.b2.remove(key);
  }
}
