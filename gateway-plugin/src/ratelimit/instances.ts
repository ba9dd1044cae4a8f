/**
 * What the gateway's front door starts for rate limiting when it loads svc.conf (main thread):
 * it refuses an algorithm the config cannot run, and with Redis and the distributed limiter it
 * keeps this process's heartbeat among the gateway instances.
 */
import type { GatewayConfig } from '../conf/gateway-config.js';
import { RedisConnection } from '../sessions/redis-connection.js';
import { InstanceRegistry, type LiveInstances } from './distributed-limiter.js';
import { algorithmOf, algorithmProblem } from './limiter.js';

export interface RateLimiting {
  close(): Promise<void>;
}

/** Throws (the gateway does not start) when svc.conf asks for an algorithm it cannot run. */
export function startRateLimiting(config: GatewayConfig, instances: LiveInstances, log: (message: string) => void): RateLimiting {
  const problem = algorithmProblem(config);
  if (problem !== undefined) throw new Error(`svc.conf: ${problem}`);
  if (config.storage === undefined || algorithmOf(config) !== 'distributed') return { close: async () => {} };
  const connection = new RedisConnection(config.storage, 'the distributed rate limiter');
  const registry = new InstanceRegistry(connection, instances, log);
  return {
    close: async () => {
      await registry.close();
      await connection.close();
    },
  };
}
