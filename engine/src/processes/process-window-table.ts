/**
 * A window table kept by the primary (a rate limit or quota counted once for every process of the
 * stream), with WindowTable's `take` in each child. Invariant: the processes together never admit
 * more than `capacity` units per window: every unit a child admits was taken from the primary's
 * one table first.
 *
 * Asking the primary for every request would cost each request an IPC round trip, so a child
 * takes a lease: `capacity / LEASE_SHARE` units at once (when they fit), spent locally until they
 * run out or the window ends. A limit below LEASE_SHARE units per window leases nothing: every
 * request is counted in the primary, exactly. Above it, what a process leased and did not spend by
 * the window's end is lost to the others, so the processes may together admit up to
 * `processes × capacity / LEASE_SHARE` fewer than `capacity` (0.8% at 2 processes) — never more.
 * `remaining` counts the primary's figure plus this process's unspent lease.
 */
import { FOREVER, type WindowState } from '../kit/window-table.js';
import type { ProcessLink, TakeResult } from './process-link.js';

/** A lease is this share of a window's capacity. */
const LEASE_SHARE = 256;

interface Lease {
  capacity: number;
  perMs: number;
  /** Units left to spend here. */
  units: number;
  /** What the primary had left when it granted the lease. */
  remaining: number;
  /** When the window ends (ms since the epoch; FOREVER: never). */
  endsAt: number;
}

export class ProcessWindowTable {
  private readonly leases = new Map<string, Lease>();
  /** A lease being asked for, by key: requests meanwhile wait for it instead of asking again. */
  private readonly asking = new Map<string, Promise<TakeResult>>();

  constructor(
    private readonly link: ProcessLink,
    readonly name: string,
    private readonly maxKeys: number,
  ) {}

  take(key: string | undefined, capacity: number, perMs: number, cost = 1): WindowState | Promise<WindowState> {
    const k = key ?? '';
    const now = Date.now();
    const l = this.leases.get(k);
    if (l !== undefined && l.capacity === capacity && l.perMs === perMs && now < l.endsAt && l.units >= cost) {
      l.units -= cost;
      return { blocked: false, remaining: l.remaining + l.units, resetMs: l.endsAt === FOREVER ? FOREVER : l.endsAt - now };
    }
    return this.fromPrimary(k, key, capacity, perMs, cost);
  }

  private async fromPrimary(k: string, key: string | undefined, capacity: number, perMs: number, cost: number): Promise<WindowState> {
    const pending = this.asking.get(k);
    if (pending !== undefined) {
      await pending.catch(() => undefined);
      return this.take(key, capacity, perMs, cost);
    }
    const lease = Math.floor(capacity / LEASE_SHARE);
    const units = lease > cost ? lease : cost;
    const asked = this.link.take(this.name, this.maxKeys, key, capacity, perMs, cost, units);
    if (units > cost) this.asking.set(k, asked);
    try {
      const r = await asked;
      const left = r.granted - cost;
      if (left > 0) {
        if (this.leases.size >= this.maxKeys) this.forgetEnded();
        this.leases.set(k, { capacity, perMs, units: left, remaining: r.remaining, endsAt: r.resetMs === FOREVER ? FOREVER : Date.now() + r.resetMs });
      } else {
        this.leases.delete(k);
      }
      return { blocked: r.blocked, remaining: r.remaining + Math.max(0, left), resetMs: r.resetMs };
    } finally {
      if (this.asking.get(k) === asked) this.asking.delete(k);
    }
  }

  /** Drops ended leases (and, if none had ended, every lease: their units are lost, never over-admitted). */
  private forgetEnded(): void {
    const now = Date.now();
    for (const [k, l] of this.leases) if (l.endsAt <= now) this.leases.delete(k);
    if (this.leases.size >= this.maxKeys) this.leases.clear();
  }
}
