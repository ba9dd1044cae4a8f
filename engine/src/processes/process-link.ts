/**
 * A child's line to the primary when a stream runs as several processes (`processes: N`): what
 * every process must see alike lives with the primary, and a child reaches it here.
 *
 * - `take`: units taken from one of the primary's window tables (a rate limit or quota counted
 *   once for every process; see `process-window-table.ts`).
 * - `ReplicatedMap`: a map every process holds a copy of (reads are local and synchronous); a
 *   write goes to the primary, which applies it and hands it to every child, and resolves once
 *   every live child applied it, so the next request in any process sees it.
 * - `turn`, `breaker`, `ProcessStore`: a load balancer's counter, a circuit breaker and a bounded
 *   store (the response cache) kept by the primary, one for the node.
 * - `broadcast`: runs a topic's handlers in every other child (a reload) and resolves once they ran.
 * - `metrics`: the Prometheus text of every child, aggregated by the primary.
 *
 * {@link processLink} is undefined in a single process: callers keep their in-process state then.
 */
import cluster from 'node:cluster';
import type { RateBreakerConfig } from '../kit/rate-breaker.js';
import { type Ask, type BreakerAnswer, type LinkMessage, type MapEntry, isLinkMessage, mapTopic } from './link-messages.js';

/** An ask the primary has not answered in this long fails (the primary is gone or stuck). */
const ASK_TIMEOUT_MS = 15_000;

type Handler = (payload: unknown) => unknown;

/** What the primary's window table granted: `granted` units (0 when blocked), what is left, when the window ends. */
export interface TakeResult {
  blocked: boolean;
  granted: number;
  remaining: number;
  resetMs: number;
}

export class ProcessLink {
  private asked = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly outbox: Array<{ id: number; ask: Ask }> = [];

  constructor() {
    process.on('message', (m: unknown) => {
      if (isLinkMessage(m)) this.onMessage(m);
    });
    this.send({ svc: 'link', t: 'hello' });
  }

  /**
   * Asks the primary; resolves with its answer. With `now`, the asks of this turn so far go at
   * once (in order), before whatever the caller does next reaches anyone else.
   */
  ask<T>(ask: Ask, now = false): Promise<T> {
    const id = ++this.asked;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the primary process did not answer a ${ask.op} within ${ASK_TIMEOUT_MS} ms`));
      }, ASK_TIMEOUT_MS);
      timer.unref();
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.outbox.push({ id, ask });
      if (now) this.flush();
      else if (this.outbox.length === 1) setImmediate(this.flush);
    });
  }

  /** Sends the asks of this turn as one message. */
  private readonly flush = (): void => {
    const asks = this.outbox.splice(0);
    if (asks.length > 0) this.send({ svc: 'link', t: 'asks', asks });
  };

  /**
   * Takes `units` (a lease, at least `cost`) from `key`'s window in the primary's window table
   * `table`, or when they do not fit just `cost` (see WindowTable.take): what was granted.
   */
  take(table: string, maxKeys: number, key: string | undefined, capacity: number, perMs: number, cost: number, units: number): Promise<TakeResult> {
    return this.ask<TakeResult>({ op: 'take', table, maxKeys, key, capacity, perMs, cost, units });
  }

  /** The next turn (0, 1, 2, ... wrapping at 2³²) of counter `counter`: one sequence for every process. */
  turn(counter: string): Promise<number> {
    return this.ask<number>({ op: 'turn', counter });
  }

  /**
   * Asks the primary's breaker `name` (made with `conf`, anew when `conf` changed) whether a
   * request may go now (`ready`), or counts a result (`fail`, `success`). A result is sent at once:
   * it is in the primary's pipe before the answer it came with reaches the client, so the client's
   * next request, whichever process takes it, is judged after it.
   */
  breaker(name: string, conf: RateBreakerConfig, act: 'ready' | 'fail' | 'success'): Promise<BreakerAnswer> {
    return this.ask<BreakerAnswer>({ op: 'breaker', name, conf, act }, act !== 'ready');
  }

  /** Runs `topic`'s handlers in every other child; resolves once each ran them. */
  broadcast(topic: string, payload: unknown): Promise<void> {
    return this.ask<void>({ op: 'broadcast', topic, payload });
  }

  /** Calls `handler` with every payload broadcast on `topic` (awaited before the event is acknowledged); returns the unsubscriber. */
  on(topic: string, handler: Handler): () => void {
    let set = this.handlers.get(topic);
    if (set === undefined) this.handlers.set(topic, (set = new Set()));
    set.add(handler);
    return () => {
      set.delete(handler);
      if (set.size === 0) this.handlers.delete(topic);
    };
  }

  /** The Prometheus text of every child's metrics, summed by the primary. */
  metrics(): Promise<string> {
    return this.ask<string>({ op: 'metrics' });
  }

  private send(m: LinkMessage): void {
    process.send?.(m);
  }

  private onMessage(m: LinkMessage): void {
    if (m.t === 'replies') {
      for (const r of m.replies) {
        const p = this.pending.get(r.id);
        if (p === undefined) continue;
        this.pending.delete(r.id);
        clearTimeout(p.timer);
        if (r.error !== undefined) p.reject(new Error(r.error));
        else p.resolve(r.value);
      }
    } else if (m.t === 'event') {
      const set = this.handlers.get(m.topic);
      const runs = set === undefined ? [] : [...set].map((h) => h(m.payload));
      // The primary waits for the ack whatever the handlers did: a failing one logs its own error.
      void Promise.allSettled(runs).then((settled) =>
        this.send({ svc: 'link', t: 'ack', eid: m.eid, values: settled.flatMap((r) => (r.status === 'fulfilled' && r.value !== undefined ? [r.value] : [])) }),
      );
    }
  }
}

let link: ProcessLink | undefined;

/** The line to the primary in a child of a multi-process stream; undefined in a single process. */
export function processLink(): ProcessLink | undefined {
  if (!cluster.isWorker) return undefined;
  return (link ??= new ProcessLink());
}

/**
 * A map every process of the stream holds a copy of, kept by the primary (see the file's header).
 * Values travel as JSON; an entry past its `expiresAt` (ms since the epoch; 0 never) reads as absent.
 * Call {@link ReplicatedMap.load} once before reading.
 */
export class ReplicatedMap<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly off: () => void;
  /** While loading: the changes that arrived meanwhile, applied again over the snapshot. */
  private arrived: MapEntry[] | undefined;

  constructor(
    private readonly link: ProcessLink,
    readonly name: string,
  ) {
    this.off = link.on(mapTopic(name), (p) => {
      this.arrived?.push(p as MapEntry);
      this.apply(p as MapEntry);
    });
  }

  /** Takes every entry the primary holds (a child that starts after writes were made). */
  async load(): Promise<void> {
    this.arrived = [];
    try {
      const entries = await this.link.ask<MapEntry[]>({ op: 'map-snapshot', map: this.name });
      // A change's event can run before this continuation does (the snapshot's reply and the
      // event may be read together: the event's handler runs first), so every change that
      // arrived while loading is applied again over the snapshot, in order. One the snapshot
      // holds already is applied twice, which ends in the same state.
      this.entries.clear();
      for (const e of entries) this.apply(e);
      for (const e of this.arrived) this.apply(e);
    } finally {
      this.arrived = undefined;
    }
  }

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (e.expiresAt !== 0 && e.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  keys(): string[] {
    return [...this.entries.keys()].filter((k) => this.get(k) !== undefined);
  }

  /** Sets `key` in every process; resolves once each has it. */
  async set(key: string, value: V, expiresAt = 0): Promise<void> {
    await this.link.ask({ op: 'map-write', map: this.name, key, value, expiresAt });
  }

  /**
   * Sets `key` in every process unless some process set it first; resolves with the value every
   * process holds then (this one's, or the first one's: its event arrived before the answer).
   */
  async setIfAbsent(key: string, value: V): Promise<V> {
    await this.link.ask({ op: 'map-write', map: this.name, key, value, expiresAt: 0, ifAbsent: true });
    return this.get(key) ?? value;
  }

  /** Deletes `key` in every process; resolves (with whether it was there) once each has lost it. */
  async delete(key: string): Promise<boolean> {
    return (await this.link.ask<boolean>({ op: 'map-write', map: this.name, key, value: null, expiresAt: 0 })) === true;
  }

  close(): void {
    this.off();
  }

  private apply([key, value, expiresAt]: MapEntry): void {
    if (value === null) this.entries.delete(key);
    else this.entries.set(key, { value: value as V, expiresAt });
  }
}

/**
 * A bounded store of text values kept by the primary (see expiring-store.ts), one for every
 * process: a value one process set is what any process gets next.
 */
export class ProcessStore {
  constructor(
    private readonly link: ProcessLink,
    readonly name: string,
    private readonly maxBytes: number,
  ) {}

  async get(key: string): Promise<string | undefined> {
    return (await this.link.ask<string | null>({ op: 'store-get', store: this.name, key })) ?? undefined;
  }

  /** Keeps `value` until `expiresAt` (ms since the epoch); resolves once the primary holds it. */
  async set(key: string, value: string, expiresAt: number): Promise<void> {
    await this.link.ask({ op: 'store-set', store: this.name, maxBytes: this.maxBytes, key, value, expiresAt });
  }

  /** Drops every key starting with `prefix`; resolves with how many went, once the primary dropped them. */
  async deletePrefix(prefix: string): Promise<number> {
    return this.link.ask<number>({ op: 'store-delete-prefix', store: this.name, prefix });
  }
}
