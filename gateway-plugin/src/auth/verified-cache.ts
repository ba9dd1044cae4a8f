/**
 * Tokens whose signature verified, per API object (a reload makes new ones, so a changed key or
 * source never meets an old entry), until the token's `exp` (at most {@link MAX_TTL_MS} for a
 * token without one) and at most {@link MAX_ENTRIES} per API, oldest dropped first. Claims are
 * still checked on every request: only the signature work is saved.
 */
import type { ApiSpec } from '../apis/api-spec.js';
import type { ParsedJwt } from './jwt-token.js';

export const MAX_ENTRIES = 10_000;
export const MAX_TTL_MS = 300_000;

interface Entry {
  token: ParsedJwt;
  /** What the key was when it verified (a key-level secret); '' for an API-level key. */
  keyTag: string;
  until: number;
}

const caches = new WeakMap<ApiSpec, Map<string, Entry>>();

export function cachedToken(api: ApiSpec, raw: string, keyTag = ''): ParsedJwt | undefined {
  const cache = caches.get(api);
  const e = cache?.get(raw);
  if (e === undefined) return undefined;
  if (e.until <= Date.now() || e.keyTag !== keyTag) {
    cache!.delete(raw);
    return undefined;
  }
  return e.token;
}

export function cacheToken(api: ApiSpec, token: ParsedJwt, keyTag = ''): void {
  let cache = caches.get(api);
  if (cache === undefined) {
    cache = new Map();
    caches.set(api, cache);
  }
  const exp = token.claims.exp;
  const now = Date.now();
  const until = typeof exp === 'number' && exp > 0 ? Math.min(exp * 1000, now + MAX_TTL_MS) : now + MAX_TTL_MS;
  if (until <= now) return;
  if (cache.size >= MAX_ENTRIES) {
    // Maps iterate in insertion order: the first key is the oldest entry.
    const oldest = cache.keys().next().value as string;
    cache.delete(oldest);
  }
  cache.set(token.raw, { token, keyTag, until });
}
