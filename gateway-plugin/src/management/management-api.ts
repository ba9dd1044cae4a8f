/**
 * The management API: Tyk's gateway API with `/tyk/` → `/svc/` and `x-tyk-authorization` →
 * `x-svc-authorization`. `/hello` (health) is open, as Tyk's is; everything under `/svc/` needs
 * the gateway's `secret` in `x-svc-authorization` (compared in constant time), else Tyk's 403.
 * Trailing slashes are ignored (Tyk's `stripSlashes`); a known path with another method gets
 * Tyk's 405, an unknown one gorilla/mux's 404.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { errorMessage, type Answer, type Logger } from '@svc/engine';
import { BodyError, Router, ThrottledLog, readBody } from '@svc/engine/kit';
import { jsonAnswer } from '../kernel/answers.js';
import type { GatewaySource } from '../kernel/gateway-source.js';
import type { GatewayState } from '../kernel/state.js';
import { ApiEndpoints } from './apis.js';
import { CacheEndpoints } from './cache.js';
import { KeyEndpoints } from './keys.js';
import { OAuthEndpoints } from './oauth.js';
import { PolicyEndpoints } from './policies.js';
import { MALFORMED, METHOD_NOT_SUPPORTED, NO_ROUTE, statusMessage } from './replies.js';
import type { Endpoint, ManagementRequest, ManagementRoutes } from './routes.js';

/** The version `/hello` reports: the Tyk release whose answers this gateway gives. */
export const GATEWAY_VERSION = 'v5.14.0';
/** Management request bodies are read whole: this large at most, within this long. */
const MAX_BODY = 10 * 1024 * 1024;
const BODY_TIMEOUT_MS = 30_000;

const FORBIDDEN = statusMessage(403, 'Attempted administrative access with invalid or missing key!');
const TOO_LARGE = statusMessage(413, `Request is too large: at most ${MAX_BODY} bytes`);

/** `log` with its warnings and errors throttled: 5 a second at most, then how many were left out. */
function throttledFailures(log: Logger): Logger {
  const failures = new ThrottledLog(log, 1000, 5);
  const out: Logger = {
    fatal: (m, f) => log.fatal(m, f),
    error: (m) => failures.error(m),
    warn: (m) => failures.warn(m),
    info: (m, f) => log.info(m, f),
    debug: (m, f) => log.debug(m, f),
    trace: (m, f) => log.trace(m, f),
    enabled: (l) => log.enabled(l),
    child: (f) => log.child(f),
  };
  return out;
}

/** True for the paths the management API serves. */
export function isManagementPath(path: string): boolean {
  return path === '/hello' || path === '/svc' || path.startsWith('/svc/');
}

/** Whether `given` is the gateway secret, compared in constant time. */
export function sameSecret(given: string, secret: string): boolean {
  // Digests have one length whatever the inputs, so the comparison time says nothing of either.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(secret).digest();
  return timingSafeEqual(a, b);
}

export class ManagementApi {
  private readonly routes: ManagementRoutes = new Router<Endpoint>({ decodeParams: false });
  private readonly log: Logger;

  constructor(
    private readonly state: GatewayState,
    source: GatewaySource,
    /** Reloads; resolves with what did not load (the previous version of it is kept). */
    private readonly reload: () => Promise<string[]>,
    log: Logger,
  ) {
    // Failed calls (a wrong secret, a malformed body) log at most 5 lines a second, then a count.
    this.log = throttledFailures(log);
    // Tyk's /tyk/reload and /tyk/reload/group both reload this gateway (it is its own group); the answer names what was refused.
    const reloaded = async (): Promise<Answer> => statusMessage(200, (await this.reload()).join('; '));
    this.routes.add('GET', '/svc/reload', reloaded).add('GET', '/svc/reload/group', reloaded);
    new ApiEndpoints(state, source, this.log).route(this.routes);
    new KeyEndpoints(state, this.log).route(this.routes);
    new PolicyEndpoints(state, this.log).route(this.routes);
    new CacheEndpoints(state, this.log).route(this.routes);
    new OAuthEndpoints(state, this.log).route(this.routes);
  }

  /** The answer to one management request; never rejects (a failure is Tyk's 500, logged). */
  async handle(req: IncomingMessage, target: { path: string; query: string }): Promise<Answer> {
    try {
      return await this.route(req, target);
    } catch (err) {
      if (err instanceof BodyError) {
        this.log.warn(`management API ${req.method} ${target.path}: ${err.message}`);
        return err.status === 413 ? TOO_LARGE : err.status === 408 ? statusMessage(408, 'Request timed out') : MALFORMED;
      }
      this.log.error(`management API ${req.method} ${target.path}: ${errorMessage(err)}`);
      return statusMessage(500, 'Internal server error');
    }
  }

  private async route(req: IncomingMessage, target: { path: string; query: string }): Promise<Answer> {
    const method = (req.method ?? 'GET').toUpperCase();
    const path = target.path.replace(/\/+$/, '') || '/';
    if (path === '/hello') {
      if (method !== 'GET') return statusMessage(405, 'Method Not Allowed');
      return jsonAnswer(200, { status: 'pass', version: GATEWAY_VERSION, description: 'svc GW' });
    }
    const secret = this.state.config.secret;
    const given = req.headers['x-svc-authorization'];
    // An empty secret would let a request without the header in: refused instead (Tyk compares
    // them as they are; a gateway without a secret has no management API here).
    if (!secret || typeof given !== 'string' || !sameSecret(given, secret)) {
      this.log.warn('Attempted administrative access with invalid or missing key!');
      return FORBIDDEN;
    }
    const found = this.routes.find(method, path);
    if (found === undefined) return NO_ROUTE;
    if (!found.found) return METHOD_NOT_SUPPORTED;
    const r: ManagementRequest = {
      method,
      query: new URLSearchParams(target.query),
      body: () => readBody(req, MAX_BODY, BODY_TIMEOUT_MS),
    };
    return found.value(r, found.params);
  }
}
