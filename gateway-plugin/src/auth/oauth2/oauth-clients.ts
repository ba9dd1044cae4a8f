/**
 * OAuth clients of an API as Tyk v5.14.0 keeps them (gateway/oauth_manager.go `OAuthClient`,
 * `SetClient`, `GetClients`, `DeleteClient`): the client's JSON under
 * `oauth-data.<api>.oauth-clientid.<id>`, its key in the org's index list; a client's tokens in a
 * sorted set scored by expiry. The JSON is Go's: `id`, `secret`, `redirecturi`, `meta_data` (left out
 * when null), `policyid`, `description`, so Tyk and svc on one Redis read each other's clients.
 */
import type { OAuthStorage, Scored } from './oauth-storage.js';

export interface OAuthClient {
  id: string;
  secret: string;
  redirectUri: string;
  /** Any JSON (Tyk's `interface{}`); null = none. */
  metaData: unknown;
  policyId: string;
  description: string;
}

/** The most clients an API lists (each is read from the store for a list). */
export const MAX_LISTED_CLIENTS = 10_000;

export function oauthPrefix(apiId: string): string {
  return `oauth-data.${apiId}.`;
}

const clientKey = (apiId: string, clientId: string): string => `${oauthPrefix(apiId)}oauth-clientid.${clientId}`;
const indexKey = (apiId: string, orgId: string): string => `${oauthPrefix(apiId)}oauth-client-index.${orgId}`;
export const clientTokensKey = (apiId: string, clientId: string): string => `${oauthPrefix(apiId)}oauth-client-tokens.${clientId}`;

/** Go's json.Marshal of an OAuthClient. */
export function clientJson(c: OAuthClient): string {
  return JSON.stringify({
    id: c.id,
    secret: c.secret,
    redirecturi: c.redirectUri,
    ...(c.metaData === null || c.metaData === undefined ? {} : { meta_data: c.metaData }),
    policyid: c.policyId,
    description: c.description,
  });
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A stored client; a value that is not an object reads as an empty client (Tyk logs and goes on). */
export function parseClient(json: string): OAuthClient {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    v = {};
  }
  const o = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  return {
    id: text(o['id']),
    secret: text(o['secret']),
    redirectUri: text(o['redirecturi']),
    metaData: o['meta_data'] ?? null,
    policyId: text(o['policyid']),
    description: text(o['description']),
  };
}

/** The clients of one API in its OAuth storage. */
export class OAuthClients {
  constructor(
    private readonly storage: OAuthStorage,
    readonly apiId: string,
    readonly orgId: string,
  ) {}

  async get(clientId: string): Promise<OAuthClient | undefined> {
    const json = await this.storage.get(clientKey(this.apiId, clientId));
    return json === undefined ? undefined : parseClient(json);
  }

  async set(client: OAuthClient): Promise<void> {
    const key = clientKey(this.apiId, client.id);
    await this.storage.set(key, clientJson(client), 0);
    await this.storage.listPut(indexKey(this.apiId, this.orgId), key);
  }

  async delete(clientId: string): Promise<void> {
    const key = clientKey(this.apiId, clientId);
    await this.storage.del(key);
    await this.storage.listRemove(indexKey(this.apiId, this.orgId), key);
    await this.storage.del(clientTokensKey(this.apiId, clientId));
  }

  async list(): Promise<OAuthClient[]> {
    const keys = await this.storage.listRange(indexKey(this.apiId, this.orgId), MAX_LISTED_CLIENTS);
    const out: OAuthClient[] = [];
    for (const k of keys) {
      const json = await this.storage.get(k);
      if (json !== undefined) out.push(parseClient(json));
    }
    return out;
  }

  /** The client's tokens not yet expired (hashes when `hash_keys`), at most `max` from `skip`. */
  async tokens(clientId: string, max: number): Promise<Scored[]> {
    return this.storage.zrangeFrom(clientTokensKey(this.apiId, clientId), Math.floor(Date.now() / 1000), max);
  }

  /** Drops the client's tokens that expired `retainSeconds` ago or earlier. */
  purgeLapsed(clientId: string, retainSeconds: number): Promise<void> {
    return this.storage.zremUpTo(clientTokensKey(this.apiId, clientId), Math.floor(Date.now() / 1000) - retainSeconds);
  }

  async tokenCount(clientId: string): Promise<number> {
    return this.storage.zcountFrom(clientTokensKey(this.apiId, clientId), Math.floor(Date.now() / 1000));
  }
}
