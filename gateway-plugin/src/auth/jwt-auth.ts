/**
 * JWT authentication as Tyk's JWT middleware does it (gateway/mw_jwt.go `ProcessRequest`,
 * `processCentralisedJWT`, `processOneToOneTokenMap` at v5.14.0), answering with its words:
 *
 * - the API's `jwt_source` (a base64 secret or PEM, a JWKS URL or its base64) verifies every
 *   token; the session is derived for the token's identity from its policies (the policy claim,
 *   `jwt_default_policies`, scope-mapped policies) under the key Tyk names it:
 *   `generateToken(org id, md5(identity))`;
 * - without a source, the key named by the token's `kid` (falling back to the identity claim,
 *   then `sub`) holds the secret (`jwt_data.secret`) and is the session.
 *
 * Derived sessions are kept in memory on this thread (they are derived data, rebuilt from the
 * token and the policies at any time); when the gateway's store is not in memory (Redis) a newly
 * derived session is also written there, as Tyk writes it.
 */
import { X509Certificate, createHash, createPublicKey } from 'node:crypto';
import type { ApiSpec, JwtSettings } from '../apis/api-spec.js';
import type { GatewayState } from '../kernel/state.js';
import { applyPolicies } from '../sessions/apply-policies.js';
import { policyExpiry, policySession } from '../sessions/policy-session.js';
import { decodeStdBase64, generateToken, hashKey } from '../sessions/key-hash.js';
import type { SessionState } from '../sessions/session.js';
import { claimString, identityOf, policiesForScopes, scopesOf } from './jwt-claims.js';
import { jwksKey } from './jwks.js';
import { algMatchesMethod, parseJwt, timeClaimsError, verifySignature, type ParsedJwt, type VerifyKey } from './jwt-token.js';
import { findKey } from './key-lookup.js';
import { cacheToken, cachedToken } from './verified-cache.js';

/**
 * `keyId`: the name the session is stored under (hashed with `hash_keys`); `token`: the key as the
 * client sent it, Tyk's auth token (`$svc_context.token`), when it differs from `keyId`.
 */
export type AuthOutcome =
  { ok: true; keyId: string; token?: string; session: SessionState } | { ok: false; status: number; message: string; headers?: Record<string, string> };

const refuse = (status: number, message: string): AuthOutcome => ({ ok: false, status, message });
export const KEY_NOT_AUTHORIZED = refuse(403, 'Key not authorized');
export const UNEXPECTED_SIGNING_METHOD = refuse(403, 'Key not authorized: Unexpected signing method');
const NO_MATCHING_POLICY = refuse(403, 'key not authorized: no matching policy');

const HTTP_URL = /^https?:\/\//i;

type Source = { kind: 'url'; url: string } | { kind: 'material'; bytes: Buffer } | { kind: 'bad' };
const sources = new Map<string, Source>();

/** `jwt_source` as Tyk reads it: a URL, else base64 of a URL, a PEM or a secret. */
function sourceOf(raw: string): Source {
  let s = sources.get(raw);
  if (s === undefined) {
    if (HTTP_URL.test(raw)) s = { kind: 'url', url: raw };
    else {
      const bytes = decodeStdBase64(raw);
      if (bytes === undefined) s = { kind: 'bad' };
      else {
        const text = bytes.toString('utf8');
        s = HTTP_URL.test(text) ? { kind: 'url', url: text } : { kind: 'material', bytes };
      }
    }
    if (sources.size > 1000) sources.clear();
    sources.set(raw, s);
  }
  return s;
}

const publicKeys = new Map<string, string | null>();

/** `ParseRSAPublicKey`: a PEM (public key or certificate) or DER, as SPKI PEM; null when none. */
function publicPem(bytes: Buffer): string | null {
  const id = bytes.toString('base64');
  let pem = publicKeys.get(id);
  if (pem === undefined) {
    pem = null;
    const attempts = [
      () => createPublicKey(bytes),
      () => new X509Certificate(bytes).publicKey,
      () => createPublicKey({ key: bytes, format: 'der', type: 'spki' }),
    ];
    for (const attempt of attempts) {
      try {
        const k = attempt();
        if (k.type === 'public') {
          pem = k.export({ type: 'spki', format: 'pem' }) as string;
          break;
        }
      } catch {
        // Next form.
      }
    }
    if (publicKeys.size > 1000) publicKeys.clear();
    publicKeys.set(id, pem);
  }
  return pem;
}

function keyFromBytes(jwt: JwtSettings, bytes: Buffer): VerifyKey | undefined {
  if (jwt.signingMethod === 'rsa' || jwt.signingMethod === 'ecdsa') {
    const pem = publicPem(bytes);
    return pem === null ? undefined : { kind: 'public', pem };
  }
  return { kind: 'secret', secret: bytes };
}

/** The identity of a token for a key-level secret (`getIdentityFromToken`): `kid`, else the claims. */
function keyIdentity(token: ParsedJwt, jwt: JwtSettings): string | undefined {
  if (typeof token.header.kid === 'string') return token.header.kid;
  const id = identityOf(token.claims, jwt.identityBaseField);
  return 'id' in id ? id.id : undefined;
}

interface Derived {
  version: number;
  policies: string;
  session: SessionState;
  /** The name of the session store entry (hashed when `hash_keys`). */
  keyId: string;
  /** The session's id unhashed: Tyk's auth token for the request. */
  token: string;
}

/** Sessions derived from tokens on this thread, per gateway state and by org and identity; bounded. */
const derivedByState = new WeakMap<GatewayState, Map<string, Derived>>();
const MAX_DERIVED = 50_000;

export interface JwtContext {
  state: GatewayState;
  api: ApiSpec;
  jwt: JwtSettings;
  log?: (msg: string) => void;
}

/** Authenticates `raw` (the credential, `Bearer ` already stripped) for the API of `ctx`. */
export async function authenticateJwt(ctx: JwtContext, raw: string): Promise<AuthOutcome> {
  const { api, jwt, state } = ctx;
  const central = jwt.source !== '';

  let token = central ? cachedToken(api, raw) : undefined;
  let keySession: { name: string; session: SessionState } | undefined;
  if (token === undefined) {
    const parsed = parseJwt(raw);
    if (parsed === undefined) return KEY_NOT_AUTHORIZED;
    if (!algMatchesMethod(parsed.alg, jwt.signingMethod)) return UNEXPECTED_SIGNING_METHOD;
    let key: VerifyKey | undefined;
    let keyTag = '';
    if (central) {
      const src = sourceOf(jwt.source);
      if (src.kind === 'bad') return KEY_NOT_AUTHORIZED;
      if (src.kind === 'url') {
        const kid = parsed.header.kid;
        if (typeof kid !== 'string') return KEY_NOT_AUTHORIZED;
        const pem = await jwksKey(src.url, kid, ctx.log);
        if (pem === undefined) return KEY_NOT_AUTHORIZED;
        key = { kind: 'public', pem };
      } else key = keyFromBytes(jwt, src.bytes);
    } else {
      const id = keyIdentity(parsed, jwt);
      if (id === undefined) return KEY_NOT_AUTHORIZED;
      keySession = await findKey(state, api, id);
      if (keySession === undefined) return KEY_NOT_AUTHORIZED;
      keyTag = keySession.session.jwt_data?.secret ?? '';
      const hit = cachedToken(api, raw, keyTag);
      if (hit === undefined) key = keyFromBytes(jwt, Buffer.from(keyTag, 'utf8'));
      else token = hit;
    }
    if (token === undefined) {
      if (key === undefined || !verifySignature(parsed, key)) return KEY_NOT_AUTHORIZED;
      token = parsed;
      cacheToken(api, token, keyTag);
    }
  } else if (!algMatchesMethod(token.alg, jwt.signingMethod)) return UNEXPECTED_SIGNING_METHOD;

  const timeError = timeClaimsError(token.claims, jwt);
  if (timeError !== undefined) return refuse(401, `Key not authorized: ${timeError}`);

  if (!central) {
    // processOneToOneTokenMap: the key that holds the secret is the session.
    if (keySession === undefined) {
      const id = keyIdentity(token, jwt);
      keySession = id === undefined ? undefined : await findKey(state, api, id);
    }
    return keySession === undefined ? KEY_NOT_AUTHORIZED : { ok: true, keyId: keySession.name, session: keySession.session };
  }
  return centralSession(ctx, token);
}

/** `processCentralisedJWT`: the session of the token's identity, from its policies. */
async function centralSession(ctx: JwtContext, token: ParsedJwt): Promise<AuthOutcome> {
  const { api, jwt, state } = ctx;
  const claims = token.claims;
  const identity = identityOf(claims, jwt.identityBaseField);
  if ('error' in identity) return refuse(403, identity.error);

  let basePolicy = jwt.policyFieldName !== '' ? (claimString(claims, jwt.policyFieldName) ?? '') : '';
  let isDefault = false;
  if (basePolicy === '' && jwt.defaultPolicies.length > 0) {
    isDefault = true;
    basePolicy = jwt.defaultPolicies[0]!;
  }
  let policies: string[] = basePolicy === '' ? [] : [basePolicy];
  if (isDefault) for (const p of jwt.defaultPolicies) if (!policies.includes(p)) policies.push(p);
  let fromScopes = false;
  if (Object.keys(jwt.scopeToPolicy).length > 0) {
    const scopes = scopesOf(claims, jwt.scopeClaimName || 'scope').filter((s) => s !== '');
    if (scopes.length > 0) {
      // Scopes replace the default policies; they add to a policy named in the token.
      const ids = isDefault || basePolicy === '' ? [] : [basePolicy];
      for (const p of policiesForScopes(jwt.scopeToPolicy, scopes)) if (!ids.includes(p)) ids.push(p);
      if (ids.length === 0) return refuse(403, 'key not authorized: no matching policy found in scope claim');
      policies = ids;
      fromScopes = true;
    }
  }
  if (policies.length === 0) return refuse(403, 'key not authorized: no matching policy found');

  const policiesKey = policies.join('\n');
  let derived = derivedByState.get(state);
  if (derived === undefined) {
    derived = new Map();
    derivedByState.set(state, derived);
  }
  const derivedKey = `${api.orgId}\0${identity.id}`;
  let entry = derived.get(derivedKey);
  let fresh = false;
  if (entry === undefined || entry.version !== state.version || entry.policies !== policiesKey) {
    // Tyk's name for the identity's session: generateToken(org, md5(identity)).
    const sessionId = generateToken(api.orgId, createHash('md5').update(identity.id).digest('hex'), state.config.hash_key_function ?? '');
    const made = deriveSession(ctx, basePolicy, policies, fromScopes, identity.id, sessionId);
    if (!made.ok) return made;
    entry = {
      version: state.version,
      policies: policiesKey,
      session: made.session,
      keyId: hashKey(sessionId, state.config.hash_keys === true),
      token: sessionId,
    };
    if (derived.size >= MAX_DERIVED) derived.delete(derived.keys().next().value as string);
    derived.set(derivedKey, entry);
    fresh = true;
  }
  let session = entry.session;
  const exp = claims.exp;
  // A token living longer than the key's own expiry extends it (Tyk: "override session expiry").
  if (typeof exp === 'number' && Math.trunc(exp) > (session.expires ?? 0)) session = { ...session, expires: Math.trunc(exp) };
  const keyId = entry.keyId;
  if (fresh && state.sessions.shared) {
    const ttl = typeof exp === 'number' ? Math.max(1, Math.trunc(exp - Date.now() / 1000)) : 0;
    try {
      await state.sessions.set(keyId, session, ttl);
    } catch (err) {
      ctx.log?.(`cannot store the session derived from a JWT: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { ok: true, keyId, token: entry.token, session };
}

function deriveSession(ctx: JwtContext, basePolicy: string, policies: string[], fromScopes: boolean, identity: string, sessionId: string): AuthOutcome {
  const { api, state } = ctx;
  let session: SessionState = { org_id: api.orgId };
  if (basePolicy !== '') {
    // generateSessionFromPolicy: the base policy is the template; it must exist in the API's org.
    const p = state.policy(basePolicy);
    if (p === undefined || (p.org_id !== undefined && p.org_id !== '' && p.org_id !== api.orgId)) {
      return NO_MATCHING_POLICY;
    }
    session = { ...policySession(p, api.orgId), expires: policyExpiry(p) };
  }
  session.apply_policies = [...policies];
  const err = applyPolicies(session, (id) => state.policy(id), api.orgId);
  if (err !== undefined) {
    if (fromScopes) return refuse(403, 'key not authorized: could not apply several policies');
    if (policies.length === 1 || state.policy(basePolicy) === undefined) return NO_MATCHING_POLICY;
    return refuse(500, `failed to create key: ${err}`);
  }
  session.meta_data = { ...session.meta_data, TykJWTSessionID: sessionId };
  session.alias = identity;
  return { ok: true, keyId: sessionId, session };
}
