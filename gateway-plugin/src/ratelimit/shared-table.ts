/**
 * The one window table of a gateway process (see window-table.ts), in memory every thread of
 * the stream shares: the `api_gateway` input and every `gateway_rate_limit` find the same bytes
 * under one name.
 */
import type { ComponentContext } from '@svc/engine';
import { WindowTable, windowTableBytes } from './window-table.js';

/** Keys (API limits, keys' limits and quotas) the table holds before it gives up stale windows. */
const MAX_KEYS = 32_768;

export function sharedWindowTable(ctx: Pick<ComponentContext, 'sharedBuffer'>): WindowTable {
  return new WindowTable(ctx.sharedBuffer('svc.gateway.rate-limit-windows', windowTableBytes(MAX_KEYS)));
}
