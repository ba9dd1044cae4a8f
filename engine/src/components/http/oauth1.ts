/**
 * `oauth` (OAuth 1.0a, RFC 5849): every request is signed with HMAC-SHA1 over its method, base
 * URL and parameters (query, and form fields of an urlencoded body), with a fresh nonce.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { f, type Infer } from '@svc/engine';
import type { OutgoingRequest, RequestAuth } from './outgoing-request.js';

export const oauthSpec = f
  .object({
    enabled: f.bool().default(false).describe('Whether to sign requests with OAuth 1.0a.'),
    consumer_key: f.string().default('').describe('The consumer key.'),
    consumer_secret: f.string().default('').secret().describe('The consumer secret.'),
    access_token: f.string().default('').describe('The access token.'),
    access_token_secret: f.string().default('').secret().describe('The secret of the access token.'),
  })
  .describe('OAuth 1.0a request signing (HMAC-SHA1).');

export type OAuthConfig = Infer<typeof oauthSpec>;

/** RFC 3986 percent-encoding, as RFC 5849 §3.6 requires (encodeURIComponent leaves !*'() alone). */
export function percentEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!*'()]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

/** The signature base string of RFC 5849 §3.4.1. */
export function signatureBase(method: string, url: URL, params: Array<[string, string]>): string {
  const port = url.port && !((url.protocol === 'http:' && url.port === '80') || (url.protocol === 'https:' && url.port === '443')) ? `:${url.port}` : '';
  const base = `${url.protocol}//${url.hostname.toLowerCase()}${port}${url.pathname}`;
  const encoded = params.map(([k, v]) => [percentEncode(k), percentEncode(v)] as const);
  encoded.sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1));
  const normalized = encoded.map(([k, v]) => `${k}=${v}`).join('&');
  return `${method.toUpperCase()}&${percentEncode(base)}&${percentEncode(normalized)}`;
}

export class OAuth1 implements RequestAuth {
  constructor(
    private readonly conf: OAuthConfig,
    private readonly now: () => number = () => Date.now(),
  ) {}

  apply(req: OutgoingRequest): void {
    const oauth: Array<[string, string]> = [
      ['oauth_consumer_key', this.conf.consumer_key],
      ['oauth_nonce', randomBytes(16).toString('hex')],
      ['oauth_signature_method', 'HMAC-SHA1'],
      ['oauth_timestamp', String(Math.floor(this.now() / 1000))],
      ['oauth_version', '1.0'],
    ];
    if (this.conf.access_token) oauth.push(['oauth_token', this.conf.access_token]);
    const params: Array<[string, string]> = [...oauth, ...req.url.searchParams];
    const type = req.headers['content-type'] ?? '';
    if (req.body && type.split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded') {
      params.push(...new URLSearchParams(req.body.toString('utf8')));
    }
    const key = `${percentEncode(this.conf.consumer_secret)}&${percentEncode(this.conf.access_token_secret)}`;
    const signature = createHmac('sha1', key)
      .update(signatureBase(req.method, req.url, params))
      .digest('base64');
    oauth.push(['oauth_signature', signature]);
    req.headers['authorization'] = 'OAuth ' + oauth.map(([k, v]) => `${percentEncode(k)}="${percentEncode(v)}"`).join(', ');
  }
}
