/**
 * The endpoints Tyk v5.14.0 adds under a `use_oauth2` API's listen path, beside its chain
 * (gateway/server.go `addOAuthHandlers`): `oauth/authorize` (GET/POST: the client checked, then a
 * 307 to `oauth_meta.auth_login_redirect`), `oauth/token` (GET/POST: osin's access request, with
 * OWASP and no-cache headers), `oauth/revoke` and `oauth/revoke_all` (RFC 7009 from the client),
 * and `svc/oauth/authorize-client` (Tyk's `tyk/oauth/authorize-client`: the login page's approval,
 * behind the gateway secret in `x-svc-authorization`). The form is Go's ParseForm's (a
 * url-encoded body's values, then the query's; a JSON object of strings for `/oauth/token`), its
 * body at most {@link MAX_FORM_BYTES}. With the API's CORS on, its headers and preflights as Tyk's.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Answer } from '@svc/engine';
import type { ApiSpec } from '../apis/api-spec.js';
import { corsOutcome } from './cors.js';
import { joinListenPath } from './loop-target.js';
import { sameSecret } from '../management/management-api.js';
import { statusMessage } from '../management/replies.js';
import { ownValue } from '../kernel/own-value.js';
import type { GatewayState } from '../kernel/state.js';
import { type Form, OAuthServer } from '../auth/oauth2/oauth-server.js';

/** A form body larger than this is refused as malformed (Go's ParseForm allows 10 MB; no OAuth form is near this). */
export const MAX_FORM_BYTES = 64 * 1024;

export type OAuthEndpoint = 'authorize' | 'token' | 'revoke' | 'revoke_all' | 'authorize-client';

type OAuthApi = ApiSpec & { oauth2: NonNullable<ApiSpec['oauth2']> };

/** The OAuth endpoint `path` is on `api`, if any (`authorize`, `token` and `authorize-client` also with a trailing slash, as Tyk's routes). */
export function oauthEndpoint(api: ApiSpec, path: string): OAuthEndpoint | undefined {
  if (api.oauth2 === undefined) return undefined;
  const at = (p: string, slash: boolean): boolean => path === joinListenPath(api.listenPath, p) || (slash && path === joinListenPath(api.listenPath, `${p}/`));
  if (at('/oauth/token', true)) return 'token';
  if (at('/oauth/authorize', true)) return 'authorize';
  if (at('/oauth/revoke', false)) return 'revoke';
  if (at('/oauth/revoke_all', false)) return 'revoke_all';
  if (at('/svc/oauth/authorize-client', true)) return 'authorize-client';
  return undefined;
}

/** What an endpoint reads of its request. */
export interface OAuthRequest {
  method: string;
  headers: IncomingHttpHeaders;
  /** The query without `?`. */
  query: string;
  body: Buffer;
  /** Every line of a header (lower-case name), for CORS. */
  lines: (name: string) => string[];
}

const header = (h: IncomingHttpHeaders, name: string): string => {
  const v = ownValue(h, name);
  return (Array.isArray(v) ? v[0] : v) ?? '';
};

const MEDIA_FORM = 'application/x-www-form-urlencoded';

/** Go's ParseForm (with `postOnly`: PostForm): a url-encoded body's values for POST, PUT and PATCH, then the query's. */
function parseForm(r: OAuthRequest, postOnly = false): Form {
  const form = new URLSearchParams();
  const media = header(r.headers, 'content-type').split(';')[0]!.trim().toLowerCase();
  if (['POST', 'PUT', 'PATCH'].includes(r.method) && media === MEDIA_FORM) for (const [k, v] of new URLSearchParams(r.body.toString('utf8'))) form.append(k, v);
  if (!postOnly && r.query !== '') for (const [k, v] of new URLSearchParams(r.query)) form.append(k, v);
  return form;
}

/** Tyk's JSONToFormValues: with `Content-Type: application/json`, a body of string fields sets those form values. */
function withJsonValues(r: OAuthRequest, form: Form): Form {
  if (header(r.headers, 'content-type') !== 'application/json') return form;
  let v: unknown;
  try {
    v = JSON.parse(r.body.toString('utf8'));
  } catch {
    return form;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return form;
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.some(([, x]) => typeof x !== 'string')) return form;
  for (const [k, x] of entries) form.set(k, x as string);
  return form;
}

/** Tyk's addSecureAndCacheHeaders (the token endpoint's). */
const SECURE_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-xss-protection': '1; mode=block',
  'x-frame-options': 'DENY',
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'cache-control': 'no-cache, no-store, must-revalidate',
  pragma: 'no-cache',
  expires: '0',
};

const NOT_SUPPORTED = (headers: Record<string, string> = {}): Answer => {
  const a = statusMessage(405, 'Method not supported');
  return { ...a, headers: { ...a.headers, ...headers } };
};

const FORBIDDEN = statusMessage(403, 'Attempted administrative access with invalid or missing key!');

/**
 * The answer to a request on one of `api`'s OAuth endpoints. Tyk wraps all but authorize-client in
 * the API's CORS handler (`createCORSWrapper`): a preflight is answered by it, other answers get its headers.
 */
export async function answerOAuth(state: GatewayState, api: OAuthApi, endpoint: OAuthEndpoint, r: OAuthRequest): Promise<Answer> {
  if (api.cors === undefined || endpoint === 'authorize-client') return answer(state, api, endpoint, r);
  const cors = corsOutcome(api.cors, { method: r.method, lines: r.lines });
  if (cors.answer !== undefined) return cors.answer;
  const a = await answer(state, api, endpoint, r);
  return { ...a, headers: { ...a.headers, ...cors.headers } };
}

async function answer(state: GatewayState, api: OAuthApi, endpoint: OAuthEndpoint, r: OAuthRequest): Promise<Answer> {
  const server = await OAuthServer.of(state, api);
  switch (endpoint) {
    case 'token': {
      if (r.method !== 'GET' && r.method !== 'POST') return NOT_SUPPORTED(SECURE_HEADERS);
      const w = await server.access(r.method, withJsonValues(r, parseForm(r)), header(r.headers, 'authorization'));
      const status = w.isError ? w.errorStatus : 200;
      return { status, headers: { ...SECURE_HEADERS, 'content-type': 'application/json' }, body: Buffer.from(w.body()) };
    }
    case 'authorize': {
      if (r.method !== 'GET' && r.method !== 'POST') return NOT_SUPPORTED();
      const w = await server.authorize(parseForm(r), false, '');
      if (w.isError) return statusMessage(w.errorStatus, w.statusText, false);
      const login = api.oauth2.loginRedirect;
      return { status: 307, headers: { location: r.method === 'GET' ? `${login}?${r.query}` : login } };
    }
    case 'authorize-client': {
      const secret = state.config.secret;
      if (!secret || !sameSecret(header(r.headers, 'x-svc-authorization'), secret)) return FORBIDDEN;
      if (r.method !== 'POST') return NOT_SUPPORTED();
      const form = parseForm(r);
      const w = await server.authorize(form, true, form.get('key_rules') ?? '');
      // Tyk writes no Content-Type here: Go's sniffing names JSON text plain.
      return { status: w.isError ? w.errorStatus : 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: Buffer.from(w.body()) };
    }
    case 'revoke': {
      const form = parseForm(r, true);
      const token = form.get('token') ?? '';
      if (token === '') return statusMessage(400, 'token is required');
      await server.revoke(token, form.get('token_type_hint') ?? '');
      return statusMessage(200, 'token revoked successfully');
    }
    case 'revoke_all': {
      const form = parseForm(r, true);
      const clientId = form.get('client_id') ?? '';
      const secret = form.get('client_secret') ?? '';
      if (clientId === '') return statusMessage(401, 'client_id is required');
      if (secret === '') return statusMessage(401, 'client_secret is required');
      const result = await server.revokeAll(clientId, secret);
      if (!Array.isArray(result)) return statusMessage(result.status, result.message);
      return statusMessage(200, 'tokens revoked successfully');
    }
  }
}
