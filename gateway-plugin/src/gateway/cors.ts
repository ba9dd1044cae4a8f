/**
 * CORS as Tyk v5.14.0 answers it (`gateway/mw_cors.go` over rs/cors v1.11.1, right after its
 * VersionCheck and before the IP lists, authentication and every limit):
 *
 * - a preflight (OPTIONS with Access-Control-Request-Method) gets `Vary: Origin,
 *   Access-Control-Request-Method, Access-Control-Request-Headers`; when its Origin is allowed
 *   (`allowed_origins`, none = all, `*` = all, one `*` wildcard per entry; compared without case),
 *   its method allowed (`allowed_methods`, none = GET, POST, HEAD; exactly) and its request headers
 *   allowed (`allowed_headers`, none = accept, content-type, x-requested-with; `*` = all; the list
 *   as a browser sends it: lower case and sorted), also Access-Control-Allow-Origin (`*` or the
 *   Origin), -Allow-Methods and -Allow-Headers (echoed), -Allow-Credentials, -Max-Age; it is
 *   answered 204 here unless `options_passthrough`;
 * - any other request gets `Vary: Origin`, and with an allowed Origin and method
 *   Access-Control-Allow-Origin, -Expose-Headers, -Allow-Credentials on its answer; an OPTIONS
 *   request is answered 200 here unless `options_passthrough`.
 *
 * The headers go on whatever answers the request; the upstream's own CORS headers give way to
 * them, its Vary is added (Tyk's copyHeader).
 */
import type { Answer } from '@svc/engine';
import type { CorsSettings } from '../apis/api-spec.js';
import { canonicalHeader } from '../kernel/context-data.js';

interface Compiled {
  originsAll: boolean;
  origins: Set<string>;
  wildcards: Array<[string, string]>;
  methods: string[];
  headersAll: boolean;
  /** Allowed header names (lower case), sorted: position by name. */
  headers: Map<string, number>;
  maxHeaderLen: number;
  exposed: string;
  maxAge: string;
}

const compiled = new WeakMap<CorsSettings, Compiled>();

function compile(c: CorsSettings): Compiled {
  let k = compiled.get(c);
  if (k !== undefined) return k;
  const origins = c.allowedOrigins.map((o) => o.toLowerCase());
  const originsAll = origins.length === 0 || origins.includes('*');
  const headerNames = c.allowedHeaders.length === 0 ? ['accept', 'content-type', 'x-requested-with'] : c.allowedHeaders.map((h) => h.toLowerCase());
  const sorted = [...new Set(headerNames)].sort();
  k = {
    originsAll,
    origins: new Set(originsAll ? [] : origins.filter((o) => !o.includes('*'))),
    wildcards: originsAll ? [] : origins.filter((o) => o.includes('*')).map((o) => [o.slice(0, o.indexOf('*')), o.slice(o.indexOf('*') + 1)]),
    methods: c.allowedMethods.length === 0 ? ['GET', 'POST', 'HEAD'] : c.allowedMethods,
    headersAll: c.allowedHeaders.includes('*'),
    headers: new Map(sorted.map((h, i) => [h, i])),
    maxHeaderLen: Math.max(0, ...sorted.map((h) => h.length)),
    exposed: c.exposedHeaders.map(canonicalHeader).join(', '),
    maxAge: c.maxAge > 0 ? String(c.maxAge) : c.maxAge < 0 ? '0' : '',
  };
  compiled.set(c, k);
  return k;
}

function originAllowed(k: Compiled, origin: string): boolean {
  if (k.originsAll) return true;
  const o = origin.toLowerCase();
  if (k.origins.has(o)) return true;
  return k.wildcards.some(([pre, suf]) => o.length >= pre.length + suf.length && o.startsWith(pre) && o.endsWith(suf));
}

function methodAllowed(k: Compiled, method: string): boolean {
  if (k.methods.length === 0) return false;
  return method === 'OPTIONS' || k.methods.includes(method);
}

/** Trims at most one space or tab on each side (rs/cors' OWS rule); undefined when there are more. */
function trimOws(s: string): string | undefined {
  let a = 0;
  let b = s.length;
  if (b > a && (s[b - 1] === ' ' || s[b - 1] === '\t')) b--;
  if (b > a && (s[b - 1] === ' ' || s[b - 1] === '\t')) return undefined;
  if (a < b && (s[a] === ' ' || s[a] === '\t')) a++;
  if (a < b && (s[a] === ' ' || s[a] === '\t')) return undefined;
  return s.slice(a, b);
}

/** rs/cors' SortedSet.Accepts: every name allowed, in strictly increasing order, few empty elements. */
function headersAccepted(k: Compiled, lines: string[]): boolean {
  const maxLen = 1 + k.maxHeaderLen + 1 + 1;
  let last = -1;
  let empty = 0;
  for (let s of lines) {
    for (;;) {
      const end = Math.min(s.length, maxLen);
      const comma = s.slice(0, end).indexOf(',');
      const name0 = comma >= 0 ? s.slice(0, comma) : s;
      s = comma >= 0 ? s.slice(comma + 1) : '';
      const name = trimOws(name0);
      if (name === undefined) return false;
      if (name === '') {
        if (++empty > 16) return false;
        if (comma < 0) break;
        continue;
      }
      const pos = k.headers.get(name);
      if (pos === undefined || pos <= last) return false;
      last = pos;
      if (comma < 0) break;
    }
  }
  return true;
}

/** How the request looks to CORS: its method and its header lines (lower-case names; every line of a name). */
export interface CorsRequest {
  method: string;
  lines: (name: string) => string[];
}

/** What CORS does to a request: headers for its answer, and the answer itself when it ends here. */
export interface CorsOutcome {
  headers: Record<string, string>;
  answer?: Answer;
}

/** Tyk's CORS handling of `r` for an API with `settings` (enabled). */
export function corsOutcome(settings: CorsSettings, r: CorsRequest): CorsOutcome {
  const k = compile(settings);
  const first = (name: string): string => r.lines(name)[0] ?? '';
  const headers: Record<string, string> = {};
  const requestMethod = first('access-control-request-method');
  if (r.method === 'OPTIONS' && requestMethod !== '') {
    headers['Vary'] = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';
    const origin = first('origin');
    const requested = r.lines('access-control-request-headers');
    if (
      origin !== '' &&
      originAllowed(k, origin) &&
      methodAllowed(k, requestMethod) &&
      (requested.length === 0 || k.headersAll || headersAccepted(k, requested))
    ) {
      headers['Access-Control-Allow-Origin'] = k.originsAll ? '*' : r.lines('origin').join(', ');
      headers['Access-Control-Allow-Methods'] = r.lines('access-control-request-method').join(', ');
      if (requested.length > 0 && requested[0] !== '') headers['Access-Control-Allow-Headers'] = requested.join(', ');
      if (settings.allowCredentials) headers['Access-Control-Allow-Credentials'] = 'true';
      if (k.maxAge !== '') headers['Access-Control-Max-Age'] = k.maxAge;
    }
    return settings.optionsPassthrough ? { headers } : { headers, answer: { status: 204, headers } };
  }
  headers['Vary'] = 'Origin';
  const origin = first('origin');
  if (origin !== '' && originAllowed(k, origin) && methodAllowed(k, r.method)) {
    headers['Access-Control-Allow-Origin'] = k.originsAll ? '*' : r.lines('origin').join(', ');
    if (k.exposed !== '') headers['Access-Control-Expose-Headers'] = k.exposed;
    if (settings.allowCredentials) headers['Access-Control-Allow-Credentials'] = 'true';
  }
  if (r.method === 'OPTIONS' && !settings.optionsPassthrough) return { headers, answer: { status: 200, headers } };
  return { headers };
}

/** True for a preflight Tyk's endpoint lists let through untouched (CORS on, no passthrough). */
export function skipsEndpointLists(settings: CorsSettings | undefined, method: string, requestMethod: string): boolean {
  return settings !== undefined && !settings.optionsPassthrough && method === 'OPTIONS' && requestMethod !== '';
}
