import type { IncomingHttpHeaders } from 'node:http';
import { ErrorCode, SvcError } from '../errors.js';

/**
 * The methods a preflight allows. Benthos' `http.cors` allows GET, HEAD, POST, PUT, PATCH and
 * DELETE; OPTIONS is listed too so that a page may send a real OPTIONS request to a route that
 * takes one (a gateway API, an `http_server` with OPTIONS in `allowed_verbs`). This is CORS
 * policy, not routing: a route still answers 405 to a method it does not take.
 */
const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
/** How long a browser may cache a preflight's answer, in seconds. */
const MAX_AGE_SECONDS = '600';

/** Lower-cased and without a trailing slash: `https://Dash.example/` and `https://dash.example` are one origin. */
function normalizeOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}

/** What CORS reads of a request (node:http and node:http2 compat requests both fit). */
export interface CorsRequest {
  method?: string;
  headers: IncomingHttpHeaders;
}

/** What CORS writes to a response (node:http and node:http2 compat responses both fit). */
export interface CorsResponse {
  setHeader(name: string, value: string): unknown;
  writeHead(status: number): unknown;
  end(): unknown;
}

/**
 * CORS for a server's `cors` config (`enabled`, `allowed_origins`: the service server's
 * `http.cors` and `http_server`'s `cors`), so that a page on another origin may read answers.
 *
 * The one behaviour for OPTIONS, after the Fetch standard (the CORS protocol):
 * - A preflight is an OPTIONS request with both `Origin` and `Access-Control-Request-Method`.
 *   It is answered here with 204 and never reaches a route: with `Access-Control-Allow-Origin`,
 *   `-Methods`, `-Headers` (the requested ones) and `-Max-Age` when the origin is allowed, bare
 *   when it is not (the browser then refuses the real request, which is how CORS says no).
 * - Any other OPTIONS (no `Origin`, or no `Access-Control-Request-Method`) is an ordinary request
 *   and goes to its route like any method: `curl -X OPTIONS` or a server-to-server call is not a
 *   preflight, and a route that takes OPTIONS must see it. (Benthos' gorilla/handlers swallows
 *   every OPTIONS from an unlisted origin with an empty 200, and answers 400 to an OPTIONS from a
 *   listed origin without the request-method header; neither is what the standard describes.)
 * - Every other request from an allowed origin gets `Access-Control-Allow-Origin` (`*` when
 *   `allowed_origins` holds `*`, else the origin itself, with `Vary: Origin`).
 */
export class Cors {
  private readonly anyOrigin: boolean;
  private readonly origins: Set<string>;

  /** `field` names the config in the error, e.g. `http.cors` or `http_server.cors`. */
  constructor(allowedOrigins: readonly string[], field = 'cors') {
    if (allowedOrigins.length === 0) {
      // As in Benthos: CORS with no origin would allow nothing and is surely a mistake.
      throw new SvcError(ErrorCode.ConfigLint, `${field}.enabled is true but ${field}.allowed_origins is empty: list the allowed origins, or "*" for any`);
    }
    this.anyOrigin = allowedOrigins.includes('*');
    this.origins = new Set(allowedOrigins.map(normalizeOrigin));
  }

  /** True when `origin` may read answers. */
  allows(origin: string | undefined): boolean {
    return origin !== undefined && (this.anyOrigin || this.origins.has(normalizeOrigin(origin)));
  }

  /**
   * Sets the CORS headers of a request. Answers a preflight (204) and returns true; returns
   * false for any other request, which the caller then routes as usual.
   */
  handle(req: CorsRequest, res: CorsResponse): boolean {
    const origin = req.headers.origin;
    const allowed = this.allows(origin);
    if (!this.anyOrigin) res.setHeader('Vary', 'Origin');
    if (allowed) res.setHeader('Access-Control-Allow-Origin', this.anyOrigin ? '*' : origin!);

    const preflight = req.method === 'OPTIONS' && origin !== undefined && req.headers['access-control-request-method'] !== undefined;
    if (!preflight) return false;
    if (allowed) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      const requested = req.headers['access-control-request-headers'];
      if (requested) res.setHeader('Access-Control-Allow-Headers', requested);
      res.setHeader('Access-Control-Max-Age', MAX_AGE_SECONDS);
    }
    res.writeHead(204);
    res.end();
    return true;
  }
}
