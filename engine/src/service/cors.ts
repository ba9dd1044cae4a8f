import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpConfig } from '../config/root-spec.js';
import { ErrorCode, SvcError } from '../errors.js';

const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/** Lower-cased and without a trailing slash: `https://Dash.example/` and `https://dash.example` are one origin. */
function normalizeOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}

/**
 * CORS for the service server, so that a browser page on another origin (a dashboard polling
 * `/ready` or `/metrics`) may read its answers. Only origins listed in `allowed_origins` (or
 * every origin, with `*`) get an `Access-Control-Allow-Origin` header.
 */
export class Cors {
  private readonly anyOrigin: boolean;
  private readonly origins: Set<string>;

  constructor(conf: HttpConfig['cors']) {
    if (conf.allowed_origins.length === 0) {
      // As in Benthos: CORS with no origin would allow nothing and is surely a mistake.
      throw new SvcError(
        ErrorCode.ConfigLint,
        'http.cors.enabled is true but http.cors.allowed_origins is empty: list the allowed origins, or "*" for any',
      );
    }
    this.anyOrigin = conf.allowed_origins.includes('*');
    this.origins = new Set(conf.allowed_origins.map(normalizeOrigin));
  }

  /** Sets the CORS headers of a request; answers it (204) and returns true when it is a preflight. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const origin = req.headers.origin;
    const allowed = origin !== undefined && (this.anyOrigin || this.origins.has(normalizeOrigin(origin)));
    if (!this.anyOrigin) res.setHeader('Vary', 'Origin');
    if (allowed) res.setHeader('Access-Control-Allow-Origin', this.anyOrigin ? '*' : origin);

    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    if (!preflight) return false;
    if (allowed) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      const requested = req.headers['access-control-request-headers'];
      if (requested) res.setHeader('Access-Control-Allow-Headers', requested);
      res.setHeader('Access-Control-Max-Age', '600');
    }
    // A preflight from a disallowed origin is answered too, without the headers: the browser then refuses.
    res.writeHead(204).end();
    return true;
  }
}
