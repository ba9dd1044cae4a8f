/**
 * The bearer check of a `use_oauth2` API (Tyk v5.14.0 gateway/mw_oauth2_key_exists.go): the
 * credential (`auth_configs.oauth`, the Authorization header by default) must be at least two
 * words split on spaces (else 400 `Authorization field missing`), the first `bearer` in any case
 * (else 400 `Bearer token malformed`); the second is looked up as an auth key (403 `Key not
 * authorised` when unknown), and the token's OAuth client must still exist (403 `Key not
 * authorised. OAuth client access was revoked`). Whether a client exists is kept 1 s per process,
 * as Tyk keeps it, so a bearer request costs no extra store read within that second.
 */
import type { ApiSpec } from '../../apis/api-spec.js';
import type { GatewayRequest } from '../../kernel/request.js';
import type { GatewayState } from '../../kernel/state.js';
import { readCredential } from '../credential.js';
import type { AuthOutcome } from '../jwt-auth.js';
import { findKey } from '../key-lookup.js';
import { OAuthClients } from './oauth-clients.js';
import { oauthStorage } from './oauth-storage.js';

const FIELD_MISSING: AuthOutcome = { ok: false, status: 400, message: 'Authorization field missing' };
const MALFORMED: AuthOutcome = { ok: false, status: 400, message: 'Bearer token malformed' };
const NOT_FOUND: AuthOutcome = { ok: false, status: 403, message: 'Key not authorised' };
const REVOKED: AuthOutcome = { ok: false, status: 403, message: 'Key not authorised. OAuth client access was revoked' };

/** Tyk's checkOAuthClientDeletedInterval. */
const CLIENT_CHECK_MS = 1000;
/** At most this many clients' answers are kept (the oldest make room). */
const MAX_CHECKED = 10_000;
const checked = new Map<string, { exists: boolean; until: number }>();

async function clientExists(state: GatewayState, api: ApiSpec, clientId: string): Promise<boolean> {
  const key = `${state.name}\0${api.id}\0${clientId}`;
  const hit = checked.get(key);
  if (hit !== undefined && hit.until > Date.now()) return hit.exists;
  const exists = (await new OAuthClients(await oauthStorage(state), api.id, api.orgId).get(clientId)) !== undefined;
  checked.delete(key);
  if (checked.size >= MAX_CHECKED) checked.delete(checked.keys().next().value as string);
  checked.set(key, { exists, until: Date.now() + CLIENT_CHECK_MS });
  return exists;
}

export async function authenticateOAuth(state: GatewayState, api: ApiSpec, req: GatewayRequest): Promise<AuthOutcome> {
  const parts = readCredential(req, api.credential).split(' ');
  if (parts.length < 2) return FIELD_MISSING;
  if (parts[0]!.toLowerCase() !== 'bearer') return MALFORMED;
  const token = parts[1]!;
  const found = await findKey(state, api, token);
  if (found === undefined) return NOT_FOUND;
  const clientId = typeof found.session.oauth_client_id === 'string' ? found.session.oauth_client_id : '';
  if (!(await clientExists(state, api, clientId))) return REVOKED;
  return { ok: true, keyId: found.name, token, session: found.session };
}
