/**
 * Access data, authorize codes and refresh tokens as Tyk's OAuth storage keeps them
 * (gateway/oauth_manager.go `SaveAccess`, `LoadAccess`, `RemoveAccess`, `SaveAuthorize`,
 * `LoadRefresh`, ...): osin's `AccessData` / `AuthorizeData` as Go's JSON (field names as Go
 * writes them, `Client` the client's JSON) under the API's OAuth prefix. Saving access data
 * also writes the token's session (an ordinary key: the bearer check looks it up as an auth key)
 * and lists the token (its hash with `hash_keys`) under the client, scored by expiry.
 */
import type { GatewayState } from '../../kernel/state.js';
import { hashKey } from '../../sessions/key-hash.js';
import type { SessionState } from '../../sessions/session.js';
import { type OAuthClient, clientJson, clientTokensKey, oauthPrefix, parseClient } from './oauth-clients.js';
import type { OAuthStorage } from './oauth-storage.js';

/** Tyk's refresh token lifetime unless svc.conf `oauth_refresh_token_expire` says (14 days). */
const REFRESH_EXPIRE_S = 1_209_600;

export interface AccessData {
  client: OAuthClient;
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  scope: string;
  redirectUri: string;
  /** Unix milliseconds. */
  createdAt: number;
  /** osin's UserData: a session's JSON (key_rules, a password user's session), or undefined. */
  userData: string | undefined;
}

export interface AuthorizeData {
  client: OAuthClient;
  code: string;
  expiresIn: number;
  scope: string;
  redirectUri: string;
  state: string;
  createdAt: number;
  userData: string | undefined;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function goTime(ms: number): string {
  return new Date(ms).toISOString();
}

function parseObject(json: string | undefined): Record<string, unknown> | undefined {
  if (json === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(json);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function clientOf(v: unknown): OAuthClient {
  return parseClient(JSON.stringify(v ?? {}));
}

function accessJson(a: AccessData): string {
  return JSON.stringify({
    Client: JSON.parse(clientJson(a.client)) as unknown,
    AccessToken: a.accessToken,
    RefreshToken: a.refreshToken,
    ExpiresIn: a.expiresIn,
    Scope: a.scope,
    RedirectUri: a.redirectUri,
    CreatedAt: goTime(a.createdAt),
    ...(a.userData === undefined ? {} : { UserData: a.userData }),
  });
}

function parseAccess(json: string | undefined): AccessData | undefined {
  const o = parseObject(json);
  if (o === undefined) return undefined;
  return {
    client: clientOf(o['Client']),
    accessToken: text(o['AccessToken']),
    refreshToken: text(o['RefreshToken']),
    expiresIn: num(o['ExpiresIn']),
    scope: text(o['Scope']),
    redirectUri: text(o['RedirectUri']),
    createdAt: Date.parse(text(o['CreatedAt'])) || 0,
    userData: typeof o['UserData'] === 'string' ? o['UserData'] : undefined,
  };
}

/** The OAuth data of one API: codes, access data, refresh tokens, token sessions. */
export class OAuthTokens {
  private readonly prefix: string;

  constructor(
    private readonly state: GatewayState,
    private readonly storage: OAuthStorage,
    readonly apiId: string,
  ) {
    this.prefix = oauthPrefix(apiId);
  }

  private hashed(token: string): string {
    return hashKey(token, this.state.config.hash_keys);
  }

  async saveAuthorize(a: AuthorizeData): Promise<void> {
    const json = JSON.stringify({
      Client: JSON.parse(clientJson(a.client)) as unknown,
      Code: a.code,
      ExpiresIn: a.expiresIn,
      Scope: a.scope,
      RedirectUri: a.redirectUri,
      State: a.state,
      CreatedAt: goTime(a.createdAt),
      ...(a.userData === undefined ? {} : { UserData: a.userData }),
    });
    await this.storage.set(`${this.prefix}oauth-authorize.${a.code}`, json, a.expiresIn);
  }

  async loadAuthorize(code: string): Promise<AuthorizeData | undefined> {
    const o = parseObject(await this.storage.get(`${this.prefix}oauth-authorize.${code}`));
    if (o === undefined) return undefined;
    return {
      client: clientOf(o['Client']),
      code: text(o['Code']),
      expiresIn: num(o['ExpiresIn']),
      scope: text(o['Scope']),
      redirectUri: text(o['RedirectUri']),
      state: text(o['State']),
      createdAt: Date.parse(text(o['CreatedAt'])) || 0,
      userData: typeof o['UserData'] === 'string' ? o['UserData'] : undefined,
    };
  }

  removeAuthorize(code: string): Promise<void> {
    return this.storage.del(`${this.prefix}oauth-authorize.${code}`);
  }

  /**
   * Stores `a` (Tyk's SaveAccess): the access data for its lifetime, the token under its client,
   * the token's `session` (its OAuth client id and expiry set here), the refresh token.
   */
  async saveAccess(a: AccessData, session: SessionState): Promise<void> {
    const json = accessJson(a);
    const hashed = this.hashed(a.accessToken);
    session.oauth_client_id = a.client.id;
    session.expires = Math.floor(Date.now() / 1000) + a.expiresIn;
    // The client's list first (in memory it may refuse: then nothing of the token is kept), the
    // rest together (the token is answered once all of them are).
    await this.storage.zadd(clientTokensKey(this.apiId, a.client.id), hashed, Math.floor(a.createdAt / 1000) + a.expiresIn);
    const ttl = this.state.config.oauth_refresh_token_expire || REFRESH_EXPIRE_S;
    await Promise.all([
      this.storage.set(`${this.prefix}oauth-access.${hashed}`, json, a.expiresIn),
      this.state.sessions.set(hashed, session),
      a.refreshToken === '' ? undefined : this.storage.set(`${this.prefix}oauth-refresh.${a.refreshToken}`, json, ttl),
    ]);
  }

  async loadAccess(token: string): Promise<AccessData | undefined> {
    return (
      parseAccess(await this.storage.get(`${this.prefix}oauth-access.${this.hashed(token)}`)) ??
      // Tyk's fallback for access data stored before tokens were hashed.
      parseAccess(await this.storage.get(`${this.prefix}oauth-access.${token}`))
    );
  }

  /** Tyk's RemoveAccess: off the client's list, the access data and the token's session gone. */
  async removeAccess(token: string): Promise<void> {
    const access = await this.loadAccess(token);
    if (access !== undefined) {
      await this.storage.zremScore(clientTokensKey(this.apiId, access.client.id), Math.floor(access.createdAt / 1000) + access.expiresIn);
    }
    await this.storage.del(`${this.prefix}oauth-access.${this.hashed(token)}`);
    await this.state.sessions.delete(this.hashed(token));
  }

  loadRefresh(token: string): Promise<AccessData | undefined> {
    return this.storage.get(`${this.prefix}oauth-refresh.${token}`).then(parseAccess);
  }

  removeRefresh(token: string): Promise<void> {
    return this.storage.del(`${this.prefix}oauth-refresh.${token}`);
  }
}
