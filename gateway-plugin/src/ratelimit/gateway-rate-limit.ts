/**
 * The `gateway_rate_limit` processor: Tyk's five rate limit scopes and quotas, in two
 * places of the chain as Tyk runs them. `scope: api` (before `gateway_auth`) counts every request
 * to an API against its per-endpoint or global limit, authenticated or not; `scope: key` (after
 * it) counts the key's per-endpoint, per-API or global limit, then its quota. A request over a
 * limit is answered at once: 429 with Tyk's words (`API Rate Limit Exceeded` at API level,
 * `Rate Limit Exceeded` at key level), 403 `Quota exceeded` for a spent quota.
 *
 * The algorithm is svc.conf's (see limiter.ts), for the whole gateway; counting is in memory
 * shared by the threads (no `storage`) or in Redis. While Redis cannot count, a request is
 * refused with 429 (Tyk's behaviour) or admitted with `rate_limit_fail_open`; the outage is
 * logged when it starts and when it ends.
 */
import { answerMessage, errorMessage, type Logger } from '@svc/engine';
import type { Windows } from './shared-table.js';
import type { ApiSpec } from '../apis/api-spec.js';
import { tykError } from '../kernel/errors.js';
import { GatewayMiddleware, type MiddlewareCall } from '../kernel/middleware.js';
import { GATEWAY_REQUEST, type GatewayRequest } from '../kernel/request.js';
import { markStage, type Stage } from '../kernel/stages.js';
import type { GatewayState } from '../kernel/state.js';
import { RedisConnection } from '../sessions/redis-connection.js';
import { DistributedLimiter, type LiveInstances } from './distributed-limiter.js';
import { limitHeaders } from './limit-headers.js';
import { algorithmOf, type Limiter, type Verdict } from './limiter.js';
import { MemoryLimiter } from './memory-limiter.js';
import { Quotas } from './quota.js';
import { RedisLimiter, type SmoothingChange } from './redis-limiter.js';
import { apiLimit, keyLimits } from './scopes.js';

export type RateLimitScope = 'api' | 'key';

const API_LIMITED = 'API Rate Limit Exceeded';
const KEY_LIMITED = 'Rate Limit Exceeded';
const QUOTA_EXCEEDED = 'Quota exceeded';

/** What one gateway's limits are counted with on this thread. */
interface Counting {
  limiter: Limiter;
  quotas: Quotas;
  connection: RedisConnection | undefined;
  config: GatewayState['config'];
}

export class GatewayRateLimit extends GatewayMiddleware {
  private readonly counting = new Map<string, Counting>();
  private outage = false;

  constructor(
    private readonly scope: RateLimitScope,
    private readonly table: Windows,
    private readonly instances: LiveInstances,
    log: Logger,
    private readonly onSmoothing: (change: SmoothingChange) => void,
  ) {
    super('gateway_rate_limit', log);
  }

  private countingFor(state: GatewayState): Counting {
    let c = this.counting.get(state.name);
    if (c === undefined || c.config !== state.config) {
      const config = state.config;
      const connection = config.storage === undefined ? undefined : new RedisConnection(config.storage, 'rate limits');
      const algorithm = algorithmOf(config);
      const rolling = (a: 'rolling' | 'sentinel' | 'fixed-window') =>
        new RedisLimiter(connection!, { algorithm: a, pipelined: config.enable_non_transactional_rate_limiter, onSmoothing: this.onSmoothing });
      let limiter: Limiter;
      if (algorithm === 'distributed') limiter = new DistributedLimiter(this.table, this.instances, config.drl_threshold, connection && rolling('rolling'));
      else if (connection === undefined) limiter = new MemoryLimiter(this.table);
      else limiter = rolling(algorithm);
      if (c !== undefined) void c.connection?.close();
      c = { limiter, quotas: new Quotas(this.table, connection), connection, config };
      this.counting.set(state.name, c);
    }
    return c;
  }

  protected async handle({ msg, req, state, api }: MiddlewareCall): Promise<void> {
    // A looped request skips limits unless it asked for them (Tyk's check_limits): decided, so the stage ran.
    if ((req.loopLevel ?? 0) > 0 && req.checkLimits !== true) return markStage(msg, this.stage);
    // Key level before gateway_auth: there is no key to count yet, so this stage has not run.
    if (this.scope === 'key' && req.session === undefined && !api.keyless && req.authIgnored !== true) return;
    const counting = this.countingFor(state);
    try {
      const refusal = this.scope === 'api' ? await this.apiLevel(counting, api, req) : await this.keyLevel(counting, api, req);
      this.recovered();
      if (refusal !== undefined) {
        // Rate limit figures go on a 429 only when they are what the headers carry (Tyk's SendRateLimits).
        const source = counting.config.rate_limit_response_headers;
        const headers = refusal.status === 429 && source === 'rate_limits' ? limitHeaders(req, source) : undefined;
        answerMessage(msg, tykError(refusal.status, refusal.message, headers ?? {}));
        return;
      }
    } catch (err) {
      this.failed(err, counting.config.rate_limit_fail_open);
      if (!counting.config.rate_limit_fail_open) {
        answerMessage(msg, tykError(429, this.scope === 'api' ? API_LIMITED : KEY_LIMITED));
        return;
      }
    }
    msg.ctx.set(GATEWAY_REQUEST, req);
    markStage(msg, this.stage);
  }

  private get stage(): Stage {
    return this.scope === 'api' ? 'api_limit' : 'key_limit';
  }

  private async apiLevel(c: Counting, api: ApiSpec, req: GatewayRequest): Promise<{ status: number; message: string } | undefined> {
    const limit = apiLimit(api, req);
    if (limit === undefined) return undefined;
    const v = await c.limiter.check(limit);
    // API-level figures only when the key level has not set its own (Tyk's RateLimitForAPI).
    req.rateLimit ??= figures(v);
    return v.blocked ? { status: 429, message: API_LIMITED } : undefined;
  }

  private async keyLevel(c: Counting, api: ApiSpec, req: GatewayRequest): Promise<{ status: number; message: string } | undefined> {
    const session = req.session;
    if (session === undefined) return undefined; // Keyless: key-level limits need a key.
    const limits = keyLimits(api, req, session.keyId, session.state);
    if (limits.noRight) return { status: 429, message: KEY_LIMITED };
    if (limits.rate !== undefined) {
      const v = await c.limiter.check(limits.rate);
      req.rateLimit = figures(v);
      if (v.blocked) return { status: 429, message: KEY_LIMITED };
    }
    if (limits.quota !== undefined) {
      const q = await c.quotas.take(limits.quota.key, limits.quota.max, limits.quota.renewalSeconds);
      // The request's copy of the session carries what is left, for the X-RateLimit-* headers.
      const s = session.state;
      const right = s.access_rights?.[api.id]?.limit;
      for (const target of [s, right]) {
        if (target === undefined) continue;
        target.quota_remaining = q.remaining;
        target.quota_renews = q.renews;
      }
      if (q.blocked) return { status: 403, message: QUOTA_EXCEEDED };
    }
    return undefined;
  }

  private failed(err: unknown, failOpen: boolean): void {
    if (this.outage) return;
    this.outage = true;
    const meanwhile = failOpen ? 'admitted without limits (rate_limit_fail_open)' : 'refused with 429';
    this.logger.error(`rate limits cannot be counted (${errorMessage(err)}): requests are ${meanwhile} until Redis answers again`);
  }

  private recovered(): void {
    if (!this.outage) return;
    this.outage = false;
    this.logger.info('rate limits are counted again');
  }

  async close(): Promise<void> {
    for (const c of this.counting.values()) {
      await c.limiter.close();
      await c.connection?.close();
    }
    this.counting.clear();
  }
}

function figures(v: Verdict): { limit: number; remaining: number; resetAt: number } {
  return { limit: v.limit, remaining: v.remaining, resetAt: Math.floor((Date.now() + v.resetMs) / 1000) };
}
