/**
 * Whether a request's body must be read into the message (a rule of its API reads it) or left to
 * stream through the proxy: a split-token endpoint (its POST form is sent to the identity provider
 * by a processor), a URL rewrite with a payload trigger, a JSON Schema check (`validate_json`, OAS `validateRequest`), a body transform,
 * a cached POST, PUT or PATCH endpoint (Tyk's RedisCacheMiddleware reads the body into the
 * cache key), or basic auth that reads credentials from the body (any request of the API). The body is then bounded as every read body is (`max_body_size`: 413).
 */
import type { ApiSpec } from '../apis/api-spec.js';
import { endpointMatches, pathMatchingOf } from '../apis/endpoints.js';
import { firstEndpointFor } from '../kernel/endpoint-lists.js';

/** The methods whose body is part of a response cache key (mw_redis_cache.go isBodyHashRequired). */
const BODY_KEYED = new Set(['POST', 'PUT', 'PATCH']);

/** Compiled endpoint paths, per API object (an API is immutable; a reload makes new ones). */
const compiled = new WeakMap<ApiSpec, Array<{ method: string; path: RegExp }>>();

function endpointsOf(api: ApiSpec): Array<{ method: string; path: RegExp }> {
  let e = compiled.get(api);
  if (e === undefined) {
    e = api.splitToken.map((s) => ({ method: s.method.toUpperCase(), path: pathPattern(s.path) }));
    compiled.set(api, e);
  }
  return e;
}

/** A Tyk endpoint path: a regular expression over the path after the listen path, anchored. */
function pathPattern(p: string): RegExp {
  const withSlash = p.startsWith('/') ? p : '/' + p;
  try {
    return new RegExp(`^${withSlash}$`);
  } catch {
    return new RegExp(`^${withSlash.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  }
}

/** True when a rule of `api` needs the body of `method` `apiPath` (the path after the listen path). */
export function needsBody(api: ApiSpec, method: string, apiPath: string): boolean {
  if (api.basicAuth?.fromBody !== undefined) return true;
  if (api.splitToken.length > 0) for (const e of endpointsOf(api)) if ((e.method === '' || e.method === method) && e.path.test(apiPath)) return true;
  // A JSON Schema check for the method: its path is matched in gateway_transform (against the path
  // with and without the listen path, as Tyk); the body is read for any path of that method.
  if (api.jsonValidations?.some((v) => v.method === method) === true) return true;
  if (api.requestValidations?.some((v) => v.method === method) === true) return true;
  if (api.bodyTransforms?.some((v) => v.method === method) === true) return true;
  if (api.cache !== undefined && BODY_KEYED.has(method) && firstEndpointFor(api.cachePaths, api, method, apiPath) !== undefined) return true;
  if (api.urlRewrites.length === 0) return false;
  // The first rule for the endpoint is the one that applies: only its triggers count.
  const rule = api.urlRewrites.find((r) => endpointMatches(r, method, apiPath, pathMatchingOf(api)));
  return rule !== undefined && rule.triggers.some((t) => t.rules.payload !== undefined);
}
