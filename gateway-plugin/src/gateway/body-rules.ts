/**
 * Whether a request's body must be read into the message (a rule of its API reads it) or left to
 * stream through the proxy. Today: a split-token endpoint (its POST form is sent to the identity
 * provider by a processor). Issue 13's body triggers add theirs here.
 */
import type { ApiSpec } from '../apis/api-spec.js';

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
  if (api.splitToken.length === 0) return false;
  for (const e of endpointsOf(api)) if ((e.method === '' || e.method === method) && e.path.test(apiPath)) return true;
  return false;
}
