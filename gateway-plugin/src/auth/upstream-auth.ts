/**
 * Authentication to the upstream (`upstream_auth`), as Tyk v5.14.0 Enterprise's middlewares
 * (`ee/middleware/upstreambasicauth`, `ee/middleware/upstreamoauth`) do it: the header (the
 * Authorization header, or `header.name` when `header.enabled`) is set to `Basic base64(user:pw)`,
 * or to `Bearer <token>` from the OAuth server at `token_url` (golang.org/x/oauth2's requests: a
 * form POST with `grant_type` `client_credentials` or `password`, the scopes space-separated, the
 * client id and secret in HTTP Basic auth, each URL-encoded first). A token is kept until its
 * `expires_in` passes (without one, until the API is reloaded), one request for it at a time.
 *
 * The client secret, the password and the tokens are never in a log line or an answer: a failed
 * token request is Tyk's 500 `failed to get OAuth token: ...` naming the OAuth server's status only.
 */
import { request } from 'undici';
import type { UpstreamAuth, UpstreamOAuth } from '../apis/api-spec.js';
import { readBounded } from './bounded-body.js';

/** A token request that has not answered in this long fails (Tyk's oauth2 client has no deadline of its own). */
const TIMEOUT_MS = 10_000;
/** Go's http.Client: a token answer is a few hundred bytes. */
const MAX_TOKEN_ANSWER = 64 * 1024;

/** A failed token request: what the client is told (no secret in it). */
export class UpstreamTokenError extends Error {
  readonly code = 'UPSTREAM_TOKEN';
}

interface Held {
  token: Promise<string>;
  /** ms since the epoch; Infinity: no expires_in. */
  until: number;
}

/** Tokens per API object (a reload makes new ones, and so drops the tokens of the old). */
const tokens = new WeakMap<UpstreamOAuth, Held>();

/** The header and value the upstream gets for `auth`. */
export async function upstreamCredential(auth: UpstreamAuth, now = Date.now()): Promise<{ header: string; value: string }> {
  if (auth.kind === 'basic') return { header: auth.header, value: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` };
  let held = tokens.get(auth);
  if (held === undefined || held.until <= now) {
    const fetched = fetchToken(auth);
    held = { token: fetched.then((t) => t.accessToken), until: Infinity };
    const h = held;
    tokens.set(auth, h);
    fetched.then(
      (t) => (h.until = t.expiresIn > 0 ? Date.now() + t.expiresIn * 1000 : Infinity),
      // A failure is not kept: the next request asks again.
      () => tokens.get(auth) === h && tokens.delete(auth),
    );
  }
  return { header: auth.header, value: `Bearer ${await held.token}` };
}

/** x/oauth2's client id and secret in Basic auth: each URL-encoded (query escaping), then joined. */
function clientAuthorization(auth: UpstreamOAuth): string {
  const esc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${esc(auth.clientId)}:${esc(auth.clientSecret)}`).toString('base64')}`;
}

async function fetchToken(auth: UpstreamOAuth): Promise<{ accessToken: string; expiresIn: number }> {
  const form = new URLSearchParams({ grant_type: auth.grant });
  if (auth.grant === 'password') {
    form.set('username', auth.username);
    form.set('password', auth.password);
  }
  if (auth.scopes.length > 0) form.set('scope', auth.scopes.join(' '));
  let status: number;
  let body: Buffer | undefined;
  try {
    const res = await request(auth.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: clientAuthorization(auth) },
      body: form.toString(),
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    status = res.statusCode;
    body = await readBounded(res.body, MAX_TOKEN_ANSWER);
  } catch (err) {
    // undici's errors name the URL at most (a token_url with credentials in it is the user's choice); not the form.
    throw new UpstreamTokenError(`oauth2: cannot fetch token: ${err instanceof Error && 'code' in err ? String(err.code) : 'request failed'}`);
  }
  if (status < 200 || status > 299) throw new UpstreamTokenError(`oauth2: cannot fetch token: ${status}`);
  let doc: unknown;
  try {
    doc = JSON.parse(body?.toString('utf8') ?? '');
  } catch {
    doc = undefined;
  }
  const token = doc !== null && typeof doc === 'object' ? (doc as Record<string, unknown>).access_token : undefined;
  if (typeof token !== 'string' || token === '') throw new UpstreamTokenError('oauth2: server response missing access_token');
  const expires = Number((doc as Record<string, unknown>).expires_in);
  return { accessToken: token, expiresIn: Number.isFinite(expires) && expires > 0 ? expires : 0 };
}
