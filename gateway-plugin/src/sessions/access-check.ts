/**
 * What Tyk checks about a session once the key is known, in its middleware order
 * (gateway/mw_key_expired_check.go, mw_access_rights.go, mw_granular_access.go at v5.14.0), with
 * its words and status codes: inactive, expired, the API not in the access rights, the path and
 * method not in the API's `allowed_urls`.
 */
import { RE2JS } from 're2js';
import type { SessionState } from './session.js';

export interface Refusal {
  status: number;
  message: string;
}

export const KEY_INACTIVE: Refusal = { status: 403, message: 'Key is inactive, please renew' };
export const KEY_EXPIRED: Refusal = { status: 401, message: 'Key has expired, please renew' };
export const API_DISALLOWED: Refusal = { status: 403, message: 'Access to this API has been disallowed' };
export const RESOURCE_DISALLOWED: Refusal = { status: 403, message: 'Access to this resource has been disallowed' };

/** `PreparePathRegexp` (no prefix or suffix matching, Tyk's defaults): `{id}` and `/*` widened. */
export function preparePathRegexp(pattern: string): string {
  let p = pattern;
  const open = p.split('{').length - 1;
  if (open > 0 && open === p.split('}').length - 1) p = p.replace(/{([^}]+)}/g, '([^/]+)');
  if (p.includes('/*')) p = p.replaceAll('/*/', '/[^/]+/').replaceAll('/*', '/.*');
  return p;
}

/** Compiled allowed_urls patterns (few, and shared by every key with the same policy). */
const compiled = new Map<string, RE2JS | null>();

function compile(url: string): RE2JS | null {
  let re = compiled.get(url);
  if (re === undefined) {
    try {
      re = RE2JS.compile(preparePathRegexp(url));
    } catch {
      // Tyk logs "error compiling regex" and skips the entry.
      re = null;
    }
    if (compiled.size > 10_000) compiled.clear();
    compiled.set(url, re);
  }
  return re;
}

/**
 * The refusal Tyk gives this session for `method path` on API `apiId`, or undefined. `versions`:
 * on a versioned API, the versions the access right must list one of (Tyk's AccessRightsCheck).
 */
export function checkSession(
  session: SessionState,
  apiId: string,
  method: string,
  path: string,
  nowSeconds = Date.now() / 1000,
  versions?: readonly string[],
): Refusal | undefined {
  if (session.is_inactive === true) return KEY_INACTIVE;
  if ((session.expires ?? 0) >= 1 && nowSeconds > session.expires!) return KEY_EXPIRED;
  const rights = session.access_rights;
  if (rights === undefined || Object.keys(rights).length === 0) return undefined;
  const access = rights[apiId];
  if (access === undefined) return API_DISALLOWED;
  if (versions !== undefined && !versions.some((v) => access.versions?.includes(v) === true)) return API_DISALLOWED;
  const urls = access.allowed_urls;
  if (urls === undefined || urls.length === 0) return undefined;
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A malformed escape: match the path as it came.
  }
  for (const u of urls) {
    if (!u.methods.includes(method)) continue;
    const re = compile(u.url);
    if (re !== null && re.matcher(decoded).find()) return undefined;
  }
  return RESOURCE_DISALLOWED;
}
