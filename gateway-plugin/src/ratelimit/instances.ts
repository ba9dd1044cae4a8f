/**
 * What rate limiting starts with each gateway (a gateway service, see `kernel/gateway-services.ts`,
 * started by the front door when it loads svc.conf on the main thread): it refuses an algorithm
 * the config cannot run, and with Redis and the distributed limiter it keeps this process's
 * heartbeat among the gateway instances.
 */
import type { ComponentContext, Logger } from '@svc/engine';
import type { GatewayConfig } from '../conf/gateway-config.js';
import type { GatewayService } from '../kernel/gateway-services.js';
import { RedisConnection } from '../sessions/redis-connection.js';
import { InstanceRegistry, sharedLiveInstances } from './distributed-limiter.js';
import { algorithmOf, algorithmProblem } from './limiter.js';

/** Throws (the gateway does not start) when svc.conf asks for an algorithm it cannot run. */
export function startRateLimiting(config: GatewayConfig, ctx: Pick<ComponentContext, 'sharedBuffer'>, log: Logger): GatewayService {
  const problem = algorithmProblem(config);
  if (problem !== undefined) throw new Error(`svc.conf: ${problem}`);
  log.info(`Rate limits: ${algorithmOf(config)} limiter, counted ${config.storage === undefined ? 'in memory' : 'in Redis'}`);
  if (config.storage === undefined || algorithmOf(config) !== 'distributed') return { close: async () => {} };
  const connection = new RedisConnection(config.storage, 'the distributed rate limiter');
  const registry = new InstanceRegistry(connection, sharedLiveInstances(ctx), (m) => log.info(m));
  return {
    close: async () => {
      await registry.close();
      await connection.close();
    },
  };
}
