/**
 * The answers of Tyk's OAuth 2.0 server, as the osin library it wraps builds them
 * (github.com/lonelycode/osin: `Response`, `SetError`, `GetRedirectUrl`) and Tyk writes them
 * (`generateOAuthOutputFromOsinResponse`: an empty `state` dropped, `redirect_to` added for a
 * redirect; Go's json.Encoder on a map: keys sorted, HTML not escaped, a final newline).
 */

/** osin's error ids and their descriptions (osin/error.go). */
export const OSIN_ERRORS = {
  invalid_request:
    'The request is missing a required parameter, includes an invalid parameter value, includes a parameter more than once, or is otherwise malformed.',
  unauthorized_client: 'The client is not authorized to request a token using this method.',
  access_denied: 'The resource owner or authorization server denied the request.',
  unsupported_response_type: 'The authorization server does not support obtaining a token using this method.',
  server_error: 'The authorization server encountered an unexpected condition that prevented it from fulfilling the request.',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server.',
  invalid_grant:
    'The provided authorization grant (e.g., authorization code, resource owner credentials) or refresh token is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  invalid_client: 'Client authentication failed (e.g., unknown client, no client authentication included, or unsupported authentication method).',
} as const;

export type OsinError = keyof typeof OSIN_ERRORS;

/** One osin response: output fields, an error, a redirect. */
export class OsinResponse {
  output: Record<string, string | number> = {};
  isError = false;
  /** The status an error answers with (svc.conf `oauth_error_status_code`, else 403). */
  statusText = '';
  redirect: string | undefined;
  redirectInFragment = false;

  constructor(readonly errorStatus: number) {}

  /** osin's SetErrorState: the output becomes the error (and the state, when there is one). */
  setError(id: OsinError, state = ''): void {
    this.isError = true;
    this.statusText = this.errorStatus !== 200 ? OSIN_ERRORS[id] : '';
    this.output = { error: id, error_description: OSIN_ERRORS[id] };
    if (state !== '') this.output['state'] = state;
  }

  /** osin's GetRedirectUrl: the output merged into the redirect's query (or fragment), Go's url.Values encoding. */
  redirectUrl(): string | undefined {
    if (this.redirect === undefined) return undefined;
    let u: URL;
    try {
      u = new URL(this.redirect);
    } catch {
      return undefined;
    }
    const q = new Map<string, string>();
    for (const [k, v] of new URLSearchParams(u.search)) if (!q.has(k)) q.set(k, v);
    for (const [k, v] of Object.entries(this.output)) q.set(k, String(v));
    const encoded = [...q.keys()]
      .sort()
      .map((k) => `${goQueryEscape(k)}=${goQueryEscape(q.get(k)!)}`)
      .join('&');
    if (this.redirectInFragment) {
      u.search = '';
      return `${u.toString()}#${decodeURIComponent(encoded.replace(/\+/g, ' '))}`;
    }
    u.search = encoded === '' ? '' : `?${encoded}`;
    return u.toString();
  }

  /** Tyk's body for this response: the output, `state` dropped when empty, `redirect_to` for a redirect. */
  body(): string {
    const out: Record<string, string | number> = { ...this.output };
    if (out['state'] === '') delete out['state'];
    this.output = out;
    const to = this.redirectUrl();
    if (to !== undefined) out['redirect_to'] = to;
    return goMapJson(out);
  }
}

/** Go's url.QueryEscape. */
export function goQueryEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** Go's json.Encoder (HTML not escaped) on a map of scalars: keys in byte order, a final newline. */
export function goMapJson(m: Record<string, string | number>): string {
  const keys = Object.keys(m).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(m[k])}`).join(',')}}\n`;
}
