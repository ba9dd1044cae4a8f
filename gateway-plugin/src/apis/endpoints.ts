/**
 * Which endpoint of an API a request is for: Tyk's endpoint paths (rate limits, URL rewrites)
 * are patterns over the path after the listen path, `{id}` and `/*` widened as Tyk does, matched
 * with RE2 (linear time whatever the pattern and the path), unanchored as Tyk matches them.
 */
import { RE2JS } from 're2js';
import { preparePathRegexp } from '../sessions/access-check.js';
import type { ApiSpec } from './api-spec.js';

const compiled = new Map<string, RE2JS | null>();

/** Endpoint patterns, compiled once (RE2: linear time whatever the pattern and the path). */
function matcher(path: string): RE2JS | null {
  let re = compiled.get(path);
  if (re === undefined) {
    try {
      re = RE2JS.compile(preparePathRegexp(path));
    } catch {
      re = null;
    }
    if (compiled.size > 10_000) compiled.clear();
    compiled.set(path, re);
  }
  return re;
}

/** The path endpoint patterns are matched against: the request path after the listen path. */
export function endpointPath(api: ApiSpec, path: string): string {
  if (api.listenPath !== '/' && path.startsWith(api.listenPath)) {
    const rest = path.slice(api.listenPath.length);
    return rest.startsWith('/') ? rest : `/${rest}`;
  }
  return path;
}

export function endpointMatches(e: { path: string; method: string }, method: string, path: string): boolean {
  if (e.method !== '' && e.method.toUpperCase() !== method) return false;
  const re = matcher(e.path);
  return re !== null && re.matcher(path).find();
}
