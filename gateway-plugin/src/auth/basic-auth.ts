/**
 * Basic authentication as Tyk v5.14.0's BasicAuthKeyIsValid (`gateway/mw_basic_auth.go`): the
 * credential (`auth_configs.basic`: the Authorization header by default) must be two words, the
 * second Go-strict base64 of exactly `user:password`; the user is a key of the session store (found
 * as any key is, the org's prefix tried too) whose `basic_auth_data` holds the password. Tyk's words:
 * 401 `Authorization field missing` and `User not authorised` (both with `WWW-Authenticate: Basic
 * realm="<API name>"`), 400 `Attempted access with malformed header, ...` for the three malformed
 * shapes.
 */
import type { ApiSpec } from '../apis/api-spec.js';
import type { GatewayRequest } from '../gateway/request.js';
import type { GatewayState } from '../gateway/state.js';
import { passwordMatches, type PasswordLog } from '../sessions/basic-auth-password.js';
import { decodeStdBase64 } from '../sessions/key-hash.js';
import { readCredential } from './credential.js';
import type { AuthOutcome } from './jwt-auth.js';
import { findKey } from './key-lookup.js';

const MALFORMED = 'Attempted access with malformed header, ';

function challenge(api: ApiSpec, message: string): AuthOutcome {
  return { ok: false, status: 401, message, headers: { 'WWW-Authenticate': `Basic realm="${api.name}"` } };
}

export async function authenticateBasic(
  state: GatewayState,
  api: ApiSpec & { basicAuth: NonNullable<ApiSpec['basicAuth']> },
  req: GatewayRequest,
  log?: PasswordLog,
): Promise<AuthOutcome> {
  const token = readCredential(req, api.credential);
  if (token === '') return challenge(api, 'Authorization field missing');
  const bits = token.split(' ');
  if (bits.length !== 2) return { ok: false, status: 400, message: `${MALFORMED}header not in basic auth format` };
  const decoded = decodeStdBase64(bits[1]!);
  if (decoded === undefined) return { ok: false, status: 400, message: `${MALFORMED}auth data not encoded correctly` };
  const values = decoded.toString('utf8').split(':');
  if (values.length !== 2) return { ok: false, status: 400, message: `${MALFORMED}values not in basic auth format` };
  const [user, password] = values as [string, string];
  const found = await findKey(state, api, user);
  if (found === undefined) return challenge(api, 'User not authorised');
  const ok = await passwordMatches(found.session, password, { disabled: api.basicAuth.disableCaching, ttlSeconds: api.basicAuth.cacheTtl }, log);
  return ok ? { ok: true, keyId: found.name, session: found.session } : challenge(api, 'User not authorised');
}
