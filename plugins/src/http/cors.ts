/**
 * CORS for an http_server input with its own `address` (the service-wide server has its own
 * `http.cors`): listed origins (or `*`) get `Access-Control-Allow-Origin`, and preflight
 * requests are answered here.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ErrorCode, SvcError } from '@svc/engine';

const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';

const normalize = (o: string) => o.trim().replace(/\/+$/, '').toLowerCase();

/** What the handler needs of a response (node:http and node:http2 compat responses both fit). */
export interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

export class Cors {
  private readonly any: boolean;
  private readonly origins: Set<string>;

  constructor(allowedOrigins: string[]) {
    if (allowedOrigins.length === 0) {
      throw new SvcError(ErrorCode.ConfigLint, 'http_server: cors.enabled is true but cors.allowed_origins is empty: list the allowed origins, or "*" for any');
    }
    this.any = allowedOrigins.includes('*');
    this.origins = new Set(allowedOrigins.map(normalize));
  }

  /** Sets the CORS headers; returns true when the request is a preflight (answer it with 204). */
  apply(method: string, headers: IncomingHttpHeaders, res: HeaderSink): boolean {
    const origin = headers.origin;
    const allowed = typeof origin === 'string' && (this.any || this.origins.has(normalize(origin)));
    if (!this.any) res.setHeader('Vary', 'Origin');
    if (allowed) res.setHeader('Access-Control-Allow-Origin', this.any ? '*' : origin);
    const preflight = method === 'OPTIONS' && headers['access-control-request-method'] !== undefined;
    if (preflight && allowed) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      const requested = headers['access-control-request-headers'];
      if (typeof requested === 'string') res.setHeader('Access-Control-Allow-Headers', requested);
      res.setHeader('Access-Control-Max-Age', '600');
    }
    return preflight;
  }
}
