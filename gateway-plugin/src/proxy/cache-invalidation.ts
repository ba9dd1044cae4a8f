/**
 * Emptying one API's response cache (Tyk v5.14.0's invalidateAPICache, `gateway/delete_api_cache.go`)
 * wherever the proxy keeps it for the gateway: in Redis (`cache_storage` / `storage`), in the
 * primary's store when the node runs several processes, or in this process's memory. Resolves
 * once no process can serve an answer kept before.
 */
import type { Logger } from '@svc/engine';
import { ThrottledLog, processLink } from '@svc/engine/kit';
import type { GatewayConfig } from '../conf/gateway-config.js';
import { RedisConnection } from '../sessions/redis-connection.js';
import { NodeResponseCache } from './node-response-cache.js';
import { RedisResponseCache } from './redis-response-cache.js';
import { cacheStorageOf, memoryResponseCache } from './response-cache.js';

export async function invalidateApiCache(gateway: string, config: GatewayConfig, apiId: string, log: Logger): Promise<void> {
  const storage = cacheStorageOf(config);
  if (storage !== undefined) {
    const redis = new RedisResponseCache(new RedisConnection(storage, 'the response cache'), new ThrottledLog(log, 10_000, 5));
    try {
      await redis.deleteApi(apiId);
    } finally {
      await redis.close();
    }
    return;
  }
  const link = processLink();
  if (link !== undefined) await new NodeResponseCache(link, gateway).deleteApi(apiId);
  else memoryResponseCache(gateway).deleteApi(apiId);
}
