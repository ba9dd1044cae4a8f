/**
 * Tyk v5.14.0's OAuth 2.0 server for one `use_oauth2` API (gateway/oauth_manager.go over the osin
 * library, github.com/lonelycode/osin): the access request (`/oauth/token`: authorization_code
 * with the redirect URI check, refresh_token, client_credentials, password with a basic auth
 * user's key), the authorize request (`/oauth/authorize`, passed to the login page; the gateway
 * side `authorize-client` that issues a code or, for `token`, an access token), revocation. The
 * client authenticates with HTTP Basic only (osin's AllowClientSecretInParams is off in Tyk);
 * errors are osin's ids with svc.conf's `oauth_error_status_code` (403 by default).
 *
 * A token's session comes from the request's key rules (authorization code, password) or else from
 * the client's policy (Tyk's generateSessionFromPolicy); it is stored as an ordinary key, so the
 * bearer check, the rate limits and the quotas treat it as an auth key.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { ApiSpec } from '../../apis/api-spec.js';
import type { GatewayState } from '../../kernel/state.js';
import { passwordMatches } from '../../sessions/basic-auth-password.js';
import { generateToken, hashKey, decodeStdBase64 } from '../../sessions/key-hash.js';
import { policyExpiry, policySession } from '../../sessions/policy-session.js';
import type { SessionState } from '../../sessions/session.js';
import { type AccessData, OAuthTokens } from './access-data.js';
import { type OAuthClient, OAuthClients } from './oauth-clients.js';
import { oauthStorage } from './oauth-storage.js';
import { OsinResponse } from './osin-response.js';
import { notifyKeyChange } from './notifications.js';

/** osin's defaults as Tyk leaves them: an authorize code lives 250 s, an access token 3600 s. */
const AUTHORIZE_EXPIRE_S = 250;
const ACCESS_EXPIRE_S = 3600;

/** A request's form as Go's ParseForm gives it: the body's values first, then the query's. */
export type Form = URLSearchParams;

type Grant = 'authorization_code' | 'refresh_token' | 'password' | 'client_credentials';

interface AccessRequest {
  type: Grant;
  client: OAuthClient;
  redirectUri: string;
  scope: string;
  generateRefresh: boolean;
  userData: string | undefined;
  /** authorization_code: the code to remove; refresh_token: the access data it replaces. */
  code?: string;
  previous?: AccessData;
  /** password: the user's key and session, given the new token. */
  user?: { keyId: string; session: SessionState };
}

/** osin's CheckBasicAuth: `Basic <std base64 of user:password>`; undefined when absent, null when malformed. */
function basicAuth(header: string): { user: string; password: string } | undefined | null {
  if (header === '') return undefined;
  const i = header.indexOf(' ');
  if (i < 0 || header.slice(0, i) !== 'Basic') return null;
  const decoded = decodeStdBase64(header.slice(i + 1));
  if (decoded === undefined) return null;
  const pair = decoded.toString('utf8');
  const c = pair.indexOf(':');
  return c < 0 ? null : { user: pair.slice(0, c), password: pair.slice(c + 1) };
}

/** osin's ValidateUri: same scheme and host, the path under the base's; no fragments. */
function validUri(base: string, redirect: string): boolean {
  if (base === '' || redirect === '') return false;
  let b: URL;
  let r: URL;
  try {
    b = new URL(base);
    r = new URL(redirect);
  } catch {
    return false;
  }
  if (b.hash !== '' || r.hash !== '') return false;
  return b.protocol === r.protocol && b.host === r.host && r.pathname.startsWith(b.pathname);
}

/** Tyk's password grant: a bcrypt hash is compared, an unhashed password ('' hash type) matched as text; other hash types never match. */
async function userPassword(session: SessionState, password: string): Promise<boolean> {
  const type = session.basic_auth_data?.hash_type ?? '';
  if (type === 'bcrypt') return passwordMatches(session, password, { disabled: true, ttlSeconds: 0 });
  return type === '' && (session.basic_auth_data?.password ?? '') === password;
}

export class OAuthServer {
  readonly clients: OAuthClients;
  readonly tokens: OAuthTokens;

  private constructor(
    private readonly state: GatewayState,
    readonly api: ApiSpec & { oauth2: NonNullable<ApiSpec['oauth2']> },
    storage: Awaited<ReturnType<typeof oauthStorage>>,
  ) {
    this.clients = new OAuthClients(storage, api.id, api.orgId);
    this.tokens = new OAuthTokens(state, storage, api.id);
  }

  static async of(state: GatewayState, api: ApiSpec & { oauth2: NonNullable<ApiSpec['oauth2']> }): Promise<OAuthServer> {
    return new OAuthServer(state, api, await oauthStorage(state));
  }

  private response(): OsinResponse {
    return new OsinResponse(this.state.config.oauth_error_status_code || 403);
  }

  private get separator(): string {
    return this.state.config.oauth_redirect_uri_separator ?? '';
  }

  private uris(list: string): string[] {
    return this.separator === '' ? [list] : list.split(this.separator);
  }

  private validRedirect(list: string, redirect: string): boolean {
    return this.uris(list).some((u) => validUri(u, redirect));
  }

  /** osin's getClient: unknown is a server error (Tyk's storage fails the lookup), a wrong secret or no redirect URI unauthorized. */
  private async client(w: OsinResponse, auth: { user: string; password: string }): Promise<OAuthClient | undefined> {
    const client = await this.clients.get(auth.user);
    if (client === undefined) w.setError('server_error');
    else if (client.secret !== auth.password || client.redirectUri === '') w.setError('unauthorized_client');
    else return client;
    return undefined;
  }

  /** osin's HandleAccessRequest for one grant: the client's Basic header, the grant's own fields, then the client. */
  private async accessRequest(w: OsinResponse, form: Form, authorization: string, grant: Grant): Promise<AccessRequest | undefined> {
    const auth = basicAuth(authorization);
    if (auth === undefined || auth === null) {
      w.setError('invalid_request');
      return undefined;
    }
    const needed = { authorization_code: ['code'], refresh_token: ['refresh_token'], password: ['username', 'password'], client_credentials: [] }[grant];
    if (needed.some((f) => (form.get(f) ?? '') === '')) {
      w.setError('invalid_grant');
      return undefined;
    }
    const client = await this.client(w, auth);
    if (client === undefined) return undefined;
    const first = this.uris(client.redirectUri)[0] ?? '';
    switch (grant) {
      case 'client_credentials':
        return { type: grant, client, redirectUri: first, scope: form.get('scope') ?? '', generateRefresh: false, userData: undefined };
      case 'password': {
        const username = form.get('username')!;
        const password = form.get('password')!;
        const ar: AccessRequest = { type: grant, client, redirectUri: first, scope: form.get('scope') ?? '', generateRefresh: true, userData: undefined };
        // Tyk: the user is the key `org_id + username`; a wrong password is access_denied at finish.
        const keyId = hashKey(this.api.orgId + username, this.state.config.hash_keys);
        const session = await this.state.sessions.get(keyId);
        if (session !== undefined && (await userPassword(session, password))) {
          const copy = structuredClone(session);
          delete copy.basic_auth_data;
          ar.userData = JSON.stringify(copy);
          ar.user = { keyId, session: structuredClone(session) };
        }
        return ar;
      }
      case 'authorization_code': {
        const code = form.get('code')!;
        const data = await this.tokens.loadAuthorize(code);
        if (data === undefined || data.client.redirectUri === '' || data.createdAt + data.expiresIn * 1000 < Date.now() || data.client.id !== client.id) {
          w.setError(data !== undefined && data.client.redirectUri === '' ? 'unauthorized_client' : 'invalid_grant');
          return undefined;
        }
        const redirectUri = form.get('redirect_uri') || first;
        if (!this.validRedirect(client.redirectUri, redirectUri) || data.redirectUri !== redirectUri) {
          w.setError('invalid_request');
          return undefined;
        }
        return { type: grant, client, redirectUri, scope: data.scope, generateRefresh: true, userData: data.userData, code };
      }
      case 'refresh_token': {
        const token = form.get('refresh_token')!;
        const scope = form.get('scope') ?? '';
        const previous = await this.tokens.loadRefresh(token);
        if (previous === undefined) {
          w.setError('invalid_grant');
          return undefined;
        }
        if (previous.client.redirectUri === '') {
          w.setError('unauthorized_client');
          return undefined;
        }
        if (previous.client.id !== client.id) {
          w.setError('invalid_client');
          return undefined;
        }
        return {
          type: grant,
          client,
          redirectUri: previous.redirectUri,
          scope: scope || previous.scope,
          generateRefresh: true,
          userData: previous.userData,
          previous,
        };
      }
    }
  }

  /**
   * The session a new token gets (Tyk's GenerateAccessToken / SaveAccess): the user data's session
   * when it is one, else the client's policy; undefined when neither (osin's server_error).
   */
  private tokenSession(client: OAuthClient, userData: string | undefined): SessionState | undefined {
    if (userData !== undefined) {
      try {
        const v: unknown = JSON.parse(userData);
        if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as SessionState;
      } catch {
        // Not a session: the policy decides, as in Tyk.
      }
    }
    const p = this.state.policy(client.policyId);
    if (p === undefined) return undefined;
    const expires = policyExpiry(p);
    return { ...policySession(p, p.org_id ?? ''), apply_policies: [client.policyId], ...(expires > 0 ? { expires } : {}) };
  }

  /** osin's FinishAccessRequest: a token (and a refresh token) made, saved, the code or the old token removed. */
  private async finishAccess(w: OsinResponse, ar: AccessRequest, authorized: boolean): Promise<AccessData | undefined> {
    if (!authorized) {
      w.setError('access_denied');
      return undefined;
    }
    const session = this.tokenSession(ar.client, ar.userData);
    if (session === undefined) {
      w.setError('server_error');
      return undefined;
    }
    const c = this.state.config;
    const access: AccessData = {
      client: ar.client,
      accessToken: generateToken(session.org_id ?? '', randomUUID().replace(/-/g, ''), c.hash_key_function ?? ''),
      refreshToken: ar.generateRefresh ? Buffer.from(randomUUID()).toString('base64') : '',
      expiresIn: c.oauth_token_expire || ACCESS_EXPIRE_S,
      scope: ar.scope,
      redirectUri: ar.redirectUri,
      createdAt: Date.now(),
      userData: ar.userData,
    };
    // Client fields the session does not have are added to its meta data (the session's win).
    if (ar.client.metaData !== null && typeof ar.client.metaData === 'object' && !Array.isArray(ar.client.metaData)) {
      session.meta_data = { ...(ar.client.metaData as Record<string, unknown>), ...(session.meta_data ?? {}) };
    }
    try {
      await this.tokens.saveAccess(access, session);
    } catch {
      // osin: a token that cannot be saved is a server error (the store's reason names no token).
      w.setError('server_error');
      return undefined;
    }
    if (ar.code !== undefined) await this.tokens.removeAuthorize(ar.code);
    if (ar.previous !== undefined) {
      if (ar.previous.refreshToken !== '') await this.tokens.removeRefresh(ar.previous.refreshToken);
      await this.tokens.removeAccess(ar.previous.accessToken);
    }
    w.output = { access_token: access.accessToken, token_type: 'bearer', expires_in: access.expiresIn };
    if (access.refreshToken !== '') w.output['refresh_token'] = access.refreshToken;
    if (ar.scope !== '') w.output['scope'] = ar.scope;
    return access;
  }

  /** Tyk's HandleAccess: `/oauth/token` (GET is refused by osin, as Tyk configures it). */
  async access(method: string, form: Form, authorization: string): Promise<OsinResponse> {
    const w = this.response();
    if (method !== 'POST') {
      w.setError('invalid_request');
      return w;
    }
    const grant = form.get('grant_type') ?? '';
    if (!this.api.oauth2.accessTypes.includes(grant)) {
      w.setError('unsupported_grant_type');
      return w;
    }
    const ar = await this.accessRequest(w, form, authorization, grant as Grant);
    if (ar === undefined) return w;
    const authorized = ar.type !== 'password' || ar.user !== undefined;
    // Tyk: a password user's earlier token for this client is revoked.
    const oldToken = (ar.user?.session.oauth_keys as Record<string, unknown> | undefined)?.[ar.client.id];
    if (typeof oldToken === 'string') await this.state.sessions.delete(hashKey(oldToken, this.state.config.hash_keys));
    const access = await this.finishAccess(w, ar, authorized);
    if (access !== undefined && ar.user !== undefined) await this.keepUserToken(ar.user, ar.client, access.accessToken);
    if (access !== undefined) {
      const refreshed = form.get('refresh_token') ?? '';
      notifyKeyChange(this.api.oauth2, {
        auth_code: form.get('code') ?? '',
        new_oauth_token: access.accessToken,
        refresh_token: access.refreshToken,
        old_refresh_token: refreshed,
        notification_type: refreshed !== '' ? 'refresh' : 'new',
      });
    }
    return w;
  }

  /** Tyk: the password user's key remembers its token per client (`oauth_keys`) and takes the client's meta data. */
  private async keepUserToken(user: { keyId: string; session: SessionState }, client: OAuthClient, token: string): Promise<void> {
    const s = user.session;
    s.oauth_keys = { ...(s.oauth_keys as Record<string, string> | undefined), [client.id]: token };
    if (client.metaData !== null && typeof client.metaData === 'object' && !Array.isArray(client.metaData)) {
      const meta = { ...(client.metaData as Record<string, unknown>) };
      if (typeof meta['tyk_developer_email'] === 'string') {
        s.alias = meta['tyk_developer_email'];
        delete meta['tyk_developer_email'];
      }
      s.meta_data = meta;
    }
    await this.state.sessions.set(user.keyId, s);
  }

  /**
   * osin's HandleAuthorizeRequest (and, with `complete`, FinishAuthorizeRequest with the request
   * approved and `keyRules` as its user data): Tyk's `/oauth/authorize` and `authorize-client`.
   */
  async authorize(form: Form, complete: boolean, keyRules: string): Promise<OsinResponse> {
    const w = this.response();
    const type = form.get('response_type') ?? '';
    if (!this.api.oauth2.authorizeTypes.includes(type)) {
      w.setError('unsupported_response_type');
      return w;
    }
    let redirectUri = '';
    try {
      redirectUri = decodeURIComponent((form.get('redirect_uri') ?? '').replace(/\+/g, ' '));
    } catch {
      redirectUri = '';
    }
    const state = form.get('state') ?? '';
    const scope = form.get('scope') ?? '';
    const client = await this.clients.get(form.get('client_id') ?? '');
    if (client === undefined) {
      w.setError('server_error', state);
      return w;
    }
    if (client.redirectUri === '') {
      w.setError('unauthorized_client', state);
      return w;
    }
    const first = this.uris(client.redirectUri)[0] ?? '';
    w.redirect = first;
    if (redirectUri === '') redirectUri = first;
    if (!this.validRedirect(client.redirectUri, redirectUri)) {
      w.setError('invalid_request', state);
      return w;
    }
    if (!complete) return w;
    w.redirect = redirectUri;
    if (type === 'token') {
      w.redirectInFragment = true;
      const ar: AccessRequest = { type: 'client_credentials', client, redirectUri, scope, generateRefresh: false, userData: keyRules };
      const access = await this.finishAccess(w, ar, true);
      if (access !== undefined && state !== '') w.output['state'] = state;
      return w;
    }
    // osin's AuthorizeTokenGenDefault: a random UUID's 16 bytes, URL base64 without padding.
    const code = randomBytes(16).toString('base64url');
    await this.tokens.saveAuthorize({ client, code, expiresIn: AUTHORIZE_EXPIRE_S, scope, redirectUri, state, createdAt: Date.now(), userData: keyRules });
    w.output = { code, state };
    return w;
  }

  /** Tyk's RevokeToken: by hint, or both kinds. */
  async revoke(token: string, hint: string): Promise<void> {
    if (hint !== 'refresh_token') await this.tokens.removeAccess(token);
    if (hint !== 'access_token') await this.tokens.removeRefresh(token);
  }

  /** Tyk's RevokeAllTokens: every token of the client whose secret is given; the revoked tokens, or Tyk's refusal. */
  async revokeAll(clientId: string, secret: string): Promise<{ status: number; message: string } | string[]> {
    const client = await this.clients.get(clientId);
    if (client === undefined) return { status: 404, message: 'error getting oauth client' };
    if (client.secret !== secret) return { status: 401, message: 'client secret is wrong' };
    const revoked: string[] = [];
    for (const t of await this.clients.tokens(clientId, MAX_REVOKED)) {
      const access = await this.tokens.loadAccess(t.member);
      if (access === undefined) continue;
      revoked.push(access.accessToken);
      await this.tokens.removeAccess(access.accessToken);
      await this.tokens.removeRefresh(access.refreshToken);
    }
    return revoked;
  }
}

/** The most tokens one revoke_all call removes (each costs a few store round trips); a second call takes the rest. */
const MAX_REVOKED = 10_000;
