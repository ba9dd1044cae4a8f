/**
 * Which API a request is for: the longest listen path that covers the request's (decoded, clean)
 * path wins, as Tyk sorts its routes (`sortSpecsByListenPath`: longer first, a `{name}` segment
 * counting as its slash only). A listen path covers every path it is a prefix of, as gorilla/mux's
 * PathPrefix does (`/foo` covers `/foo`, `/foo/...` and `/foobar`; `/` covers all). With svc.conf's
 * `enable_strict_routes` (Tyk's explicitRouteSubpaths, gateway/api_loader.go at v5.14.0), a listen
 * path without a trailing slash or `{name}` part that is routed a path neither equal to it nor
 * under it (`/foo` and `/foobar`) answers 404: the request does not go on to a shorter listen path.
 * An API with `active: false` is routed too: Tyk v5.14.0 serves a definition file whatever its
 * `active` says (only its mutual TLS setup reads it). With svc.conf's `enable_custom_domains`, an
 * API with a `domain` answers only on that host (Tyk's gorilla/mux Host route), and svc.conf's
 * `hostname` restricts the others. A router is immutable: a reload builds a new one, and a
 * request keeps the API it was routed to.
 */
import type { ApiSpec } from '../apis/api-spec.js';
import { hostMatches, hostPattern } from '../apis/host-template.js';

interface Route {
  api: ApiSpec;
  length: number;
  /** Set when the listen path has `{name}` segments. */
  pattern?: RegExp;
  /** Set when the API answers on one host only (its domain, or svc.conf's `hostname`). */
  host?: ReturnType<typeof hostPattern>;
}

/** svc.conf's routing: by Host (`enable_custom_domains`, `hostname`) and `enable_strict_routes`. */
export interface HostRouting {
  customDomains: boolean;
  hostname: string;
  strictRoutes?: boolean;
}

/** Tyk's `listenPathLength`: a `{name}` segment counts for nothing but its slash. */
export function listenPathLength(lp: string): number {
  if (!lp.includes('{')) return lp.length;
  let n = lp.split('/').length - 1;
  for (const seg of lp.split('/')) if (!(seg.length > 2 && seg.startsWith('{') && seg.endsWith('}'))) n += seg.length;
  return n;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A listen path with `{name}` segments as a prefix pattern (a segment matches one path segment). */
function patternOf(lp: string): RegExp | undefined {
  if (!/\{[^}]+\}/.test(lp)) return undefined;
  const body = lp
    .split('/')
    .map((seg) => (seg.length > 2 && seg.startsWith('{') && seg.endsWith('}') ? '[^/]+' : escapeRegExp(seg)))
    .join('/');
  return new RegExp(`^${body}`);
}

export class ApiRouter {
  private readonly routes: Route[];
  private readonly strict: boolean;

  constructor(apis: readonly ApiSpec[], hosts: HostRouting = { customDomains: false, hostname: '' }) {
    this.strict = hosts.strictRoutes === true;
    const byDomain = hosts.customDomains;
    this.routes = apis
      // An internal API is reached only by a loop or as a base API's version (Tyk does not route it).
      .filter((api) => api.internal !== true)
      .map((api) => {
        // Tyk: with custom domains an API with a domain answers on it ('' when domain_disabled:
        // any host); every other API on `hostname` when set.
        const host = byDomain && api.domain !== undefined ? (api.domainOn === true ? api.domain : '') : hosts.hostname;
        return {
          api,
          length: listenPathLength(api.listenPath),
          pattern: patternOf(api.listenPath),
          ...(host !== '' ? { host: hostPattern(host) } : {}),
        };
      })
      // Stable: two APIs of one length keep their load order. With custom domains, the APIs with
      // a domain (switched off or not) come first, as Tyk's sortSpecsByListenPath puts them.
      .sort((a, b) =>
        byDomain && (a.api.domain === undefined) !== (b.api.domain === undefined) ? (a.api.domain !== undefined ? -1 : 1) : b.length - a.length,
      );
  }

  /** The API serving `path` (decoded and clean) on `host` (the Host header), or undefined (Tyk's 404). */
  route(path: string, host = ''): ApiSpec | undefined {
    for (const r of this.routes) {
      if ((r.host === undefined || hostMatches(r.host, host)) && covers(r, path)) return this.strict && !explicit(r, path) ? undefined : r.api;
    }
    return undefined;
  }

  get size(): number {
    return this.routes.length;
  }
}

function covers(r: Route, path: string): boolean {
  return r.pattern ? r.pattern.test(path) : path.startsWith(r.api.listenPath);
}

/** Tyk's explicitRouteHandler: a listen path with a trailing slash or `{name}` takes what it covers, another itself and what is under it. */
function explicit(r: Route, path: string): boolean {
  const lp = r.api.listenPath;
  if (lp.endsWith('/') || (lp.includes('{') && lp.includes('}'))) return true;
  return path.length === lp.length || path.charCodeAt(lp.length) === 47; /* '/' */
}

/**
 * The path the upstream gets: the raw path, without the listen path when the API strips it
 * (Tyk's `StripListenPath`: what is left always starts with `/`).
 */
export function upstreamPathOf(api: ApiSpec, rawPath: string, path: string): string {
  if (!api.stripListenPath) return rawPath;
  const lp = api.listenPath;
  let rest: string;
  const pattern = patternOf(lp);
  if (pattern) {
    const m = pattern.exec(path);
    rest = m ? encodeURI(path.slice(m[0].length)) : rawPath;
  } else if (rawPath.startsWith(lp)) rest = rawPath.slice(lp.length);
  else rest = encodeURI(path.slice(lp.length));
  return rest.startsWith('/') ? rest : '/' + rest;
}
