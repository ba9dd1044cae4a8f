/**
 * The split-token endpoint (Tyk's split-token virtual endpoint): a POST with a form body
 * (grant_type, client_id, client_secret) on the endpoint's path, relative to the listen path, is
 * forwarded to the identity provider's token URL. A non-200 answer goes back as it is (status and
 * body). On 200 a key is created named by the token's signature (the third dot-separated part),
 * with the API's default policies (else an access right to this API), expiring with the token,
 * and the full JWT in its `meta_data` under {@link SPLIT_TOKEN_META}; the client gets the
 * answer with `access_token` = the signature and without `refresh_token`/`refresh_expires_in`.
 * A later request with the signature as its key gets `Authorization: Bearer <JWT>` upstream.
 */
import type { Answer } from '@svc/engine';
import { request } from 'undici';
import type { ApiSpec, SplitTokenEndpoint } from '../apis/api-spec.js';
import { tykError } from '../kernel/errors.js';
import type { GatewayRequest } from '../kernel/request.js';
import type { GatewayState } from '../kernel/state.js';
import { generateToken, hashKey } from '../sessions/key-hash.js';
import type { SessionState } from '../sessions/session.js';
import { readBounded } from './bounded-body.js';

export const SPLIT_TOKEN_META = 'split_token_jwt';
const TIMEOUT_MS = 10_000;

/** The path of `req` after the API's listen path, always starting with '/'. */
function relativePath(api: ApiSpec, path: string): string {
  const lp = api.listenPath.endsWith('/') ? api.listenPath.slice(0, -1) : api.listenPath;
  const rest = path.startsWith(lp) ? path.slice(lp.length) : path;
  return rest.startsWith('/') ? rest : `/${rest}`;
}

const norm = (p: string): string => (p.startsWith('/') ? p : `/${p}`);

/** The split-token endpoint `req` is for, if any. */
export function splitTokenEndpoint(api: ApiSpec, req: GatewayRequest): SplitTokenEndpoint | undefined {
  if (api.splitToken.length === 0) return undefined;
  const rel = relativePath(api, req.path);
  return api.splitToken.find((e) => norm(e.path) === rel && req.method === (e.method || 'POST').toUpperCase());
}

function claimsOf(jwt: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Forwards the token request and answers it; creates the key on success. */
export async function handleSplitToken(state: GatewayState, api: ApiSpec, ep: SplitTokenEndpoint, req: GatewayRequest, body: Buffer): Promise<Answer> {
  const ct = req.headers['content-type'];
  let status: number;
  let upstreamType: string;
  let text: Buffer;
  try {
    const res = await request(ep.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': (Array.isArray(ct) ? ct[0] : ct) ?? 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
      // A total deadline: a server that trickles its answer a byte at a time never trips the idle ones.
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    status = res.statusCode;
    const t = res.headers['content-type'];
    upstreamType = (Array.isArray(t) ? t[0] : t) ?? 'application/json';
    const answer = await readBounded(res.body);
    if (answer === undefined) return tykError(502, 'There was a problem proxying the request');
    text = answer;
  } catch {
    return tykError(502, 'There was a problem proxying the request');
  }
  if (status !== 200) return { status, headers: { 'content-type': upstreamType }, body: text };

  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text.toString('utf8')) as Record<string, unknown>;
  } catch {
    return { status, headers: { 'content-type': upstreamType }, body: text };
  }
  const jwt = doc.access_token;
  const parts = typeof jwt === 'string' ? jwt.split('.') : [];
  if (parts.length !== 3 || parts[2] === '') return { status, headers: { 'content-type': upstreamType }, body: text };
  const signature = parts[2]!;
  const exp = claimsOf(jwt as string).exp;
  const expires = typeof exp === 'number' && exp > 0 ? Math.trunc(exp) : 0;
  const defaults = api.jwt?.defaultPolicies ?? [];
  const session: SessionState = {
    org_id: api.orgId,
    expires,
    meta_data: { [SPLIT_TOKEN_META]: jwt },
    ...(defaults.length > 0
      ? { apply_policies: [...defaults] }
      : { access_rights: { [api.id]: { api_id: api.id, api_name: api.name, versions: ['Default'] } } }),
  };
  const name = hashKey(generateToken(api.orgId, signature, state.config.hash_key_function ?? ''), state.config.hash_keys === true);
  const ttl = expires > 0 ? Math.max(1, expires - Math.trunc(Date.now() / 1000)) : 0;
  await state.sessions.set(name, session, ttl);

  doc.access_token = signature;
  delete doc.refresh_token;
  delete doc.refresh_expires_in;
  return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(doc)) };
}
