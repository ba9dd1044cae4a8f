/**
 * Tyk's `DELETE /tyk/cache/{apiID}` (invalidateCacheHandler) as `DELETE /svc/cache/{apiId}`: empties
 * that API's response cache for the whole node (proxy/cache-invalidation.ts) and answers
 * `{"status":"ok","message":"cache invalidated"}`, for any id (Tyk does not look the API up);
 * when the cache's Redis fails, 500 `Cache invalidation failed` (the reason logged, not sent).
 */
import { errorMessage, type Answer, type Logger } from '@svc/engine';
import { invalidateApiCache } from '../proxy/cache-invalidation.js';
import type { GatewayState } from '../kernel/state.js';
import type { ManagementRoutes } from './routes.js';
import { statusMessage } from './replies.js';

export class CacheEndpoints {
  constructor(
    private readonly state: GatewayState,
    private readonly log: Logger,
  ) {}

  route(routes: ManagementRoutes): void {
    routes.add('DELETE', '/svc/cache/{apiId}', (_r, p) => this.invalidate(p['apiId']!));
  }

  private async invalidate(apiId: string): Promise<Answer> {
    try {
      await invalidateApiCache(this.state.name, this.state.config, apiId, this.log);
    } catch (err) {
      this.log.error(`Failed to delete cache of API ${JSON.stringify(apiId)}: ${errorMessage(err)}`);
      return statusMessage(500, 'Cache invalidation failed');
    }
    return statusMessage(200, 'cache invalidated');
  }
}
