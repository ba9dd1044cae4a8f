/**
 * Which version of an API a request is for, and whether it may have it, as Tyk v5.14.0's
 * VersionCheck decides before anything else of its chain (`gateway/mw_version_check.go`,
 * `api_definition.go` getVersionFromRequest, Version, RequestValid):
 *
 * - a versioned API (`version_data.not_versioned` false) reads the version from
 *   `definition.location`: the header `definition.key`, the query parameter `definition.key`, or
 *   the first segment of the path after the listen path (`url`); with `strip_path` /
 *   `strip_versioning_data` it is taken out of what the upstream gets (the header removed, the
 *   parameter removed and the query re-encoded as Go's url.Values.Encode does, the segment and its
 *   slash removed from the path);
 * - none named: `default_version`, else 403 "Version information not found"; a name not in
 *   `versions`: the default with `fallback_to_default`, else 403 "This API version does not seem
 *   to exist"; a version past its `expires`: 403 "Api Version has expired, please check
 *   documentation or contact administrator" (a not-versioned API past its `expiration`: "API has
 *   expired, ...");
 * - a request that passes is served by that version's own API spec (its extended paths, its
 *   `override_target`), and the answer carries `X-Svc-Api-Expires` (Tyk's X-Tyk-Api-Expires,
 *   RFC 1123 in UTC) when the API or the version has a date.
 */
import type { Answer } from '@svc/engine';
import { compiledRe2 } from '@svc/engine/kit';
import type { ApiSpec, ApiVersioning } from '../apis/api-spec.js';
import { tykError } from '../kernel/errors.js';
import { parseQuery } from '../kernel/request-target.js';

const VERSION_NOT_FOUND = tykError(403, 'Version information not found');
const VERSION_DOES_NOT_EXIST = tykError(403, 'This API version does not seem to exist');
const VERSION_EXPIRED = tykError(403, 'Api Version has expired, please check documentation or contact administrator');
/** A base API's version that names no API: Tyk answers its "does not exist" text with 404 there. */
const VERSION_NOT_AN_API = tykError(404, 'This API version does not seem to exist');
const INTERNAL_ERROR = tykError(500, 'Internal Server Error');
const API_EXPIRED = tykError(403, 'API has expired, please check documentation or contact administrator');

/** The header Tyk names X-Tyk-Api-Expires. */
export const EXPIRES_HEADER = 'X-Svc-Api-Expires';

/** What a request looks like to the version check, and what it may change. */
export interface VersionedRequest {
  /** The path, decoded, with the listen path. */
  path: string;
  /** The path as received. */
  rawPath: string;
  query: string;
  /** The first value of a request header (lower-case name), as Go's Header.Get. */
  header: (name: string) => string | undefined;
}

export interface VersionChoice {
  /** Tyk's 403 when the request has no version it may have. */
  refusal?: Answer;
  /** The API spec that serves the request (the version's own for a versioned API). */
  api: ApiSpec;
  /** The request after stripping the version, when it was stripped. */
  path?: string;
  rawPath?: string;
  query?: string;
  /** A header to take out of the upstream request (lower-case). */
  dropHeader?: string;
  /** X-Svc-Api-Expires's value, when the answer carries it. */
  expires?: string;
  /**
   * A versioned API: the versions a key's access rights may list to be let through (Tyk's
   * AccessRightsCheck: the version asked for, or the default one; with `fallback_to_default` the
   * default one too).
   */
  accessVersions?: string[];
  /** A base API's request for another of its versions (a separate API): the version's name, resolved by {@link versionApi}. */
  childVersion?: string;
}

function segmentMatches(pattern: string, part: string): boolean {
  if (pattern === '') return true;
  // Checked at load (classic.ts): it compiles.
  const re = compiledRe2(pattern);
  return re !== null && re.matcher(part).find();
}

/** Go's url.QueryEscape: spaces as `+`, everything but letters, digits and `-_.~` percent-encoded. */
function queryEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** Go's url.Values.Encode: keys sorted (by bytes), each value `key=value`, escaped. */
function encodeQuery(values: Map<string, string[]>): string {
  const keys = [...values.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)) as number);
  const parts: string[] = [];
  for (const k of keys) for (const v of values.get(k)!) parts.push(`${queryEscape(k)}=${queryEscape(v)}`);
  return parts.join('&');
}

/** The version the request names ('' for none), and the request without it when the API strips it. */
function requestedVersion(
  v: Pick<ApiVersioning, 'location' | 'key' | 'strip' | 'urlPattern'>,
  listenPath: string,
  r: VersionedRequest,
  out: VersionChoice,
): string {
  switch (v.location) {
    case 'header': {
      const name = r.header(v.key.toLowerCase()) ?? '';
      if (v.strip && v.key !== '') out.dropHeader = v.key.toLowerCase();
      return name;
    }
    case 'url-param': {
      const values = parseQuery(r.query);
      const name = values.get(v.key)?.[0] ?? '';
      if (v.strip) {
        values.delete(v.key);
        out.query = encodeQuery(values);
      }
      return name;
    }
    case 'url': {
      // Tyk: the listen path stripped, then the first non-empty segment.
      const rest = r.path.startsWith(listenPath) ? r.path.slice(listenPath.length) : r.path;
      const part = rest.split('/').find((p) => p !== '') ?? '';
      if (part !== '' && v.strip && segmentMatches(v.urlPattern, part)) {
        // Tyk removes the first `<part>/` anywhere in the path, as strings.Replace does.
        const cut = (p: string): string => {
          const at = p.indexOf(`${part}/`);
          return at < 0 ? p : p.slice(0, at) + p.slice(at + part.length + 1);
        };
        out.path = cut(r.path);
        out.rawPath = cut(r.rawPath);
      }
      return part;
    }
    default:
      return '';
  }
}

function expired(at: number | undefined, now: number): boolean {
  return at !== undefined && (Number.isNaN(at) || now >= at);
}

/** Go's time.Format(time.RFC1123) of a UTC time. */
function rfc1123(ms: number): string {
  return new Date(ms).toUTCString().replace(/GMT$/, 'UTC');
}

/** The version `api` serves this request with, or Tyk's refusal. */
export function chooseVersion(api: ApiSpec, r: VersionedRequest, now = Date.now()): VersionChoice {
  if (api.versionProblem !== undefined) return { api, refusal: tykError(403, api.versionProblem) };
  const out: VersionChoice = { api };
  const child = api.childVersions;
  if (child !== undefined) {
    // Tyk: the version asked for, else the default; the base's own name (or `self`) is the base.
    const name = requestedVersion(child, api.listenPath, r, out) || child.defaultVersion;
    if (name !== 'self' && name !== child.name) {
      if (name === '') return { api, refusal: VERSION_NOT_FOUND };
      out.childVersion = name;
      return out;
    }
  }
  const v = api.versioning;
  if (v !== undefined) {
    let name = requestedVersion(v, api.listenPath, r, out);
    if (name === '') {
      if (v.defaultVersion === '') return { api, refusal: VERSION_NOT_FOUND };
      name = v.defaultVersion;
    }
    const served = v.versions.get(name) ?? (v.fallbackToDefault ? v.versions.get(v.defaultVersion) : undefined);
    if (served === undefined) return { api, refusal: VERSION_DOES_NOT_EXIST };
    out.api = served;
    out.accessVersions = v.fallbackToDefault && name !== v.defaultVersion ? [name, v.defaultVersion] : [name];
  }
  const e = out.api.expiry;
  if (e !== undefined) {
    if (e.versioned ? expired(e.version, now) : expired(e.api, now)) return { api: out.api, refusal: e.versioned ? VERSION_EXPIRED : API_EXPIRED };
    if (e.api !== undefined && !Number.isNaN(e.api)) out.expires = rfc1123(e.api);
    else if (e.version !== undefined && !expired(e.version, now)) out.expires = rfc1123(e.version);
  }
  return out;
}

/**
 * The API serving a base API's version `name` (found by id or name, as a `svc://` loop's target):
 * with `fallback_to_default`, a version that names no API is the default one (`base` when that is
 * the base itself); else Tyk's 404. A default that names no API is Tyk's 500.
 */
export function versionApi(
  base: ApiSpec,
  name: string,
  find: (nameOrId: string) => ApiSpec | undefined,
): { api: ApiSpec } | { base: true } | { refusal: Answer } {
  const v = base.childVersions!;
  const id = v.versions.get(name);
  const api = id === undefined || id === '' ? undefined : find(id);
  if (api !== undefined) return { api };
  if (!v.fallbackToDefault) return { refusal: VERSION_NOT_AN_API };
  if (v.defaultVersion === 'self' || v.defaultVersion === v.name) return { base: true };
  const defaultId = v.versions.get(v.defaultVersion);
  const fallback = defaultId === undefined || defaultId === '' ? undefined : find(defaultId);
  return fallback === undefined ? { refusal: INTERNAL_ERROR } : { api: fallback };
}
