/**
 * The `gateway_auth` processor: authenticates each gateway request as Tyk's middleware chain does
 * for its API (keyless, an auth key, a JWT, basic auth, an HMAC signature), then checks the session (inactive, expired, access
 * rights, allowed URLs), and either answers with Tyk's refusal or puts the session on the request
 * (`req.session`) for the processors after it. Split-token endpoints are answered here too. A
 * request it cannot decide (no gateway state or API, an unexpected error) is refused with 500
 * (see middleware.ts).
 */
import { answerMessage, createLogger, type Logger } from '@svc/engine';
import type { ApiSpec } from '../apis/api-spec.js';
import { tykError } from '../kernel/errors.js';
import { GatewayMiddleware, type MiddlewareCall } from '../kernel/middleware.js';
import { GATEWAY_REQUEST, type GatewayRequest } from '../kernel/request.js';
import { markAnsweredByStage, markStage } from '../kernel/stages.js';
import type { GatewayState } from '../kernel/state.js';
import { checkSession } from '../sessions/access-check.js';
import { authenticateBasic } from './basic-auth.js';
import { authenticateHmac } from './hmac-auth.js';
import { readCredential, stripBearer, stripCredential } from './credential.js';
import { authenticateJwt, type AuthOutcome } from './jwt-auth.js';
import { findKey } from './key-lookup.js';
import { authenticateOAuth } from './oauth2/oauth-bearer.js';
import { SPLIT_TOKEN_META, handleSplitToken, splitTokenEndpoint } from './split-token.js';

/** Tyk's words for a missing credential: 400 for a JWT API, 401 for an auth-key API. */
const JWT_FIELD_MISSING = { status: 400, message: 'Authorization field missing' };
const KEY_FIELD_MISSING = { status: 401, message: 'Authorization field missing' };
const KEY_NOT_FOUND: AuthOutcome = { ok: false, status: 403, message: 'Access to this API has been disallowed' };

async function authenticate(state: GatewayState, api: ApiSpec, req: GatewayRequest, body: Buffer, logger: Logger): Promise<AuthOutcome> {
  const log = (m: string): void => logger.warn(m);
  const credential = readCredential(req, api.credential);
  if (api.oauth2 !== undefined) return authenticateOAuth(state, api, req);
  if (api.basicAuth !== undefined) return authenticateBasic(state, { ...api, basicAuth: api.basicAuth }, req, body, (m) => logger.debug(m));
  if (api.hmac !== undefined) return authenticateHmac(state, { ...api, hmac: api.hmac }, req);
  if (api.jwt !== undefined) {
    if (credential === '') return { ok: false, ...JWT_FIELD_MISSING };
    return authenticateJwt({ state, api, jwt: api.jwt, log }, stripBearer(credential));
  }
  // Standard auth (also what Tyk falls back to when an API names no other method).
  if (credential === '') return { ok: false, ...KEY_FIELD_MISSING };
  const key = stripBearer(credential);
  const found = await findKey(state, api, key);
  return found === undefined ? KEY_NOT_FOUND : { ok: true, keyId: found.name, token: key, session: found.session };
}

export class GatewayAuth extends GatewayMiddleware {
  constructor(logger: Logger = createLogger({ level: 'OFF' })) {
    super('gateway_auth', logger);
  }

  protected async handle({ msg, req, state, api }: MiddlewareCall): Promise<void> {
    const ep = splitTokenEndpoint(api, req);
    if (ep !== undefined) {
      answerMessage(msg, await handleSplitToken(state, api, ep, req, msg.content));
      markAnsweredByStage(msg);
      return;
    }
    if (api.keyless) {
      markStage(msg, 'auth');
      return;
    }
    // An ignored endpoint: no credential is asked for; Tyk still strips one if the API says so.
    if (req.authIgnored === true) {
      if (api.stripAuthData) {
        stripCredential(req, api.credential);
        msg.ctx.set(GATEWAY_REQUEST, req);
      }
      markStage(msg, 'auth');
      return;
    }

    const outcome = await authenticate(state, api, req, msg.content, this.logger);
    if (!outcome.ok) {
      answerMessage(msg, tykError(outcome.status, outcome.message, outcome.headers));
      return;
    }
    const refusal = checkSession(outcome.session, api, req.method, req.path, undefined, req.accessVersions);
    if (refusal !== undefined) {
      answerMessage(msg, tykError(refusal.status, refusal.message));
      return;
    }
    if (api.stripAuthData) stripCredential(req, api.credential);
    const jwt = outcome.session.meta_data?.[SPLIT_TOKEN_META];
    if (typeof jwt === 'string' && api.jwt === undefined) req.headers.authorization = `Bearer ${jwt}`;
    req.session = { keyId: outcome.keyId, token: outcome.token ?? outcome.keyId, state: outcome.session };
    msg.ctx.set(GATEWAY_REQUEST, req);
    markStage(msg, 'auth');
  }
}
