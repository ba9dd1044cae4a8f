/**
 * `oauth2` (client credentials, RFC 6749 §4.4): a token is fetched from `token_url` with the
 * client's key and secret, cached until shortly before it expires, and sent as a bearer token.
 * Concurrent requests share one token fetch.
 */
import type { Dispatcher } from 'undici';
import { loadUndici } from './lazy-deps.js';
import { ErrorCode, SvcError, errorMessage, f, redactUrl, scrubSecrets, type Infer } from '@svc/engine';
import type { OutgoingRequest, RequestAuth } from './outgoing-request.js';

export const oauth2Spec = f
  .object({
    enabled: f.bool().default(false).describe('Whether to authenticate with OAuth2 client credentials.'),
    client_key: f.string().default('').describe('The client key (client id).'),
    client_secret: f.string().default('').secret().describe('The client secret.'),
    token_url: f.string().url().default('').describe('The URL of the token endpoint.'),
    scopes: f.array(f.string()).default([]).describe('The scopes to request.'),
    endpoint_params: f.map(f.array(f.string())).default({}).describe('Extra form parameters of the token request.'),
  })
  .describe('OAuth2 client credentials flow: a bearer token fetched and cached until it expires.');

export type OAuth2Config = Infer<typeof oauth2Spec>;

/** A token is refreshed this long before it expires (as Go's oauth2 package does). */
const EXPIRY_MARGIN_MS = 10_000;
/** A token endpoint answer larger than this is refused. */
const MAX_TOKEN_RESPONSE = 1 << 20;

interface Token {
  value: string;
  type: string;
  /** Epoch ms after which a new token is fetched; Infinity when the server gave no expiry. */
  expiresAt: number;
}

export class OAuth2 implements RequestAuth {
  private token: Token | undefined;
  private fetching: Promise<Token> | undefined;

  constructor(
    private readonly conf: OAuth2Config,
    private readonly dispatcher: Dispatcher,
    private readonly timeoutMs: number,
  ) {
    if (!conf.token_url) throw new SvcError(ErrorCode.ConfigLint, 'oauth2.token_url is required when oauth2 is enabled');
  }

  async apply(req: OutgoingRequest): Promise<void> {
    let t = this.token;
    if (!t || Date.now() >= t.expiresAt) t = await (this.fetching ??= this.fetchToken().finally(() => (this.fetching = undefined)));
    req.headers['authorization'] = `${t.type} ${t.value}`;
  }

  /** Text with the token URL's password and the client secret replaced (an endpoint may echo them). */
  private scrub(text: string): string {
    return scrubSecrets(text, [this.conf.client_secret], [this.conf.token_url]);
  }

  /** Forgets the cached token (the next request fetches one). */
  invalidate(): void {
    this.token = undefined;
  }

  private async fetchToken(): Promise<Token> {
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (this.conf.scopes.length) form.set('scope', this.conf.scopes.join(' '));
    for (const [k, vs] of Object.entries(this.conf.endpoint_params)) for (const v of vs) form.append(k, v);
    const basic = Buffer.from(`${encodeURIComponent(this.conf.client_key)}:${encodeURIComponent(this.conf.client_secret)}`).toString('base64');
    let status: number;
    let text: string;
    try {
      const res = await (
        await loadUndici()
      ).request(this.conf.token_url, {
        dispatcher: this.dispatcher,
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
        body: form.toString(),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      status = res.statusCode;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const c of res.body) {
        size += (c as Buffer).length;
        if (size > MAX_TOKEN_RESPONSE) {
          res.body.destroy();
          throw new Error('the token response is larger than 1 MiB');
        }
        chunks.push(c as Buffer);
      }
      text = Buffer.concat(chunks).toString('utf8');
    } catch (err) {
      throw new SvcError(ErrorCode.NotConnected, this.scrub(`oauth2: cannot fetch a token from ${redactUrl(this.conf.token_url)}: ${errorMessage(err)}`), {
        cause: err,
      });
    }
    if (status < 200 || status > 299) {
      throw new SvcError(ErrorCode.NotConnected, this.scrub(`oauth2: the token endpoint answered ${status}: ${text.slice(0, 200)}`));
    }
    let body: { access_token?: unknown; token_type?: unknown; expires_in?: unknown };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      // RFC 6749 asks for JSON, but some servers answer form-encoded (GitHub did).
      body = Object.fromEntries(new URLSearchParams(text));
    }
    if (typeof body.access_token !== 'string' || body.access_token === '') {
      throw new SvcError(ErrorCode.NotConnected, 'oauth2: the token endpoint answered without an access_token');
    }
    const expiresIn = Number(body.expires_in);
    const type = typeof body.token_type === 'string' && body.token_type.toLowerCase() !== 'bearer' ? body.token_type : 'Bearer';
    this.token = {
      value: body.access_token,
      type,
      expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? Date.now() + expiresIn * 1000 - EXPIRY_MARGIN_MS : Infinity,
    };
    return this.token;
  }
}
