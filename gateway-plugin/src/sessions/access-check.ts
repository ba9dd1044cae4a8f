/**
 * What Tyk checks about a session once the key is known, in its middleware order
 * (gateway/mw_key_expired_check.go, mw_access_rights.go, mw_granular_access.go at v5.14.0), with
 * its words and status codes: inactive, expired, the API not in the access rights, the path and
 * method not in the API's `allowed_urls`.
 */
import { compiledRe2 } from '@svc/engine/kit';
import type { ApiSpec } from '../apis/api-spec.js';
import { endpointPath, pathMatchingOf, preparePathRegexp } from '../apis/endpoints.js';
import type { SessionState } from './session.js';

export interface Refusal {
  status: number;
  message: string;
}

export const KEY_INACTIVE: Refusal = { status: 403, message: 'Key is inactive, please renew' };
export const KEY_EXPIRED: Refusal = { status: 401, message: 'Key has expired, please renew' };
export const API_DISALLOWED: Refusal = { status: 403, message: 'Access to this API has been disallowed' };
export const RESOURCE_DISALLOWED: Refusal = { status: 403, message: 'Access to this resource has been disallowed' };

/**
 * Tyk's GranularAccessMiddleware match of one `allowed_urls` entry: with prefix matching, the
 * anchored pattern on the path without the listen path, then the whole path (MatchPaths; a
 * pattern that is only anchors matches nothing); else the pattern (`$`-anchored with suffix
 * matching) on the whole path.
 */
function allows(url: string, api: AccessApi, path: string): boolean {
  const matching = pathMatchingOf(api);
  // An entry that does not compile is skipped, as Tyk logs "error compiling regex" and skips it.
  const re = compiledRe2(preparePathRegexp(url, matching));
  if (re === null) return false;
  if (!matching.prefix) return re.matcher(path).find();
  if (url.replace(/^[$^]+|[$^]+$/g, '') === '') return false;
  const stripped = endpointPath(api, path);
  return re.matcher(stripped).find() || (stripped !== path && re.matcher(path).find());
}

/** What of the API the check reads. */
export type AccessApi = Pick<ApiSpec, 'id' | 'listenPath' | 'pathMatching'>;

/**
 * The refusal Tyk gives this session for `method path` on `api`, or undefined. `versions`:
 * on a versioned API, the versions the access right must list one of (Tyk's AccessRightsCheck).
 */
export function checkSession(
  session: SessionState,
  api: AccessApi,
  method: string,
  path: string,
  nowSeconds = Date.now() / 1000,
  versions?: readonly string[],
): Refusal | undefined {
  if (session.is_inactive === true) return KEY_INACTIVE;
  if ((session.expires ?? 0) >= 1 && nowSeconds > session.expires!) return KEY_EXPIRED;
  const rights = session.access_rights;
  if (rights === undefined || Object.keys(rights).length === 0) return undefined;
  const access = rights[api.id];
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
    if (allows(u.url, api, decoded)) return undefined;
  }
  return RESOURCE_DISALLOWED;
}
