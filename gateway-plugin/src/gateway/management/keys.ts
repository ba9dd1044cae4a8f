/**
 * `/svc/keys` and `/svc/keys/create` (Tyk's `keyHandler` and `createKeyHandler`): sessions in the
 * gateway's session store, which publishes each write to every thread before the answer goes out.
 * Keys are made as Tyk makes them (`generateToken`: `org_id` + a UUID's hex, or with
 * `hash_key_function` set the base64 JSON token `{"org":..,"id":..,"h":..}`) and stored under
 * their hash when `hash_keys` is on (the hash is the session module's, through the source).
 */
import { randomUUID } from 'node:crypto';
import type { Answer, Logger } from '@svc/engine';
import { jsonAnswer } from '../answers.js';
import type { GatewaySource } from '../gateway-source.js';
import type { SessionState } from '../../sessions/session.js';
import type { GatewayState } from '../state.js';
import type { ManagementRequest } from './management-api.js';
import { MALFORMED, METHOD_NOT_SUPPORTED, NO_ROUTE, modified, parseJson, statusMessage } from './replies.js';

/** Tyk's hash functions; another name in `hash_key_function` falls back to murmur64. */
const HASH_FUNCTIONS = new Set(['murmur32', 'murmur64', 'murmur128', 'sha256']);

/** Tyk's `storage.GenerateToken`. */
export function generateToken(orgId: string, keyId: string, hashKeyFunction: string): string {
  keyId = keyId.startsWith(orgId) ? keyId.slice(orgId.length) : keyId;
  if (!keyId) keyId = randomUUID().replaceAll('-', '');
  if (!hashKeyFunction) return orgId + keyId;
  const h = HASH_FUNCTIONS.has(hashKeyFunction) ? hashKeyFunction : 'murmur64';
  return Buffer.from(JSON.stringify({ org: orgId, id: keyId, h })).toString('base64');
}

function isSession(v: unknown): v is SessionState {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export class KeyEndpoints {
  constructor(
    private readonly state: GatewayState,
    private readonly source: GatewaySource,
    private readonly log: Logger,
  ) {}

  /** The id a key is stored under: its hash when `hash_keys`, unless the caller gave the hash. */
  private storeId(key: string, isHashed: boolean): string {
    return this.state.config.hash_keys && !isHashed ? this.source.hashKey(key, this.state.config) : key;
  }

  async handle(r: ManagementRequest, rest: string[]): Promise<Answer> {
    if (rest.length > 1) return NO_ROUTE;
    if (rest[0] === 'create') return r.method === 'POST' ? this.createGenerated(r) : METHOD_NOT_SUPPORTED;
    const key = rest[0] ?? '';
    const isHashed = (r.query.get('hashed') ?? '') !== '';
    switch (r.method) {
      case 'GET':
        return key ? this.get(key, isHashed) : this.list();
      case 'POST':
      case 'PUT':
        return this.addOrUpdate(r, key, isHashed);
      case 'DELETE':
        return this.remove(key, isHashed);
      default:
        return METHOD_NOT_SUPPORTED;
    }
  }

  private async list(): Promise<Answer> {
    if (this.state.config.hash_keys) return statusMessage(404, 'Hashed key listing is disabled in config (enable_hashed_keys_listing)');
    return jsonAnswer(200, { keys: await this.state.sessions.keys() });
  }

  private async get(key: string, isHashed: boolean): Promise<Answer> {
    if (isHashed && !this.state.config.hash_keys) return statusMessage(400, 'Key requested by hash but key hashing is not enabled');
    const s = await this.state.sessions.get(this.storeId(key, isHashed));
    return s ? jsonAnswer(200, s) : statusMessage(404, 'Key not found');
  }

  /** Tyk's `handleAddOrUpdate`: POST creates (a custom key when named), PUT replaces an existing one. */
  private async addOrUpdate(r: ManagementRequest, key: string, isHashed: boolean): Promise<Answer> {
    const session = parseJson(await r.body());
    if (!isSession(session)) return MALFORMED;
    const org = typeof session.org_id === 'string' ? session.org_id : '';
    const c = this.state.config;
    let name = key;
    if (r.method === 'PUT') {
      if (!key) return statusMessage(404, 'Key is not found');
      if ((await this.state.sessions.get(this.storeId(key, isHashed))) === undefined) return statusMessage(404, 'Key is not found');
    } else name = generateToken(org, key, c.hash_key_function);
    await this.state.sessions.set(this.storeId(name, r.method === 'PUT' && isHashed), session);
    this.log.info(r.method === 'POST' ? 'Key added.' : 'Key modified.');
    const hash = c.hash_keys && r.method === 'POST' ? (isHashed ? name : this.source.hashKey(name, c)) : '';
    return modified(name, r.method === 'POST' ? 'added' : 'modified', hash);
  }

  /** Tyk's `createKeyHandler`: a generated key. */
  private async createGenerated(r: ManagementRequest): Promise<Answer> {
    const session = parseJson(await r.body());
    if (!isSession(session)) return statusMessage(500, 'Unmarshalling failed');
    const c = this.state.config;
    const rights = session.access_rights;
    if (rights === undefined || rights === null || Object.keys(rights).length === 0) {
      return statusMessage(400, 'Failed to create key, keys must have at least one Access Rights record set.');
    }
    const org = typeof session.org_id === 'string' ? session.org_id : '';
    const key = generateToken(org, '', c.hash_key_function);
    await this.state.sessions.set(this.storeId(key, false), session);
    this.log.info('Key generated.');
    return modified(key, 'added', c.hash_keys ? this.source.hashKey(key, c) : '');
  }

  private async remove(key: string, isHashed: boolean): Promise<Answer> {
    const removed = key ? await this.state.sessions.delete(this.storeId(key, isHashed)) : false;
    if (!removed) return statusMessage(404, 'There is no such key found');
    this.log.info('Deleted key.');
    return modified(key, 'deleted');
  }
}
