/**
 * The response cache of the gateway, as Tyk v5.14.0's RedisCacheMiddleware and
 * ResponseCacheMiddleware (`gateway/mw_redis_cache.go`, `res_cache.go`) decide it, kept in the
 * gateway process's memory here, or in Redis with svc.conf `storage` (redis-response-cache.ts):
 *
 * - which requests: with `cache_options.enable_cache`, every GET, HEAD and OPTIONS when
 *   `cache_all_safe_requests`, else the first `advance_cache_config` entry matching the method
 *   (exactly) and path, or a `cache` path (GET, HEAD, OPTIONS);
 * - the key: the API, who asks (the request's key, or for a keyless API the client's address,
 *   Tyk's RealIP: X-Real-IP, then the first X-Forwarded-For, then the peer), the method, the URL
 *   the upstream gets (path and query), the `cache_by_headers` values, and for POST, PUT and
 *   PATCH a hash of the body (or of the entry's `cache_key_regex` match in it). An answer is
 *   never served to another key; a keyless API's "client" is the X-Real-IP / X-Forwarded-For the
 *   client sends, so one that sends another's address is served that one's answers, as in Tyk;
 * - what is kept: the answer (status, headers as the client got them, body) when its status is
 *   in the entry's `cache_response_codes` (else `cache_options.cache_response_codes`; none listed:
 *   every status below 500), or the upstream set `x-svc-cache-action-set` with `enable_upstream_cache_control`;
 *   for the entry's `timeout` (else `cache_timeout`, or the upstream's TTL header), to the second
 *   as Tyk counts it (expired once `now` passes `stored second + ttl`).
 *
 * Bounded: answers over {@link MAX_ENTRY_BYTES} are not kept, and past {@link MAX_TOTAL_BYTES}
 * the oldest entries go. One memory cache per gateway node: with `processes` the primary keeps it
 * (node-response-cache.ts); the Redis one is shared by every gateway on that Redis.
 */
import { createHash } from 'node:crypto';
import { compiledRe2 } from '@svc/engine/kit';
import type { ApiSpec, EndpointCache } from '../apis/api-spec.js';
import { firstEndpointFor } from '../kernel/endpoint-lists.js';
import type { GatewayRequest } from '../kernel/request.js';
import type { GatewayConfig, StorageConfig } from '../conf/gateway-config.js';

export const MAX_ENTRY_BYTES = 4 * 1024 * 1024;
export const MAX_TOTAL_BYTES = 64 * 1024 * 1024;
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
const BODY_HASHED = new Set(['POST', 'PUT', 'PATCH']);
const UPSTREAM_SET = 'x-svc-cache-action-set';
const UPSTREAM_TTL = 'x-svc-cache-action-set-ttl';

export interface CachedAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
  /** Milliseconds since the epoch: the second Tyk's timestamp names, past which it is expired. */
  expiresAt: number;
}

/**
 * How one request is cached: its key (Tyk's `<api id><who><md5>`, NUL between the parts), the
 * statuses kept, the TTL in seconds.
 */
export interface CachePlan {
  key: string;
  codes: number[];
  ttl: number;
}

function firstValue(v: string | string[] | undefined): string {
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

/** Tyk's request.RealIP. */
function realIp(req: GatewayRequest): string {
  const real = firstValue(req.headers['x-real-ip']);
  if (real !== '') return real;
  const xff = firstValue(req.headers['x-forwarded-for']);
  if (xff !== '') return xff.split(',')[0]!.trim();
  return req.remoteAddress;
}

/**
 * The plan for `req`, or undefined when it is not cached: not a cached endpoint, or a body that
 * is part of the key but was streamed rather than read (`body` undefined; the input reads the body
 * of a cached POST, PUT or PATCH endpoint: body-rules.ts).
 */
export function cachePlan(api: ApiSpec, req: GatewayRequest, method: string, upstreamTarget: string, body: Buffer | undefined): CachePlan | undefined {
  const options = api.cache;
  if (options === undefined) return undefined;
  let entry: EndpointCache | undefined;
  if (!(options.allSafeRequests && SAFE.has(method))) {
    const path = req.upstreamPath.charCodeAt(0) === 47 ? req.upstreamPath : `/${req.upstreamPath}`;
    entry = firstEndpointFor(api.cachePaths, api, method, path);
    if (entry === undefined) return undefined;
  }
  const who = req.session?.keyId ?? realIp(req);
  let material = `${method}-${upstreamTarget}`;
  let byHeaders = '';
  for (const name of options.byHeaders) byHeaders += `${name}-${firstValue(req.headers[name.toLowerCase()])}`;
  if (byHeaders !== '') material += `-${byHeaders}`;
  const h = createHash('md5').update(material);
  if (BODY_HASHED.has(method)) {
    if (body === undefined) return undefined;
    const regex = entry?.keyRegex ?? '';
    if (regex === '') h.update('-' + createHash('sha256').update(body).digest('hex'));
    else {
      // Matched on the body as text (Tyk matches bytes; the same for UTF-8 bodies).
      const m = compiledRe2(regex)?.matcher(body.toString('latin1'));
      if (m?.find() === true)
        h.update(
          '-' +
            createHash('sha256')
              .update(Buffer.from(m.group() ?? '', 'latin1'))
              .digest('hex'),
        );
    }
  }
  const codes = entry !== undefined && entry.codes.length > 0 ? entry.codes : options.codes;
  const ttl = entry !== undefined && entry.timeout > 0 ? entry.timeout : options.timeout;
  return { key: `${apiCachePrefix(api.id)}${who}\u0000${h.digest('hex')}`, codes, ttl };
}

/** Whether (and for how long) an answer is kept, as Tyk's ResponseCacheMiddleware decides. */
export function keepFor(api: ApiSpec, plan: CachePlan, status: number, headers: Record<string, string | string[] | undefined>): number | undefined {
  // None listed: any status but a server error (svc's default; Tyk keeps a 500 too, which then
  // answers every caller until the entry expires).
  let keep = plan.codes.length === 0 ? status < 500 : plan.codes.includes(status);
  let ttl = plan.ttl;
  const options = api.cache;
  if (options?.upstreamCacheControl === true) {
    if (firstValue(headers[UPSTREAM_SET]) !== '') keep = true;
    const ttlHeader = firstValue(headers[(options.ttlHeader || UPSTREAM_TTL).toLowerCase()]);
    if (/^[+-]?\d+$/.test(ttlHeader)) ttl = Number(ttlHeader);
  }
  return keep ? ttl : undefined;
}

export class ResponseCache {
  private readonly entries = new Map<string, CachedAnswer>();
  private bytes = 0;

  get(key: string, now = Date.now()): CachedAnswer | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (e.expiresAt < now) {
      this.delete(key);
      return undefined;
    }
    return e;
  }

  /** Keeps an answer for `ttl` seconds (Tyk's timestamp: the current second plus the TTL). */
  set(key: string, answer: Omit<CachedAnswer, 'expiresAt'>, ttl: number, now = Date.now()): void {
    if (answer.body.length > MAX_ENTRY_BYTES) return;
    this.delete(key);
    const expiresAt = (Math.floor(now / 1000) + ttl) * 1000;
    this.entries.set(key, { ...answer, expiresAt });
    this.bytes += answer.body.length;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= MAX_TOTAL_BYTES) break;
      this.delete(oldest);
    }
  }

  /** Drops every answer kept for API `apiId` (Tyk's DELETE /tyk/cache/{apiId}). */
  deleteApi(apiId: string): void {
    const prefix = apiCachePrefix(apiId);
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.delete(key);
  }

  private delete(key: string): void {
    const e = this.entries.get(key);
    if (e === undefined) return;
    this.entries.delete(key);
    this.bytes -= e.body.length;
  }
}

/** The start of every plan key of API `apiId` (see {@link cachePlan}): the id and its NUL, so no other API's. */
export function apiCachePrefix(apiId: string): string {
  return `${apiId}\u0000`;
}

const memoryCaches = new Map<string, ResponseCache>();

/** This process's memory cache of gateway `name` (the proxy's, with one process and no `storage`). */
export function memoryResponseCache(name: string): ResponseCache {
  let c = memoryCaches.get(name);
  if (c === undefined) memoryCaches.set(name, (c = new ResponseCache()));
  return c;
}

/** Where Tyk keeps the cache: `cache_storage` with `enable_separate_cache_store`, else `storage` (undefined: memory). */
export function cacheStorageOf(config: GatewayConfig | undefined): StorageConfig | undefined {
  return config?.enable_separate_cache_store === true && config.cache_storage !== undefined ? config.cache_storage : config?.storage;
}
