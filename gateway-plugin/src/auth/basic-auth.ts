/**
 * Basic authentication as Tyk v5.14.0's BasicAuthKeyIsValid (`gateway/mw_basic_auth.go`): the
 * credential (`auth_configs.basic`: the Authorization header by default) must be two words, the
 * second Go-strict base64 of exactly `user:password`; the user is a key of the session store (found
 * as any key is, the org's prefix tried too) whose `basic_auth_data` holds the password. Tyk's words:
 * 401 `Authorization field missing` and `User not authorised` (both with `WWW-Authenticate: Basic
 * realm="<API name>"`), 400 `Attempted access with malformed header, ...` for the three malformed
 * shapes. With `extract_from_body`, a missing or malformed header is not an answer: the user and
 * password are group 1 of the first match of each body regexp (RE2, as Go's), else 400 `Body do not
 * contain username` / `... password` or `username|password should be inside regexp match group`
 * (no WWW-Authenticate).
 */
import type { ApiSpec } from '../apis/api-spec.js';
import type { GatewayRequest } from '../kernel/request.js';
import type { GatewayState } from '../kernel/state.js';
import { passwordMatches, type PasswordLog } from '../sessions/basic-auth-password.js';
import { decodeStdBase64 } from '../sessions/key-hash.js';
import { compiledRe2 } from '@svc/engine/kit';
import { firstMatch } from '../rewrite/patterns.js';
import { readCredential } from './credential.js';
import type { AuthOutcome } from './jwt-auth.js';
import { findKey } from './key-lookup.js';

const MALFORMED = 'Attempted access with malformed header, ';

type Refusal = Extract<AuthOutcome, { ok: false }>;

function challenge(api: ApiSpec, message: string): Refusal {
  return { ok: false, status: 401, message, headers: { 'WWW-Authenticate': `Basic realm="${api.name}"` } };
}

type Credentials = { user: string; password: string } | Refusal;

function headerCredentials(api: ApiSpec, req: GatewayRequest): Credentials {
  const token = readCredential(req, api.credential);
  if (token === '') return challenge(api, 'Authorization field missing');
  const bits = token.split(' ');
  if (bits.length !== 2) return { ok: false, status: 400, message: `${MALFORMED}header not in basic auth format` };
  const decoded = decodeStdBase64(bits[1]!);
  if (decoded === undefined) return { ok: false, status: 400, message: `${MALFORMED}auth data not encoded correctly` };
  const values = decoded.toString('utf8').split(':');
  if (values.length !== 2) return { ok: false, status: 400, message: `${MALFORMED}values not in basic auth format` };
  return { user: values[0]!, password: values[1]! };
}

/** Group 1 of the first match of `regexp` in `text`, or Tyk's 400 for `what`. */
function bodyValue(regexp: string, text: string, what: 'username' | 'password'): string | Refusal {
  const re = compiledRe2(regexp);
  const m = re === null ? undefined : firstMatch(re, text);
  if (m === undefined) return { ok: false, status: 400, message: `Body do not contain ${what}` };
  if (m.length < 2) return { ok: false, status: 400, message: `${what} should be inside regexp match group` };
  return m[1]!;
}

function bodyCredentials(fromBody: { user: string; password: string }, body: Buffer): Credentials {
  const text = body.toString('utf8');
  const user = bodyValue(fromBody.user, text, 'username');
  if (typeof user !== 'string') return user;
  const password = bodyValue(fromBody.password, text, 'password');
  return typeof password === 'string' ? { user, password } : password;
}

export async function authenticateBasic(
  state: GatewayState,
  api: ApiSpec & { basicAuth: NonNullable<ApiSpec['basicAuth']> },
  req: GatewayRequest,
  body: Buffer,
  log?: PasswordLog,
): Promise<AuthOutcome> {
  let credentials = headerCredentials(api, req);
  if ('ok' in credentials && api.basicAuth.fromBody !== undefined) credentials = bodyCredentials(api.basicAuth.fromBody, body);
  if ('ok' in credentials) return credentials;
  const { user, password } = credentials;
  const found = await findKey(state, api, user);
  if (found === undefined) return challenge(api, 'User not authorised');
  const ok = await passwordMatches(found.session, password, { disabled: api.basicAuth.disableCaching, ttlSeconds: api.basicAuth.cacheTtl }, log);
  return ok ? { ok: true, keyId: found.name, session: found.session } : challenge(api, 'User not authorised');
}
