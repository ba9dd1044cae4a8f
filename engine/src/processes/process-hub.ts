/**
 * The primary's side of the process link (see `process-link.ts`): it serves nothing itself, so it
 * is where the state every child must see alike is kept.
 *
 * - Window tables: the engine's WindowTable, one per name, so a rate limit or quota counted
 *   through the link is one counter for every process (children take leases of it).
 * - Replicated maps: the primary's copy is the truth (a child started later loads it); a write is
 *   applied here, handed to every child as an event, and answered once every child still alive
 *   acknowledged it. Events reach a child in the order the primary sent them.
 * - Turns, circuit breakers and stores: a load balancer's counter, a RateBreaker and an
 *   ExpiringStore per name, so a node of N processes balances, trips and caches as one gateway.
 * - Broadcasts: an event to every child but the sender, answered once they acknowledged it.
 * - Metrics: every child answers the `metrics` event with its registries' JSON, summed here by
 *   prom-client's `AggregatorRegistry.aggregate` (counters and gauges add up, as its cluster mode).
 *
 * Only children whose link said hello get events: one still starting loads a map's snapshot
 * after its hello, so it misses no write.
 *
 * An event a child never acknowledges (stuck) fails the write after {@link EVENT_TIMEOUT_MS}; a
 * child that exits is no longer waited for.
 */
import cluster, { type Worker } from 'node:cluster';
import { RateBreaker, type BreakerEvent, type RateBreakerConfig } from '../kit/rate-breaker.js';
import { WindowTable, windowTableBytes } from '../kit/window-table.js';
import { ExpiringStore } from './expiring-store.js';
import type { TakeResult } from './process-link.js';
import { type Ask, type BreakerAnswer, type LinkMessage, METRICS_TOPIC, type Reply, isLinkMessage, mapTopic, type MapEntry } from './link-messages.js';

const EVENT_TIMEOUT_MS = 10_000;
/** Counters, breakers and stores a hub keeps at most (their names come from config, not clients). */
const MAX_NAMED = 4096;

interface PendingEvent {
  waiting: Set<number>;
  values: unknown[];
  done: (values: unknown[]) => void;
  timer: NodeJS.Timeout;
}

export class ProcessHub {
  private readonly tables = new Map<string, WindowTable>();
  private readonly maps = new Map<string, Map<string, { value: unknown; expiresAt: number }>>();
  private readonly turns = new Map<string, number>();
  /** Each breaker with what happened to it since a child last asked it. */
  private readonly breakers = new Map<string, { breaker: RateBreaker; events: BreakerEvent[] }>();
  private readonly stores = new Map<string, ExpiringStore>();
  private readonly events = new Map<number, PendingEvent>();
  private eid = 0;
  private readonly outbox = new Map<Worker, Reply[]>();
  /** The children whose link listens. */
  private readonly linked = new Set<number>();

  private readonly onMessage = (w: Worker, m: unknown): void => {
    if (!isLinkMessage(m)) return;
    if (m.t === 'hello') {
      this.linked.add(w.id);
    } else if (m.t === 'asks') {
      for (const { id, ask } of m.asks) {
        // What a request waits for (a rate limit, a turn, a breaker, a cached answer) is answered at once; the rest when done.
        const quick = this.quick(ask);
        if (quick !== NOT_QUICK) {
          this.reply(w, { id, value: quick });
          continue;
        }
        this.answer(w, ask).then(
          (value) => this.reply(w, { id, value }),
          (err: unknown) => this.reply(w, { id, error: err instanceof Error ? err.message : String(err) }),
        );
      }
    } else if (m.t === 'ack') {
      this.acked(m.eid, w.id, m.values);
    }
  };

  private readonly onExit = (w: Worker): void => {
    this.linked.delete(w.id);
    for (const eid of [...this.events.keys()]) this.acked(eid, w.id, []);
  };

  start(): void {
    cluster.on('message', this.onMessage);
    cluster.on('exit', this.onExit);
  }

  stop(): void {
    cluster.off('message', this.onMessage);
    cluster.off('exit', this.onExit);
    for (const e of this.events.values()) clearTimeout(e.timer);
    for (const b of this.breakers.values()) b.breaker.stop();
  }

  private send(w: Worker, m: LinkMessage): void {
    if (w.isConnected()) w.send(m);
  }

  /** Queues a reply; the replies of one turn go to each child as one message. */
  private reply(w: Worker, r: Reply): void {
    let q = this.outbox.get(w);
    if (q === undefined) {
      this.outbox.set(w, (q = []));
      if (this.outbox.size === 1) setImmediate(this.flush);
    }
    q.push(r);
  }

  private readonly flush = (): void => {
    for (const [w, replies] of this.outbox) this.send(w, { svc: 'link', t: 'replies', replies });
    this.outbox.clear();
  };

  /** A child's lease of `units` when they fit, else its request's `cost` alone (see process-window-table.ts). */
  private take(ask: Extract<Ask, { op: 'take' }>): TakeResult {
    let t = this.tables.get(ask.table);
    if (t === undefined) this.tables.set(ask.table, (t = new WindowTable(new SharedArrayBuffer(windowTableBytes(ask.maxKeys)))));
    let granted = ask.units;
    let w = t.take(ask.key, ask.capacity, ask.perMs, granted);
    if (w.blocked && granted > ask.cost) w = t.take(ask.key, ask.capacity, ask.perMs, (granted = ask.cost));
    return { blocked: w.blocked, granted: w.blocked ? 0 : granted, remaining: w.remaining, resetMs: w.resetMs };
  }

  /** The answer to an ask that needs no other process, or NOT_QUICK. */
  private quick(ask: Ask): unknown {
    switch (ask.op) {
      case 'take':
        return this.take(ask);
      case 'turn': {
        const turn = this.turns.get(ask.counter) ?? 0;
        if (!this.turns.has(ask.counter) && this.turns.size >= MAX_NAMED) this.turns.clear();
        // Tyk's RoundRobin: a uint32 that wraps.
        this.turns.set(ask.counter, (turn + 1) % 0x1_0000_0000);
        return turn;
      }
      case 'breaker':
        return this.breaker(ask.name, ask.conf, ask.act);
      case 'store-get':
        return this.stores.get(ask.store)?.get(ask.key) ?? null;
      case 'store-set': {
        let store = this.stores.get(ask.store);
        if (store === undefined) {
          if (this.stores.size >= MAX_NAMED) this.stores.clear();
          this.stores.set(ask.store, (store = new ExpiringStore(ask.maxBytes)));
        }
        store.set(ask.key, ask.value, ask.expiresAt);
        return true;
      }
      case 'store-delete-prefix':
        return this.stores.get(ask.store)?.deletePrefix(ask.prefix) ?? 0;
      default:
        return NOT_QUICK;
    }
  }

  private breaker(name: string, conf: RateBreakerConfig, act: 'ready' | 'fail' | 'success'): BreakerAnswer {
    let b = this.breakers.get(name);
    if (b !== undefined && !sameBreakerConfig(b.breaker.conf, conf)) {
      b.breaker.stop();
      b = undefined;
    }
    if (b === undefined) {
      if (this.breakers.size >= MAX_NAMED) this.stopBreakers();
      const events: BreakerEvent[] = [];
      b = { breaker: new RateBreaker(conf, (e) => events.push(e)), events };
      this.breakers.set(name, b);
    }
    let ready = true;
    if (act === 'ready') ready = b.breaker.ready();
    else if (act === 'fail') b.breaker.fail();
    else b.breaker.success();
    return { ready, events: b.events.splice(0) };
  }

  private stopBreakers(): void {
    for (const b of this.breakers.values()) b.breaker.stop();
    this.breakers.clear();
  }

  private async answer(from: Worker, ask: Ask): Promise<unknown> {
    switch (ask.op) {
      case 'map-write': {
        const map = this.map(ask.map);
        const had = this.live(map, ask.key);
        if (had && ask.ifAbsent === true) return had;
        if (ask.value === null) map.delete(ask.key);
        else map.set(ask.key, { value: ask.value, expiresAt: ask.expiresAt });
        const entry: MapEntry = [ask.key, ask.value, ask.expiresAt];
        await this.tell(mapTopic(ask.map), entry);
        return had;
      }
      case 'map-snapshot': {
        const map = this.map(ask.map);
        const out: MapEntry[] = [];
        for (const key of [...map.keys()]) if (this.live(map, key)) out.push([key, map.get(key)!.value, map.get(key)!.expiresAt]);
        return out;
      }
      case 'broadcast':
        await this.tell(ask.topic, ask.payload, from.id);
        return undefined;
      case 'metrics': {
        const [prom, registries] = await Promise.all([import('prom-client'), this.tell(METRICS_TOPIC, null)]);
        return prom.AggregatorRegistry.aggregate(registries as Parameters<typeof prom.AggregatorRegistry.aggregate>[0]).metrics();
      }
      default:
        // Answered by quick().
        return undefined;
    }
  }

  private map(name: string): Map<string, { value: unknown; expiresAt: number }> {
    let m = this.maps.get(name);
    if (m === undefined) this.maps.set(name, (m = new Map()));
    return m;
  }

  /** True when `key` is in `map` and not expired (an expired one is dropped). */
  private live(map: Map<string, { value: unknown; expiresAt: number }>, key: string): boolean {
    const e = map.get(key);
    if (e === undefined) return false;
    if (e.expiresAt !== 0 && e.expiresAt <= Date.now()) {
      map.delete(key);
      return false;
    }
    return true;
  }

  /**
   * Sends an event to every linked child (but `except`); resolves once each acknowledged it or
   * exited, with what their handlers returned.
   */
  private tell(topic: string, payload: unknown, except?: number): Promise<unknown[]> {
    // Replies wait for the end of the turn; an event goes at once. A snapshot answered before this
    // change must reach its child before the change does, or the child, applying the change and
    // then the older snapshot over it, would lose it (a child loading its map while another wrote).
    this.flush();
    const eid = ++this.eid;
    const targets = Object.values(cluster.workers ?? {}).filter(
      (w): w is Worker => w !== undefined && w.id !== except && this.linked.has(w.id) && w.isConnected(),
    );
    if (targets.length === 0) return Promise.resolve([]);
    return new Promise<unknown[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        const e = this.events.get(eid);
        this.events.delete(eid);
        reject(new Error(`child process(es) ${[...(e?.waiting ?? [])].join(', ')} did not apply a change within ${EVENT_TIMEOUT_MS} ms`));
      }, EVENT_TIMEOUT_MS);
      this.events.set(eid, { waiting: new Set(targets.map((w) => w.id)), values: [], done: resolve, timer });
      for (const w of targets) this.send(w, { svc: 'link', t: 'event', eid, topic, payload });
    });
  }

  private acked(eid: number, worker: number, values: unknown[]): void {
    const e = this.events.get(eid);
    if (e === undefined || !e.waiting.delete(worker)) return;
    e.values.push(...values);
    if (e.waiting.size > 0) return;
    this.events.delete(eid);
    clearTimeout(e.timer);
    e.done(e.values);
  }
}

const NOT_QUICK = Symbol('not quick');

function sameBreakerConfig(a: RateBreakerConfig, b: RateBreakerConfig): boolean {
  return a.threshold === b.threshold && a.samples === b.samples && a.returnToServiceMs === b.returnToServiceMs && a.halfOpen === b.halfOpen;
}
