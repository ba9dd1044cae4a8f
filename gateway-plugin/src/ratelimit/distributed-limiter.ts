/**
 * The distributed rate limiter (Tyk's DRL, the default): no shared counter; each gateway (an
 * engine, whatever its `processes`) keeps its own bucket per key in memory (exact across its
 * threads and processes: the engine's WindowTable, the primary's with processes) and admits its
 * share, `rate / instances`. The processes find each other through the shared store:
 * each writes a heartbeat every second to one sorted set; those heard from in the last few
 * seconds are the live instances. Without storage there is one instance and the bucket is the
 * whole limit.
 *
 * `drl_threshold` (default 5, as Tyk): a limit below `instances * threshold` requests per second
 * is too small to split evenly, so it goes to the rolling log in Redis instead
 * (session_manager.go: `n <= 1 || n*c < cost` keeps the DRL).
 */
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { RedisConnection } from '../sessions/redis-connection.js';
import type { Limit, Limiter, Verdict } from './limiter.js';
import type { RedisLimiter } from './redis-limiter.js';
import type { ComponentContext } from '@svc/engine';
import type { WindowState } from '@svc/engine/kit';
import type { Windows } from './shared-table.js';

/** The sorted set of heartbeats: member = instance id, score = ms of its last heartbeat. */
export const INSTANCES_KEY = 'svc-drl-instances';
const HEARTBEAT_MS = 1_000;
/** An instance not heard from for this long is gone. */
const LIVE_MS = 3_500;

/** The number of live gateway instances, in memory shared by every thread of the process (1 until heard otherwise). */
export class LiveInstances {
  private readonly cell: Int32Array;

  /** `sab`: 4 bytes, zeroed or another thread's count. */
  constructor(sab: SharedArrayBuffer) {
    this.cell = new Int32Array(sab, 0, 1);
  }

  get count(): number {
    return Math.max(1, Atomics.load(this.cell, 0));
  }

  set count(n: number) {
    Atomics.store(this.cell, 0, Math.max(1, Math.floor(n)));
  }
}

/** The live instance count every thread of the process shares (one cell, found by name). */
export function sharedLiveInstances(ctx: Pick<ComponentContext, 'sharedBuffer'>): LiveInstances {
  return new LiveInstances(ctx.sharedBuffer('svc.gateway.drl-instances', 4));
}

/**
 * This gateway's name among the instances: one per engine. The children of an engine run with
 * `processes` count in the primary's one table, so they are one instance (they all beat under the
 * primary's pid); a gateway in one process is its own.
 */
function instanceId(): string {
  return cluster.isWorker ? `${hostname()}-${process.ppid}` : `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Keeps this process's heartbeat in Redis and the live instance count shared by the threads (main thread only). */
export class InstanceRegistry {
  private readonly id = instanceId();
  private readonly timer: NodeJS.Timeout;
  private beating: Promise<void> | undefined;

  constructor(
    private readonly connection: RedisConnection,
    private readonly instances: LiveInstances,
    private readonly log: (message: string) => void,
  ) {
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.timer.unref();
    void this.beat();
  }

  /** One heartbeat: write ours, forget the silent, count the rest. Redis down: keep the last count. */
  beat(): Promise<void> {
    this.beating ??= (async () => {
      try {
        const r = await this.connection.redis();
        const now = Date.now();
        const replies = await r
          .multi()
          .zAdd(INSTANCES_KEY, { score: now, value: this.id })
          .zRemRangeByScore(INSTANCES_KEY, '-inf', now - LIVE_MS)
          .zCard(INSTANCES_KEY)
          .exec();
        const n = Number(replies[2]);
        if (n !== this.instances.count) this.log(`distributed rate limiter: ${n} gateway instance${n === 1 ? '' : 's'} live`);
        this.instances.count = n;
      } catch {
        // The count stays as last heard; the next beat tries again.
      } finally {
        this.beating = undefined;
      }
    })();
    return this.beating;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
    try {
      await (await this.connection.redis()).zRem(INSTANCES_KEY, this.id);
    } catch {
      // Gone anyway once its heartbeat is LIVE_MS old.
    }
  }
}

export class DistributedLimiter implements Limiter {
  constructor(
    private readonly table: Windows,
    private readonly instances: LiveInstances,
    private readonly threshold: number,
    /** The rolling log for limits too small to split; absent without storage. */
    private readonly rolling: RedisLimiter | undefined,
  ) {}

  check(limit: Limit): Verdict | Promise<Verdict> {
    const n = this.instances.count;
    const perSecond = limit.per > 0 ? limit.rate / limit.per : 0;
    if (this.rolling !== undefined && n > 1 && n * (this.threshold || 5) >= perSecond) return this.rolling.check(limit);
    // Each request costs n units of a bucket of `rate` units: this instance admits rate / n.
    const verdict = (w: WindowState): Verdict => ({
      blocked: w.blocked,
      limit: limit.rate,
      remaining: Math.floor(w.remaining / n),
      resetMs: w.blocked ? w.resetMs : 0,
    });
    const w = this.table.take(limit.key, limit.rate, limit.per * 1000, n);
    return w instanceof Promise ? w.then(verdict) : verdict(w);
  }

  async close(): Promise<void> {}
}
