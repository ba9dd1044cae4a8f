/**
 * Which endpoint of an API a request is for: Tyk's endpoint paths (endpoint lists, rate limits,
 * URL rewrites, `allowed_urls`) are patterns, `{id}` and `/*` widened as Tyk's PreparePathRegexp
 * does (internal/httputil/mux.go at v5.14.0), matched with RE2 (linear time whatever the pattern
 * and the path). Unanchored by default (`/public` also matches `/x/public`); svc.conf's
 * `http_server_options.enable_path_prefix_matching` anchors a pattern starting with `/` at the
 * start (`^`), `enable_path_suffix_matching` anchors every pattern at the end (`$`).
 * It takes of an API only the fields it reads, so the API model (`api-spec.ts`) can import it.
 */
import { compiledRe2 } from '@svc/engine/kit';

/** svc.conf's `http_server_options.enable_path_prefix_matching` and `enable_path_suffix_matching`. */
export interface PathMatching {
  prefix: boolean;
  suffix: boolean;
}

/** Tyk's default: neither prefix nor suffix matching. */
export const WILDCARD_MATCHING: PathMatching = { prefix: false, suffix: false };

/**
 * Tyk's `PreparePathRegexp`: `{name}` segments (when the braces pair up) become `([^/]+)`, `/*`
 * becomes `/.*` (`/*\/` one segment); with `prefix` a pattern starting with `/` gets `^`, with
 * `suffix` one not ending in `$` gets `$`.
 */
export function preparePathRegexp(pattern: string, matching: PathMatching = WILDCARD_MATCHING): string {
  let p = pattern;
  const open = p.split('{').length - 1;
  if (open > 0 && open === p.split('}').length - 1) p = p.replace(/{([^}]+)}/g, '([^/]+)');
  if (p.includes('/*')) p = p.replaceAll('/*/', '/[^/]+/').replaceAll('/*', '/.*');
  if (matching.prefix && p.startsWith('/')) p = '^' + p;
  if (matching.suffix && !p.endsWith('$')) p = p + '$';
  return p;
}

/** The matching `api` is served with (Tyk's default when the gateway state has not set it). */
export function pathMatchingOf(api: { pathMatching?: PathMatching }): PathMatching {
  return api.pathMatching ?? WILDCARD_MATCHING;
}

/** The path endpoint patterns are matched against: the request path after the listen path. */
export function endpointPath(api: { listenPath: string }, path: string): string {
  if (api.listenPath !== '/' && path.startsWith(api.listenPath)) {
    const rest = path.slice(api.listenPath.length);
    return rest.startsWith('/') ? rest : `/${rest}`;
  }
  return path;
}

/** True when `e` is for `method` (or any method) and its pattern is found in `path` as `matching` anchors it. */
export function endpointMatches(e: { path: string; method: string }, method: string, path: string, matching: PathMatching = WILDCARD_MATCHING): boolean {
  if (e.method !== '' && e.method.toUpperCase() !== method) return false;
  const re = compiledRe2(preparePathRegexp(e.path, matching));
  return re !== null && re.matcher(path).find();
}
