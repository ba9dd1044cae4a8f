/**
 * Quotas (`quota_max` requests per `quota_renewal_rate` seconds; no renewal rate: never
 * renewed), counted as Tyk's RedisQuotaExceeded does: every request counts, the one past
 * `quota_max` and all after it are refused until the counter expires. In Redis when svc.conf has
 * storage (one counter per key that several gateways share), else in the shared memory table.
 */
import type { RedisConnection } from '../sessions/redis-connection.js';
import { runScript } from './redis-scripts.js';
import { FOREVER } from '@svc/engine/kit';
import type { Windows } from './shared-table.js';

export interface QuotaState {
  blocked: boolean;
  remaining: number;
  /** Unix seconds when the quota renews (0: never). */
  renews: number;
}

const INCR_QUOTA = `local n = redis.call('INCR', KEYS[1])
if n == 1 and tonumber(ARGV[1]) > 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('TTL', KEYS[1])
return {n, ttl}`;

export class Quotas {
  constructor(
    private readonly table: Windows,
    private readonly connection: RedisConnection | undefined,
  ) {}

  async take(key: string, max: number, renewalSeconds: number): Promise<QuotaState> {
    const now = Math.floor(Date.now() / 1000);
    if (this.connection === undefined) {
      const w = await this.table.take(key, max, renewalSeconds > 0 ? renewalSeconds * 1000 : FOREVER);
      return { blocked: w.blocked, remaining: w.remaining, renews: w.resetMs === FOREVER ? 0 : now + Math.ceil(w.resetMs / 1000) };
    }
    const r = await this.connection.redis();
    const [n, ttl] = (await runScript(r, INCR_QUOTA, [key], [String(Math.max(0, Math.ceil(renewalSeconds)))])) as [number, number];
    const blocked = n - 1 >= max;
    return { blocked, remaining: blocked ? 0 : max - n, renews: ttl > 0 ? now + ttl : 0 };
  }
}
