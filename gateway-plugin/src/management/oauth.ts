/**
 * Tyk v5.14.0's OAuth routes of the gateway API (gateway/api.go: `createOauthClient`,
 * `oAuthClientHandler`, `oAuthClientTokensHandler`, `rotateOauthClient`, `invalidateOauthRefresh`,
 * `RevokeTokenHandler`, `RevokeAllTokensHandler`, `getApisForOauthApp`) under `/svc/oauth/`, behind
 * the management secret as every management route. Client bodies are Tyk's `NewClientRequest` as
 * Go writes it; token lists are bounded ({@link MAX_LISTED_TOKENS}, Tyk lists them all).
 */
import { randomUUID } from 'node:crypto';
import type { Answer, Logger } from '@svc/engine';
import type { ApiSpec } from '../apis/api-spec.js';
import { type GoShape, goEncode } from '../languages/go-shape.js';
import { jsonAnswer, jsonText } from '../kernel/answers.js';
import type { ManagementRequest, ManagementRoutes } from './routes.js';
import { modified, parseJson, statusMessage } from './replies.js';
import type { GatewayState } from '../kernel/state.js';
import { type OAuthClient, OAuthClients } from '../auth/oauth2/oauth-clients.js';
import { OAuthServer } from '../auth/oauth2/oauth-server.js';
import { oauthStorage } from '../auth/oauth2/oauth-storage.js';

/** The most tokens `GET .../tokens` lists (Tyk lists every one; `?page=` pages them 100 at a time). */
export const MAX_LISTED_TOKENS = 10_000;
const PAGE_SIZE = 100;

const CLIENT_SHAPE: GoShape = {
  root: 'NewClientRequest',
  structs: {
    NewClientRequest: [
      ['client_id', 'string', false],
      ['redirect_uri', 'string', false],
      ['api_id', 'string', true],
      ['policy_id', 'string', true],
      ['secret', 'string', false],
      ['meta_data', 'any', false],
      ['description', 'string', false],
    ],
  },
};

function clientAnswer(c: OAuthClient): string {
  return goEncode(CLIENT_SHAPE, {
    client_id: c.id,
    redirect_uri: c.redirectUri,
    policy_id: c.policyId,
    secret: c.secret,
    meta_data: c.metaData,
    description: c.description,
  });
}

const UNMARSHALLING = statusMessage(500, 'Unmarshalling failed');
const CLIENT_NOT_FOUND = statusMessage(404, 'OAuth Client ID not found');

interface NewClientRequest {
  client_id: string;
  redirect_uri: string;
  api_id: string;
  policy_id: string;
  secret: string;
  meta_data: unknown;
  description: string;
}

/** Go's decoding of a NewClientRequest: a string field must be a string (or null); undefined where Go's decoder fails. */
function newClientRequest(body: Buffer): NewClientRequest | undefined {
  const v = parseJson(body);
  if (v === null) return { client_id: '', redirect_uri: '', api_id: '', policy_id: '', secret: '', meta_data: null, description: '' };
  if (v === undefined || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const out: Record<string, unknown> = { meta_data: Object.hasOwn(o, 'meta_data') ? o['meta_data'] : null };
  for (const f of ['client_id', 'redirect_uri', 'api_id', 'policy_id', 'secret', 'description']) {
    const x = Object.hasOwn(o, f) ? o[f] : null;
    if (x !== null && typeof x !== 'string') return undefined;
    out[f] = x ?? '';
  }
  return out as unknown as NewClientRequest;
}

export class OAuthEndpoints {
  constructor(
    private readonly state: GatewayState,
    private readonly log: Logger,
  ) {}

  private async clientsOf(api: ApiSpec): Promise<OAuthClients> {
    return new OAuthClients(await oauthStorage(this.state), api.id, api.orgId);
  }

  route(routes: ManagementRoutes): void {
    routes
      .add('POST', '/svc/oauth/clients/create', (r) => this.create(r))
      .add('GET', '/svc/oauth/clients/{apiId}', (_r, p) => this.list(p['apiId']!))
      // Tyk routes a DELETE without a client id to its client delete, with the id empty.
      .add('DELETE', '/svc/oauth/clients/{apiId}', (r, p) => this.client(r, p['apiId']!, ''))
      .add(['GET', 'PUT', 'DELETE'], '/svc/oauth/clients/{apiId}/{clientId}', (r, p) => this.client(r, p['apiId']!, p['clientId']!))
      .add('PUT', '/svc/oauth/clients/{apiId}/{clientId}/rotate', (_r, p) => this.rotate(p['apiId']!, p['clientId']!))
      .add('GET', '/svc/oauth/clients/{apiId}/{clientId}/tokens', (r, p) => this.tokens(r, p['apiId']!, p['clientId']!))
      .add('GET', '/svc/oauth/clients/apis/{clientId}', (r, p) => this.apisOf(r, p['clientId']!))
      .add('DELETE', '/svc/oauth/refresh/{token}', (r, p) => this.invalidateRefresh(r, p['token']!))
      .add('POST', '/svc/oauth/revoke', (r) => this.revoke(r))
      .add('POST', '/svc/oauth/revoke_all', (r) => this.revokeAll(r))
      .add('DELETE', '/svc/oauth/tokens', (r) => this.purgeLapsed(r));
  }

  private async create(r: ManagementRequest): Promise<Answer> {
    const req = newClientRequest(await r.body());
    if (req === undefined) {
      this.log.warn('Failed to create OAuth client: the body is not a client');
      return UNMARSHALLING;
    }
    const client: OAuthClient = {
      id: req.client_id || randomUUID().replace(/-/g, ''),
      secret: req.secret || Buffer.from(randomUUID()).toString('base64'),
      redirectUri: req.redirect_uri,
      metaData: req.meta_data,
      policyId: req.policy_id,
      description: req.description,
    };
    if (req.api_id !== '') {
      const api = this.state.api(req.api_id);
      if (api === undefined) return statusMessage(400, "API doesn't exist");
      if (api.oauth2 === undefined) return statusMessage(400, 'API is not OAuth2');
      await (await this.clientsOf(api)).set(client);
    } else {
      // No API: the client is set on every OAuth (or JWT) API the policy grants.
      const policy = this.state.policy(client.policyId);
      if (policy === undefined) return statusMessage(400, "Policy doesn't exist");
      let oauth = false;
      for (const apiId of Object.keys(policy.access_rights ?? {})) {
        const api = this.state.api(apiId);
        if (api === undefined) return statusMessage(400, "API doesn't exist");
        if (api.oauth2 !== undefined || api.jwt !== undefined) {
          oauth = true;
          await (await this.clientsOf(api)).set(client);
        }
      }
      if (!oauth) return statusMessage(400, 'API is not OAuth2');
    }
    this.log.info(`Created OAuth client for API ${req.api_id || '(the policy’s)'}`);
    return jsonText(clientAnswer(client));
  }

  private async list(apiId: string): Promise<Answer> {
    const api = this.state.api(apiId);
    if (api === undefined) return statusMessage(404, 'OAuth client not found');
    const clients = api.oauth2 === undefined ? [] : await (await this.clientsOf(api)).list();
    return jsonText(`[${clients.map(clientAnswer).join(',')}]`);
  }

  private async client(r: ManagementRequest, apiId: string, clientId: string): Promise<Answer> {
    if (r.method === 'PUT') return this.update(r, apiId, clientId);
    const api = this.state.api(apiId);
    if (api === undefined) return CLIENT_NOT_FOUND;
    const clients = await this.clientsOf(api);
    if (r.method === 'GET') {
      const c = await clients.get(clientId);
      return c === undefined ? CLIENT_NOT_FOUND : jsonText(clientAnswer(c));
    }
    if (api.oauth2 === undefined) return CLIENT_NOT_FOUND;
    await clients.delete(clientId);
    this.log.info(`Deleted OAuth client of API ${apiId}`);
    return modified(clientId, 'deleted');
  }

  /** Tyk's updateOauthClient: the redirect URI, policy, meta data and description replaced; a new policy revokes the client's tokens. */
  private async update(r: ManagementRequest, apiId: string, clientId: string): Promise<Answer> {
    const req = newClientRequest(await r.body());
    if (req === undefined) return UNMARSHALLING;
    const api = this.state.api(apiId);
    if (api === undefined) return statusMessage(404, "API doesn't exist");
    if (req.policy_id !== '') {
      const policy = this.state.policy(req.policy_id);
      if (policy === undefined) return statusMessage(404, "Policy doesn't exist");
      if (!Object.hasOwn(policy.access_rights ?? {}, apiId)) return statusMessage(400, "Policy access rights doesn't contain API this OAuth client belongs to");
    }
    return this.replace(api, clientId, (c) => ({
      ...c,
      redirectUri: req.redirect_uri,
      policyId: req.policy_id,
      metaData: req.meta_data,
      description: req.description,
    }));
  }

  private async rotate(apiId: string, clientId: string): Promise<Answer> {
    const api = this.state.api(apiId);
    if (api === undefined) return statusMessage(404, "API doesn't exist");
    return this.replace(api, clientId, (c) => ({ ...c, secret: Buffer.from(randomUUID()).toString('base64') }));
  }

  private async replace(api: ApiSpec, clientId: string, change: (c: OAuthClient) => OAuthClient): Promise<Answer> {
    const clients = await this.clientsOf(api);
    const before = await clients.get(clientId);
    if (before === undefined) return CLIENT_NOT_FOUND;
    const after = change(before);
    await clients.set(after);
    // Tyk's invalidateTokens: a client moved to another policy loses its tokens.
    if (before.policyId !== '' && before.policyId !== after.policyId && api.oauth2 !== undefined) {
      const server = await OAuthServer.of(this.state, { ...api, oauth2: api.oauth2 });
      for (const t of await clients.tokens(clientId, MAX_LISTED_TOKENS)) await server.tokens.removeAccess(t.member);
    }
    return jsonText(clientAnswer(after));
  }

  private async tokens(r: ManagementRequest, apiId: string, clientId: string): Promise<Answer> {
    const api = this.state.api(apiId);
    if (api === undefined) return CLIENT_NOT_FOUND;
    const clients = await this.clientsOf(api);
    const pageText = r.query.get('page');
    const row = (t: { member: string; score: number }) => ({ code: t.member, expires: t.score });
    if (pageText === null || pageText === '') return jsonAnswer(200, (await clients.tokens(clientId, MAX_LISTED_TOKENS)).map(row));
    const page = Math.max(1, /^[+-]?\d+$/.test(pageText) ? Number(pageText) : 1);
    const total = await clients.tokenCount(clientId);
    const all = await clients.tokens(clientId, Math.min(page * PAGE_SIZE, MAX_LISTED_TOKENS));
    const tokens = total === 0 ? [] : all.slice((page - 1) * PAGE_SIZE).map(row);
    return jsonAnswer(200, { Pagination: { page_num: page, page_total: Math.ceil(total / PAGE_SIZE), page_size: PAGE_SIZE }, Tokens: tokens });
  }

  /** Tyk's getApisForOauthApp: the OAuth APIs of `orgID` that have the client. */
  private async apisOf(r: ManagementRequest, clientId: string): Promise<Answer> {
    return jsonAnswer(200, await this.apisWithClient(clientId, r.query.get('orgID') ?? ''));
  }

  private async apisWithClient(clientId: string, orgId: string): Promise<string[]> {
    const out: string[] = [];
    for (const api of this.state.allApis()) {
      if (api.orgId !== orgId || api.oauth2 === undefined) continue;
      if ((await (await this.clientsOf(api)).get(clientId)) !== undefined) out.push(api.id);
    }
    return out;
  }

  private async invalidateRefresh(r: ManagementRequest, token: string): Promise<Answer> {
    const apiId = r.query.get('api_id') ?? '';
    if (apiId === '') return statusMessage(400, 'Missing parameter api_id');
    const api = this.state.api(apiId);
    if (api === undefined) return statusMessage(404, 'API for this refresh token not found');
    if (api.oauth2 === undefined) return statusMessage(400, 'OAuth is not enabled on this API');
    await (await OAuthServer.of(this.state, { ...api, oauth2: api.oauth2 })).tokens.removeRefresh(token);
    return modified(token, 'deleted');
  }

  /**
   * Tyk's oAuthTokensHandler (`?scope=lapsed`): every OAuth client's tokens that expired more than
   * svc.conf `oauth_token_expired_retain_period` seconds ago leave its list (none when it is 0).
   */
  private async purgeLapsed(r: ManagementRequest): Promise<Answer> {
    if (!r.query.has('scope')) return statusMessage(422, 'scope parameter is required');
    if (r.query.get('scope') !== 'lapsed') return statusMessage(400, 'unknown scope');
    const retain = this.state.config.oauth_token_expired_retain_period ?? 0;
    if (retain > 0)
      for (const api of this.state.allApis()) {
        if (api.oauth2 === undefined) continue;
        const clients = await this.clientsOf(api);
        for (const c of await clients.list()) await clients.purgeLapsed(c.id, retain);
      }
    return statusMessage(200, 'lapsed tokens purged');
  }

  private async form(r: ManagementRequest): Promise<URLSearchParams> {
    return new URLSearchParams((await r.body()).toString('utf8'));
  }

  private async revoke(r: ManagementRequest): Promise<Answer> {
    const form = await this.form(r);
    const token = form.get('token') ?? '';
    const clientId = form.get('client_id') ?? '';
    if (token === '') return statusMessage(400, 'token is required');
    if (clientId === '') return statusMessage(400, 'client_id is required');
    const apis = await this.apisWithClient(clientId, form.get('org_id') ?? '');
    if (apis.length === 0) return statusMessage(400, "oauth client doesn't exist");
    for (const id of apis) {
      const api = this.state.api(id)!;
      await (await OAuthServer.of(this.state, { ...api, oauth2: api.oauth2! })).revoke(token, form.get('token_type_hint') ?? '');
    }
    return statusMessage(200, 'token revoked successfully');
  }

  private async revokeAll(r: ManagementRequest): Promise<Answer> {
    const form = await this.form(r);
    const clientId = form.get('client_id') ?? '';
    const secret = form.get('client_secret') ?? '';
    if (clientId === '') return statusMessage(401, 'client_id is required');
    if (secret === '') return statusMessage(401, 'client_secret is required');
    const apis = await this.apisWithClient(clientId, form.get('org_id') ?? '');
    if (apis.length === 0) return statusMessage(404, "oauth client doesn't exist");
    for (const id of apis) {
      const api = this.state.api(id)!;
      await (await OAuthServer.of(this.state, { ...api, oauth2: api.oauth2! })).revokeAll(clientId, secret);
    }
    return statusMessage(200, 'tokens revoked successfully');
  }
}
