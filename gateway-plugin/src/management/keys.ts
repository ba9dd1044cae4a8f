/**
 * `/svc/keys` and `/svc/keys/create` (Tyk's `keyHandler` and `createKeyHandler`): sessions in the
 * gateway's session store, which publishes each write to every thread before the answer goes out.
 * Keys are made as Tyk makes them (`generateToken`: `org_id` + a UUID's hex, or with
 * `hash_key_function` set the base64 JSON token `{"org":..,"id":..,"h":..}`) and stored under
 * their hash when `hash_keys` is on (`sessions/key-hash.ts`, which `gateway_auth` looks keys up with).
 */
import { randomUUID } from 'node:crypto';
import { storePassword } from '../sessions/basic-auth-password.js';
import { applyPolicies, policyIdsOf } from '../sessions/apply-policies.js';
import { generateToken, hashKey, storeKeyCandidates } from '../sessions/key-hash.js';
import type { Answer, Logger } from '@svc/engine';
import { jsonAnswer } from '../kernel/answers.js';
import type { SessionState } from '../sessions/session.js';
import { sessionProblem } from '../sessions/session-shape.js';
import type { GatewayState } from '../kernel/state.js';
import type { ManagementRequest, ManagementRoutes } from './routes.js';
import { MALFORMED, modified, parseJson, statusMessage } from './replies.js';

/** Tyk's default `min_token_length` (gateway_auth's floor too). */
const MIN_TOKEN_LENGTH = 3;

/** What Tyk's createKeyHandler stamps on a new key: `last_updated` (Unix seconds, as text), `date_created`, `quota_renews`. */
function stampCreated(session: SessionState): void {
  const now = Date.now();
  session.last_updated = String(Math.floor(now / 1000));
  session.date_created = new Date(now).toISOString();
  session.quota_renews = Math.floor(now / 1000) + (typeof session.quota_renewal_rate === 'number' ? session.quota_renewal_rate : 0);
}

function isSession(v: unknown): v is SessionState {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export class KeyEndpoints {
  constructor(
    private readonly state: GatewayState,
    private readonly log: Logger,
  ) {}

  /** The id a new key is stored under: its hash when `hash_keys`. */
  private storeId(key: string): string {
    return hashKey(key, this.state.config.hash_keys);
  }

  /**
   * The stored name of an existing key, found as Tyk's `SessionDetail` finds it (the key as given,
   * or in `org_id`'s format; hashed when `hash_keys`), or the hash itself with `?hashed=1`.
   */
  private async find(key: string, isHashed: boolean, orgId: string): Promise<string | undefined> {
    const c = this.state.config;
    const names = isHashed ? [key] : storeKeyCandidates(key, orgId, c.hash_key_function, c.hash_keys);
    for (const n of names) if ((await this.state.sessions.get(n)) !== undefined) return n;
    return undefined;
  }

  /** Tyk's routes: `/svc/keys[/{key}]` (`?hashed=`, `?org_id=`) and `POST /svc/keys/create`. */
  route(routes: ManagementRoutes): void {
    const hashed = (r: ManagementRequest): boolean => (r.query.get('hashed') ?? '') !== '';
    const orgId = (r: ManagementRequest): string => r.query.get('org_id') ?? '';
    routes
      .add('POST', '/svc/keys/create', (r) => this.createGenerated(r))
      .add('GET', '/svc/keys', () => this.list())
      .add(['POST', 'PUT'], '/svc/keys', (r) => this.addOrUpdate(r, '', hashed(r)))
      .add('DELETE', '/svc/keys', (r) => this.remove('', hashed(r), orgId(r)))
      .add('GET', '/svc/keys/{key}', (r, p) => this.get(p['key']!, hashed(r), orgId(r)))
      .add(['POST', 'PUT'], '/svc/keys/{key}', (r, p) => this.addOrUpdate(r, p['key']!, hashed(r)))
      .add('DELETE', '/svc/keys/{key}', (r, p) => this.remove(p['key']!, hashed(r), orgId(r)));
  }

  private async list(): Promise<Answer> {
    if (this.state.config.hash_keys) return statusMessage(404, 'Hashed key listing is disabled in config (enable_hashed_keys_listing)');
    return jsonAnswer(200, { keys: await this.state.sessions.keys() });
  }

  private async get(key: string, isHashed: boolean, orgId: string): Promise<Answer> {
    if (isHashed && !this.state.config.hash_keys) return statusMessage(400, 'Key requested by hash but key hashing is not enabled');
    const name = await this.find(key, isHashed, orgId);
    const s = name === undefined ? undefined : await this.state.sessions.get(name);
    return s ? jsonAnswer(200, s) : statusMessage(404, 'Key not found');
  }

  /** Tyk's `handleAddOrUpdate`: POST creates (a custom key when named), PUT replaces an existing one. */
  private async addOrUpdate(r: ManagementRequest, key: string, isHashed: boolean): Promise<Answer> {
    const session = parseJson(await r.body());
    const wrong = sessionProblem(session);
    if (wrong !== undefined || !isSession(session)) {
      this.log.warn(`Couldn't decode new session object: ${wrong ?? 'not JSON, or nested too deep'}`);
      return MALFORMED;
    }
    const org = typeof session.org_id === 'string' ? session.org_id : '';
    const c = this.state.config;
    if (r.method === 'PUT') {
      const stored = key ? await this.find(key, isHashed, org) : undefined;
      if (stored === undefined) return statusMessage(404, 'Key is not found');
      await storePassword(session, await this.state.sessions.get(stored));
      await this.state.sessions.set(stored, session);
      this.log.info('Key modified.');
      return modified(key, 'modified');
    }
    // Tyk refuses a custom key gateway_auth could never accept (shorter than min_token_length, 3).
    if (key !== '' && key.length < MIN_TOKEN_LENGTH) {
      return statusMessage(
        400,
        `custom key ID length ${key.length} is less than min_token_length (${MIN_TOKEN_LENGTH}); the key would be unreachable at auth time. Use an ID of at least min_token_length characters, or lower min_token_length in the gateway configuration.`,
      );
    }
    const name = generateToken(org, key || randomUUID().replaceAll('-', ''), c.hash_key_function);
    // Tyk overwrites whatever is stored under the name. With hash_keys the store holds only the
    // hash, and Tyk's murmur32 ignores a key's last 1-3 bytes (user01 and user02 share one): the
    // key there cannot be told from another, so a custom key is never stored over it (PUT updates).
    if (key !== '' && c.hash_keys && (await this.state.sessions.get(this.storeId(name))) !== undefined) {
      return statusMessage(409, "A key is already stored under this key's hash: choose another key ID, or update the existing key with PUT");
    }
    await storePassword(session, await this.state.sessions.get(this.storeId(name)));
    await this.state.sessions.set(this.storeId(name), session);
    this.log.info('Key added.');
    // Tyk does not echo a basic auth user's key when keys are hashed (its key_hash is given).
    const shown = c.hash_keys && session.basic_auth_data?.password ? '' : name;
    return modified(shown, 'added', c.hash_keys ? hashKey(name, true) : '');
  }

  /** Tyk's `createKeyHandler`: a generated key. */
  private async createGenerated(r: ManagementRequest): Promise<Answer> {
    const session = parseJson(await r.body());
    // Tyk's createKeyHandler answers a body that does not decode with 500 (not 400).
    const wrong = sessionProblem(session);
    if (wrong !== undefined || !isSession(session)) {
      this.log.warn(`Couldn't decode new session object: ${wrong ?? 'not JSON, or nested too deep'}`);
      return statusMessage(500, 'Unmarshalling failed');
    }
    const c = this.state.config;
    // Tyk applies the key's policies first (an unknown one is its 500), then asks for access rights,
    // which a policy may bring.
    let rights = session.access_rights;
    if (policyIdsOf(session) !== undefined) {
      const applied = structuredClone(session);
      const err = applyPolicies(applied, (id) => this.state.policy(id));
      if (err !== undefined) return statusMessage(500, `Failed to create key - ${err}`);
      rights = applied.access_rights;
    }
    if (rights === undefined || rights === null || Object.keys(rights).length === 0) {
      return statusMessage(400, 'Failed to create key, keys must have at least one Access Rights record set.');
    }
    stampCreated(session);
    const org = typeof session.org_id === 'string' ? session.org_id : '';
    const key = generateToken(org, randomUUID().replaceAll('-', ''), c.hash_key_function);
    await storePassword(session);
    await this.state.sessions.set(this.storeId(key), session);
    this.log.info('Key generated.');
    return modified(key, 'added', c.hash_keys ? hashKey(key, true) : '');
  }

  private async remove(key: string, isHashed: boolean, orgId: string): Promise<Answer> {
    const name = key ? await this.find(key, isHashed, orgId) : undefined;
    if (name === undefined || !(await this.state.sessions.delete(name))) return statusMessage(404, 'There is no such key found');
    this.log.info('Deleted key.');
    return modified(key, 'deleted');
  }
}
