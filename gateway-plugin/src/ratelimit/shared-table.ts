/**
 * The gateway's rate limit memory shared by every thread of the stream: its one window table (the
 * engine's WindowTable) and the live instance count of the distributed limiter. The `api_gateway`
 * input and every `gateway_rate_limit` find the same bytes under one name.
 */
import type { ComponentContext } from '@svc/engine';
import { WindowTable, windowTableBytes } from '@svc/engine/kit';
import { LiveInstances } from './distributed-limiter.js';

/** Keys (API limits, keys' limits and quotas) the table holds before it gives up stale windows. */
const MAX_KEYS = 32_768;

export function sharedWindowTable(ctx: Pick<ComponentContext, 'sharedBuffer'>): WindowTable {
  return new WindowTable(ctx.sharedBuffer('svc.gateway.rate-limit-windows', windowTableBytes(MAX_KEYS)));
}

export function sharedLiveInstances(ctx: Pick<ComponentContext, 'sharedBuffer'>): LiveInstances {
  return new LiveInstances(ctx.sharedBuffer('svc.gateway.drl-instances', 4));
}
