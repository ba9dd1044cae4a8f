/**
 * Where a request's credential is, as Tyk reads it (`BaseMiddleware.getAuthToken`): the header
 * (case-insensitive name), then a non-empty query parameter (case-sensitive) wins over it, then
 * a non-empty cookie wins over both. `Bearer ` is stripped by the caller (`stripBearer`).
 * `strip_auth_data` removes all of them before proxying (gateway/mw_strip_auth.go).
 */
import type { CredentialSource } from '../apis/api-spec.js';
import type { GatewayRequest } from '../kernel/request.js';

function headerValue(req: GatewayRequest, name: string): string {
  const v = req.headers[name.toLowerCase()];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

function queryValue(query: string, name: string): string {
  if (query === '') return '';
  try {
    return new URLSearchParams(query).get(name) ?? '';
  } catch {
    return '';
  }
}

function cookieValue(req: GatewayRequest, name: string): string {
  const raw = headerValue(req, 'cookie');
  if (raw === '') return '';
  for (const part of raw.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name)
      return part
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
  }
  return '';
}

/** The credential of `req` by `src` ('' when none). */
export function readCredential(req: GatewayRequest, src: CredentialSource): string {
  let key = src.header !== '' ? headerValue(req, src.header) : '';
  if (src.query !== '') key = queryValue(req.query, src.query) || key;
  if (src.cookie !== '') key = cookieValue(req, src.cookie) || key;
  return key;
}

/** `stripBearer`: a case-insensitive `Bearer ` prefix is optional. */
export function stripBearer(token: string): string {
  return token.length > 6 && token.slice(0, 7).toUpperCase() === 'BEARER ' ? token.slice(7) : token;
}

/** Removes the credential from the header, the query and the cookie of `req` (`strip_auth_data`). */
export function stripCredential(req: GatewayRequest, src: CredentialSource): void {
  const header = src.header || 'Authorization';
  delete req.headers[header.toLowerCase()];
  if (src.query !== '' && req.query !== '') {
    const q = new URLSearchParams(req.query);
    q.delete(src.query);
    req.query = q.toString();
  }
  const cookieName = src.cookie || header;
  const raw = headerValue(req, 'cookie');
  if (raw !== '') {
    const kept = raw.split(';').filter((c) => {
      const eq = c.indexOf('=');
      return (eq < 0 ? c : c.slice(0, eq)).trim() !== cookieName;
    });
    if (kept.length === 0) delete req.headers.cookie;
    else req.headers.cookie = kept.join(';').trim();
  }
}
