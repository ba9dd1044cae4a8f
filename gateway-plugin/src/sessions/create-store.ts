/**
 * The session store svc.conf asks for: Redis when `storage` is there (`type: redis`, Tyk's only
 * kind), in memory when it is absent.
 */
import type { GatewayConfig } from '../conf/gateway-config.js';
import { MemorySessionStore } from './memory-store.js';
import { RedisSessionStore } from './redis-store.js';
import type { SessionStore } from './session-store.js';

export function createSessionStore(config: GatewayConfig): SessionStore {
  return config.storage === undefined ? new MemorySessionStore() : new RedisSessionStore(config.storage);
}
