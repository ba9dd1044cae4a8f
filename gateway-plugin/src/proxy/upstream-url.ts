/**
 * Where a request goes upstream: the origin (which picks the connection pool), the path with its
 * query, and the Host the upstream sees. Built as Tyk's director does (gateway/reverse_proxy.go):
 * the target's path and the request's path joined with exactly one slash (`singleJoiningSlash`),
 * the target's query first, then the request's, joined with `&`. An API's target is parsed once
 * and kept; only a rewrite to a full URL parses per request.
 */
import type { GatewayRequest } from '../kernel/request.js';

/** A parsed `target_url`. */
export interface Target {
  /** `http://host:port`: the pool's key. */
  origin: string;
  /** `host[:port]` as the URL has it: the Host header the upstream gets. */
  host: string;
  /** The target's path without trailing slashes ('' for none). */
  basePath: string;
  /** The target's query without `?` ('' for none). */
  query: string;
}

export interface UpstreamLocation {
  target: Target;
  /** Path and query, as the request line carries them. */
  path: string;
}

/**
 * Tyk's `singleJoiningSlash` (with `disable_strip_slash` off): trailing slashes of the target's
 * path and leading slashes of the request's go, one slash joins them; an empty request path
 * leaves the target's path alone.
 */
export function singleJoiningSlash(targetPath: string, subPath: string): string {
  let end = targetPath.length;
  while (end > 0 && targetPath.charCodeAt(end - 1) === 47) end--;
  let start = 0;
  while (start < subPath.length && subPath.charCodeAt(start) === 47) start++;
  const base = end === targetPath.length ? targetPath : targetPath.slice(0, end);
  if (start === subPath.length) return base;
  return base + '/' + (start === 0 ? subPath : subPath.slice(start));
}

export function parseTarget(url: string): Target {
  const u = new URL(url);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`upstream URL ${u.protocol}//${u.host} is not http or https`);
  let basePath = u.pathname;
  let end = basePath.length;
  while (end > 0 && basePath.charCodeAt(end - 1) === 47) end--;
  basePath = basePath.slice(0, end);
  return { origin: u.origin, host: u.host, basePath, query: u.search.length > 1 ? u.search.slice(1) : '' };
}

/** Parsed targets by URL: an API's target is parsed on its first request only. */
export class Targets {
  private readonly parsed = new Map<string, Target>();

  get(url: string): Target {
    let t = this.parsed.get(url);
    if (t === undefined) {
      t = parseTarget(url);
      // Targets come from API definitions, a bounded set; a reload that changes them all leaves
      // the old entries behind, so the cache starts over past a size no config reaches.
      if (this.parsed.size >= 10_000) this.parsed.clear();
      this.parsed.set(url, t);
    }
    return t;
  }

  /**
   * Where `req` goes: its rewrite URL as it is (a rewrite gives the final URL), else the API's
   * target joined with the request's path and query.
   */
  locate(req: GatewayRequest, targetUrl: string): UpstreamLocation {
    if (req.upstreamUrl) {
      const u = new URL(req.upstreamUrl);
      const target = this.get(u.origin);
      return { target, path: (u.pathname || '/') + u.search };
    }
    const target = this.get(targetUrl);
    let path = singleJoiningSlash(target.basePath, req.upstreamPath);
    if (path === '') path = '/';
    else if (path.charCodeAt(0) !== 47) path = '/' + path;
    const query = target.query === '' || req.query === '' ? target.query + req.query : target.query + '&' + req.query;
    return { target, path: query === '' ? path : path + '?' + query };
  }
}
