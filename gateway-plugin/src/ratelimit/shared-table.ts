/**
 * The gateway's rate limit counters: one window table for every thread and every process of the
 * stream (the engine's WindowTable in memory shared by the threads; with `processes`, the
 * primary's table, asked over the process link, so a limit or quota is one counter, not one per
 * process). Every `gateway_rate_limit` finds the same counters under one name.
 */
import type { ComponentContext } from '@svc/engine';
import { ProcessWindowTable, WindowTable, processLink, windowTableBytes, type WindowState } from '@svc/engine/kit';

/** Keys (API limits, keys' limits and quotas) the table holds before it gives up stale windows. */
const MAX_KEYS = 32_768;
const NAME = 'svc.gateway.rate-limit-windows';

/** WindowTable's `take`, answered at once in one process or by the primary across processes. */
export interface Windows {
  take(key: string | undefined, capacity: number, perMs: number, cost?: number): WindowState | Promise<WindowState>;
}

export function sharedWindowTable(ctx: Pick<ComponentContext, 'sharedBuffer'>): Windows {
  const link = processLink();
  if (link !== undefined) return new ProcessWindowTable(link, NAME, MAX_KEYS);
  return new WindowTable(ctx.sharedBuffer(NAME, windowTableBytes(MAX_KEYS)));
}
