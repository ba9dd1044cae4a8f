/**
 * A classic Tyk API definition (the JSON Tyk's `apps/` folder holds) as an {@link ApiSpec}.
 * Field names, defaults and fallbacks are Tyk v5's (`apidef/api_definitions.go`,
 * `gateway/middleware.go` getAuthToken).
 */
import type {
  ApiSpec,
  CredentialSource,
  EndpointListEntry,
  EndpointRateLimit,
  EndpointSizeLimit,
  JwtSettings,
  SplitTokenEndpoint,
  UrlRewriteRule,
} from './api-spec.js';
import { Fields } from './fields.js';
import { classicRewrite } from './url-rewrites.js';
import { endpointPattern, listenPathOf, checkedEndpointPattern, checkedListPattern, signingMethodOf, targetUrlOf } from './normalise.js';

export function parseClassic(root: Fields, definition: unknown, file: string | undefined, fallbackId: string): ApiSpec {
  const proxy = root.obj('proxy') ?? root.fail('proxy', 'required (an object with listen_path and target_url)');
  const keyless = root.bool('use_keyless');
  const jwtOn = root.bool('enable_jwt') || root.bool('use_jwt');
  const jwt = jwtOn ? jwtSettings(root) : undefined;
  const id = root.str('api_id') || fallbackId;
  if (id === '') root.fail('api_id', 'required (a non-empty string)');
  const { endpointRateLimits, urlRewrites, splitToken, endpointLists, endpointSizeLimits, globalSizeLimit } = extendedPaths(root);
  return {
    id,
    name: root.str('name'),
    orgId: root.str('org_id'),
    // Absent = active: a definition in the folder is meant to be served.
    active: root.bool('active', true),
    format: 'classic',
    ...(file === undefined ? {} : { file }),
    definition,
    listenPath: listenPathOf(proxy, 'listen_path'),
    stripListenPath: proxy.bool('strip_listen_path'),
    targetUrl: targetUrlOf(proxy, 'target_url'),
    preserveHostHeader: proxy.bool('preserve_host_header'),
    keyless,
    // Tyk falls back to the auth token check when no other method is on (api_loader.go).
    standardAuth: root.bool('use_standard_auth') || (!keyless && !jwtOn),
    ...(jwt ? { jwt } : {}),
    credential: credentialSource(root, jwtOn ? 'jwt' : 'authToken'),
    stripAuthData: root.bool('strip_auth_data'),
    globalRateLimit: ratePair(root.obj('global_rate_limit')),
    disableRateLimit: root.bool('disable_rate_limit'),
    endpointRateLimits,
    urlRewrites,
    splitToken,
    ...ipLists(root),
    endpointLists,
    endpointSizeLimits,
    globalSizeLimit,
  };
}

/**
 * `allowed_ips` and `blacklisted_ips` as Tyk v5.14 enables them (its IPWhiteListMiddleware's and
 * IPBlackListMiddleware's EnabledForSpec): a list is on when it is not empty and either
 * `ip_access_control_disabled` is not true or its own switch is on. Tyk does not migrate a classic
 * definition it loads from a file, so `ip_access_control_disabled` is false unless written: a
 * non-empty `allowed_ips` is enforced even with `enable_ip_whitelisting: false`.
 */
function ipLists(root: Fields): { ipAllow: string[]; ipBlock: string[] } {
  const open = !root.bool('ip_access_control_disabled');
  const allow = root.strings('allowed_ips');
  const block = root.strings('blacklisted_ips');
  return {
    ipAllow: open || root.bool('enable_ip_whitelisting') ? allow : [],
    ipBlock: open || root.bool('enable_ip_blacklisting') ? block : [],
  };
}

/** `global_rate_limit`; `disabled: true` is no API-level limit, as Tyk reads it. */
function ratePair(f: Fields | undefined): { rate: number; per: number } {
  return f && !f.bool('disabled') ? { rate: f.count('rate'), per: f.count('per') } : { rate: 0, per: 0 };
}

function jwtSettings(root: Fields): JwtSettings {
  return {
    signingMethod: signingMethodOf(root, 'jwt_signing_method'),
    source: root.str('jwt_source'),
    identityBaseField: root.str('jwt_identity_base_field') || 'sub',
    policyFieldName: root.str('jwt_policy_field_name') || 'pol',
    defaultPolicies: root.strings('jwt_default_policies'),
    scopeClaimName: root.str('jwt_scope_claim_name') || 'scope',
    scopeToPolicy: root.stringMap('jwt_scope_to_policy_mapping'),
    issuedAtSkew: root.count('jwt_issued_at_validation_skew'),
    expiresAtSkew: root.count('jwt_expires_at_validation_skew'),
    notBeforeSkew: root.count('jwt_not_before_validation_skew'),
  };
}

/**
 * Where the credential is read, as Tyk's getAuthToken: `auth_configs.<type>` (`jwt` for JWT,
 * `authToken` for keys), else the deprecated `auth`; the header defaults to Authorization, and
 * an enabled query parameter or cookie without a name takes the header's name.
 */
export function credentialSource(root: Fields, authType: 'jwt' | 'authToken'): CredentialSource {
  const configs = root.obj('auth_configs');
  const config = configs?.obj(authType) ?? root.obj('auth');
  if (!config) return { header: 'Authorization', query: '', cookie: '' };
  const defaultName = config.str('auth_header_name') || 'Authorization';
  return {
    header: config.bool('disable_header') ? '' : defaultName,
    query: config.bool('use_param') ? config.str('param_name') || defaultName : '',
    cookie: config.bool('use_cookie') ? config.str('cookie_name') || defaultName : '',
  };
}

/** The version Tyk serves when no version is asked for: `default_version`, `Default`, else the first. */
function servedVersion(root: Fields): Fields | undefined {
  const data = root.obj('version_data');
  if (!data) return undefined;
  const versions = data.objects('versions');
  const wanted = data.str('default_version');
  const pick = versions.find(([name]) => name === wanted) ?? versions.find(([name]) => name === 'Default') ?? versions[0];
  return pick?.[1];
}

interface ExtendedPaths {
  endpointRateLimits: EndpointRateLimit[];
  urlRewrites: UrlRewriteRule[];
  splitToken: SplitTokenEndpoint[];
  endpointLists: EndpointListEntry[];
  endpointSizeLimits: EndpointSizeLimit[];
  globalSizeLimit: number;
}

function extendedPaths(root: Fields): ExtendedPaths {
  const out: ExtendedPaths = { endpointRateLimits: [], urlRewrites: [], splitToken: [], endpointLists: [], endpointSizeLimits: [], globalSizeLimit: 0 };
  const version = servedVersion(root);
  if (!version) return out;
  // Tyk's size limit middleware is on when the version has size_limits entries (any, even disabled
  // or unused) or an enabled global limit; once on, it applies global_size_limit, switch or not.
  const sizeEntries = version.obj('extended_paths')?.list('size_limits').length ?? 0;
  if (sizeEntries > 0 || !version.bool('global_size_limit_disabled')) out.globalSizeLimit = version.count('global_size_limit');
  if (!version.bool('use_extended_paths')) return out;
  const paths = version.obj('extended_paths');
  if (!paths) return out;
  out.endpointLists = endpointLists(paths, version.bool('ignore_endpoint_case'));
  for (const e of paths.list('size_limits')) {
    if (e.bool('disabled')) continue;
    out.endpointSizeLimits.push({ path: checkedListPattern(e, 'path'), method: e.str('method'), limit: e.count('size_limit') });
  }
  for (const e of paths.list('rate_limit')) {
    // Tyk's classic field is `disabled`; docs/spec/gateway.md says `enabled`: either turns it off.
    if (e.bool('disabled') || !e.bool('enabled', true)) continue;
    out.endpointRateLimits.push({
      path: checkedEndpointPattern(e, 'path', e.required('path')),
      method: e.str('method').toUpperCase(),
      rate: e.count('rate'),
      per: e.count('per'),
    });
  }
  for (const e of paths.list('url_rewrites')) {
    if (e.bool('disabled')) continue;
    out.urlRewrites.push(classicRewrite(e, checkedEndpointPattern(e, 'path', e.required('path'))));
  }
  for (const e of paths.list('virtual')) {
    // Only the declarative split-token endpoint: scripted (JS) virtual endpoints are not run.
    const split = e.obj('split_token');
    if (!split || e.bool('disabled')) continue;
    out.splitToken.push({
      path: endpointPattern(e.required('path')),
      method: (e.str('method') || 'POST').toUpperCase(),
      tokenUrl: targetUrlOf(split, 'token_url'),
    });
  }
  return out;
}

const LISTS: Array<[EndpointListEntry['kind'], string]> = [
  ['ignored', 'ignored'],
  ['black', 'black_list'],
  ['white', 'white_list'],
  ['internal', 'internal'],
];

/** The lists Tyk compiles between the white list and the internal one, in its order (virtual endpoints only with its JSVM, off by default). */
const OTHER_LISTS = ['advance_cache_config', 'url_rewrites', 'size_limits', 'track_endpoints', 'do_not_track_endpoints'];

/** The endpoint lists in the order Tyk compiles them (ignored, black, white, internal); disabled entries left out as Tyk does. */
function endpointLists(paths: Fields, ignoreEndpointCase: boolean): EndpointListEntry[] {
  const out: EndpointListEntry[] = [];
  for (const [kind, field] of LISTS) {
    if (kind === 'internal' && out.some((e) => e.kind === 'white')) {
      const other = (path: string, field: string): void =>
        void out.push({ kind: 'other', path: checkedListPattern(paths, field, path), method: '', ignoreCase: false });
      for (const path of paths.strings('cache')) other(path, 'cache');
      for (const list of OTHER_LISTS) for (const e of paths.list(list)) if (!e.bool('disabled')) other(e.str('path'), list);
    }
    for (const e of paths.list(field)) {
      if (e.bool('disabled')) continue;
      const entry: EndpointListEntry = {
        kind,
        path: checkedListPattern(e, 'path'),
        method: e.str('method'),
        // Tyk compiles internal entries without ignore_case (neither the entry's nor the version's).
        ignoreCase: kind !== 'internal' && (e.bool('ignore_case') || ignoreEndpointCase),
      };
      const actions = kind === 'internal' ? undefined : e.obj('method_actions');
      if (actions) entry.methodActions = Object.fromEntries(Object.keys(actions.value).map((m) => [m, actions.obj(m)?.str('action') ?? '']));
      out.push(entry);
    }
  }
  return out;
}
