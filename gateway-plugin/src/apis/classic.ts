/**
 * A classic Tyk API definition (the JSON Tyk's `apps/` folder holds) as an {@link ApiSpec}.
 * Field names, defaults and fallbacks are Tyk v5's (`apidef/api_definitions.go`,
 * `gateway/middleware.go` getAuthToken).
 */
import type {
  ApiSpec,
  ChildVersioning,
  EndpointBodyTransform,
  CredentialSource,
  EndpointCache,
  EndpointListEntry,
  EndpointRateLimit,
  EndpointHeaderEdit,
  EndpointSizeLimit,
  HeaderEdit,
  JwtSettings,
  MockReply,
  SplitTokenEndpoint,
  OAuth2Settings,
  UpstreamAuth,
  UrlRewriteRule,
} from './api-spec.js';
import { errorMessage } from '@svc/engine';
import { compileJsonSchema, type JsonSchemaNode } from '../languages/json-schema.js';
import { templateSource } from './body-templates.js';
import { checkedHost } from './host-template.js';
import { Fields } from './fields.js';
import { errorOverridesOf } from './error-overrides.js';
import { mutualTlsOf } from './client-certificates.js';
import { classicRewrite } from './url-rewrites.js';
import { cacheOptionsOf, endpointCacheOf, goDurationMs, loadBalancingTargets, upstreamTls } from './traffic-fields.js';
import { corsOf, endpointPattern, listenPathOf, checkedEndpointPattern, checkedListPattern, checkedRegexp, signingMethodOf, targetUrlOf } from './normalise.js';

export function parseClassic(root: Fields, definition: unknown, file: string | undefined, fallbackId: string): ApiSpec {
  const proxy = root.obj('proxy') ?? root.fail('proxy', 'required (an object with listen_path and target_url)');
  const keyless = root.bool('use_keyless');
  const jwtOn = root.bool('enable_jwt') || root.bool('use_jwt');
  const basicOn = !keyless && root.bool('use_basic_auth');
  const hmacOn = !keyless && root.bool('enable_signature_checking');
  const oauthOn = root.bool('use_oauth2');
  if (oauthOn && !keyless && (jwtOn || basicOn || hmacOn || root.bool('use_standard_auth')))
    root.fail('use_oauth2', 'not supported: OAuth 2.0 together with another authentication method: turn one off');
  if (hmacOn && (jwtOn || basicOn || root.bool('use_standard_auth')))
    root.fail('enable_signature_checking', 'not supported: HMAC signatures together with another authentication method: remove the field or turn it off');
  const jwt = jwtOn ? jwtSettings(root) : undefined;
  const id = root.str('api_id') || fallbackId;
  if (id === '') root.fail('api_id', 'required (a non-empty string)');
  const data = root.obj('version_data');
  const versioned = data !== undefined && !data.bool('not_versioned');
  const served = versioned ? undefined : servedVersion(data);
  const base: ApiSpec = {
    id,
    name: root.str('name'),
    orgId: root.str('org_id'),
    // Absent = active: a definition in the folder is meant to be served.
    active: root.bool('active', true),
    format: 'classic',
    ...(file === undefined ? {} : { file }),
    definition,
    ...(root.bool('internal') ? { internal: true } : {}),
    ...(root.str('domain') !== '' ? { domain: checkedHost(root, 'domain'), domainOn: !root.bool('domain_disabled') } : {}),
    ...optional('childVersions', childVersionsOf(root, versioned)),
    listenPath: listenPathOf(proxy, 'listen_path'),
    stripListenPath: proxy.bool('strip_listen_path'),
    targetUrl: targetUrlOf(proxy, 'target_url'),
    ...optional('loadBalancing', loadBalancingOf(proxy)),
    ...optional('upstreamTls', upstreamTlsOf(proxy.obj('transport'))),
    ...optional('upstreamCertificates', upstreamCertificatesOf(root)),
    ...optional('cache', cacheOptionsOf(root.obj('cache_options'), CLASSIC_CACHE)),
    preserveHostHeader: proxy.bool('preserve_host_header'),
    keyless,
    // Tyk falls back to the auth token check when no other method is on (api_loader.go).
    standardAuth: root.bool('use_standard_auth') || (!keyless && !jwtOn && !basicOn && !hmacOn && !oauthOn),
    ...(oauthOn ? { oauth2: oauth2Of(root) } : {}),
    ...(jwt ? { jwt } : {}),
    ...(basicOn ? { basicAuth: basicAuthOf(root) } : {}),
    ...optional('upstreamAuth', upstreamAuthOf(root)),
    ...(hmacOn ? { hmac: { allowedAlgorithms: root.strings('hmac_allowed_algorithms'), clockSkewMs: root.count('hmac_allowed_clock_skew') } } : {}),
    credential: credentialSource(root, jwtOn ? 'jwt' : basicOn ? 'basic' : hmacOn ? 'hmac' : oauthOn && !keyless ? 'oauth' : 'authToken'),
    stripAuthData: root.bool('strip_auth_data'),
    enableContextVars: root.bool('enable_context_vars'),
    ...optional('cors', corsOf(root.obj('CORS'), CLASSIC_CORS)),
    ...optional('errorOverrides', errorOverridesOf(root)),
    ...(root.bool('enable_batch_request_support') ? { batchRequests: true } : {}),
    ...optional('mutualTls', mutualTlsOf(root)),
    globalRateLimit: ratePair(root.obj('global_rate_limit')),
    disableRateLimit: root.bool('disable_rate_limit'),
    ...ipLists(root),
    ...extendedPaths(served?.version),
  };
  const apiExpiry = expiryOf(root, 'expiration');
  if (!versioned) {
    if (served?.problem !== undefined) base.versionProblem = served.problem;
    const version = served?.version === undefined ? undefined : expiryOf(served.version, 'expires');
    if (apiExpiry !== undefined || version !== undefined) base.expiry = { api: apiExpiry, version, versioned: false };
    return base;
  }
  const versionDef = root.obj('definition');
  const versions = new Map<string, ApiSpec>();
  for (const [name, version] of data.objects('versions')) {
    const override = version.str('override_target');
    const variant: ApiSpec = { ...base, ...extendedPaths(version), versionName: name };
    if (override !== '') variant.targetUrl = targetUrlOf(version, 'override_target');
    const expires = expiryOf(version, 'expires');
    if (apiExpiry !== undefined || expires !== undefined) variant.expiry = { api: apiExpiry, version: expires, versioned: true };
    versions.set(name, variant);
  }
  const location = versionDef?.str('location') ?? '';
  base.versioning = {
    location: location === 'header' || location === 'url-param' || location === 'url' ? location : '',
    key: versionDef?.str('key') ?? '',
    strip: (versionDef?.bool('strip_path') ?? false) || (versionDef?.bool('strip_versioning_data') ?? false),
    urlPattern: versionDef === undefined ? '' : checkedRegexp(versionDef, 'url_versioning_pattern'),
    defaultVersion: data.str('default_version'),
    fallbackToDefault: versionDef?.bool('fallback_to_default') ?? false,
    versions,
  };
  return base;
}

/** `definition.enabled`: versions as separate APIs (`definition.versions`: name → API id). */
function childVersionsOf(root: Fields, versioned: boolean): ChildVersioning | undefined {
  const d = root.obj('definition');
  if (!d?.bool('enabled')) return undefined;
  if (versioned)
    d.fail(
      'enabled',
      'not supported: versions as separate APIs together with versions in version_data (not_versioned false): remove the field or turn it off, or set version_data.not_versioned true',
    );
  const location = d.str('location');
  return {
    name: d.str('name'),
    defaultVersion: d.str('default'),
    location: location === 'header' || location === 'url-param' || location === 'url' ? location : '',
    key: d.str('key'),
    strip: d.bool('strip_path') || d.bool('strip_versioning_data'),
    urlPattern: checkedRegexp(d, 'url_versioning_pattern'),
    fallbackToDefault: d.bool('fallback_to_default'),
    versions: new Map(Object.entries(d.stringMap('versions'))),
  };
}

/**
 * A date of Tyk's `2006-01-02 15:04` form (UTC) in milliseconds; '' and '-1' never expire
 * (undefined); anything else Tyk cannot parse is NaN, which Tyk treats as expired.
 */
function expiryOf(f: Fields, key: string): number | undefined {
  const text = f.str(key);
  if (text === '' || text === '-1') return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})$/.exec(text);
  if (!m) return NaN;
  const [y, mo, d, h, mi] = m.slice(1).map(Number) as [number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi);
  const back = new Date(ms);
  // Go refuses a day past the month's end or an hour past 23, which Date would roll over.
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59) return NaN;
  return ms;
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

const CLASSIC_CORS = {
  enabled: 'enable',
  allowedOrigins: 'allowed_origins',
  allowedMethods: 'allowed_methods',
  allowedHeaders: 'allowed_headers',
  exposedHeaders: 'exposed_headers',
  allowCredentials: 'allow_credentials',
  maxAge: 'max_age',
  optionsPassthrough: 'options_passthrough',
};

/** `{ [key]: value }`, or nothing when the value is undefined (an absent optional field of the spec). */
function optional<K extends string, V>(key: K, value: V | undefined): { [k in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [k in K]?: V };
}

/**
 * `basic_auth`: the cache settings and the body's credentials. Tyk turns basic auth off (and falls
 * back to the auth token check) when extract_from_body has an empty or invalid regexp: refused here.
 */
const ACCESS_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', 'password'];
const AUTHORIZE_TYPES = ['code', 'token'];

/** `use_oauth2`'s settings; a grant or response type Tyk's server does not know is refused (osin would refuse each request). */
function oauth2Of(root: Fields): OAuth2Settings {
  const meta = root.obj('oauth_meta');
  const accessTypes = meta?.strings('allowed_access_types') ?? [];
  for (const t of accessTypes)
    if (!ACCESS_TYPES.includes(t)) meta!.fail('allowed_access_types', `unknown grant type ${JSON.stringify(t)} (expected ${ACCESS_TYPES.join(', ')})`);
  const authorizeTypes = meta?.strings('allowed_authorize_types') ?? [];
  for (const t of authorizeTypes)
    if (!AUTHORIZE_TYPES.includes(t))
      meta!.fail('allowed_authorize_types', `unknown response type ${JSON.stringify(t)} (expected ${AUTHORIZE_TYPES.join(', ')})`);
  const notifications = root.obj('notifications');
  return {
    accessTypes,
    authorizeTypes,
    loginRedirect: meta?.str('auth_login_redirect') ?? '',
    keyChangeUrl: notifications?.str('oauth_on_keychange_url') ?? '',
    sharedSecret: notifications?.str('shared_secret') ?? '',
  };
}

function basicAuthOf(root: Fields): NonNullable<ApiSpec['basicAuth']> {
  const b = root.obj('basic_auth');
  const settings = { disableCaching: b?.bool('disable_caching') ?? false, cacheTtl: b?.count('cache_ttl') || 60 };
  if (b === undefined || !b.bool('extract_from_body')) return settings;
  for (const field of ['body_user_regexp', 'body_password_regexp'])
    if (b.str(field) === '') b.fail(field, 'required with extract_from_body (an RE2 regexp whose first group is the value)');
  return { ...settings, fromBody: { user: checkedRegexp(b, 'body_user_regexp'), password: checkedRegexp(b, 'body_password_regexp') } };
}

/** The header an `upstream_auth` credential goes in: `header.name` when `header.enabled`, else Authorization. */
function upstreamHeader(f: Fields): string {
  const h = f.obj('header');
  return (h?.bool('enabled') === true && h.str('name') !== '' ? h.str('name') : 'authorization').toLowerCase();
}

/**
 * `upstream_auth` when on (`enabled` and basic or OAuth enabled). What Tyk would fail every request
 * of (no grant, both grants) or that svc does not carry out (`extra_metadata`; basic and OAuth
 * together, where Tyk's OAuth header wins) is refused at load.
 */
function upstreamAuthOf(root: Fields): UpstreamAuth | undefined {
  const u = root.obj('upstream_auth');
  if (u === undefined || !u.bool('enabled')) return undefined;
  const basic = u.obj('basic_auth');
  const oauth = u.obj('oauth');
  const basicOn = basic?.bool('enabled') === true;
  if (oauth === undefined || !oauth.bool('enabled')) {
    return basicOn ? { kind: 'basic', header: upstreamHeader(basic!), username: basic!.str('username'), password: basic!.str('password') } : undefined;
  }
  if (basicOn) u.fail('basic_auth', 'not supported: basic_auth together with oauth (Tyk sends the OAuth token): turn one off');
  const types = oauth.strings('allowed_authorize_types');
  if (types.length !== 1 || (types[0] !== 'client_credentials' && types[0] !== 'password'))
    oauth.fail('allowed_authorize_types', 'expected exactly one of client_credentials or password (Tyk fails every request otherwise)');
  const grant = types[0] as 'client_credentials' | 'password';
  const g = oauth.obj(grant) ?? oauth.fail(grant, `required with allowed_authorize_types [${grant}]`);
  if (g.strings('extra_metadata').length > 0) g.fail('extra_metadata', 'not supported: token response fields in the request context');
  const tokenUrl = g.str('token_url');
  if (!/^https?:\/\//.test(tokenUrl)) g.fail('token_url', 'required (an http or https URL of the OAuth server)');
  return {
    kind: 'oauth',
    grant,
    header: upstreamHeader(g),
    clientId: g.str('client_id'),
    clientSecret: g.str('client_secret'),
    tokenUrl,
    scopes: g.strings('scopes'),
    username: grant === 'password' ? g.str('username') : '',
    password: grant === 'password' ? g.str('password') : '',
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
export function credentialSource(root: Fields, authType: 'jwt' | 'authToken' | 'basic' | 'hmac' | 'oauth'): CredentialSource {
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

const DEFAULT_NAMES = ['Default', 'default', ''];

/**
 * The version a not-versioned API serves, as Tyk's GetSingleOrDefaultVersion picks it: the only
 * one, else the one named `Default`, `default` or '' (`default_version` is not read); none, or
 * two of those names, leaves every request refused with Tyk's words. Without `version_data` the
 * API serves no extended paths.
 */
function servedVersion(data: Fields | undefined): { version?: Fields; problem?: string } {
  if (!data) return {};
  const versions = data.objects('versions');
  if (versions.filter(([name]) => DEFAULT_NAMES.includes(name)).length > 1) return { problem: 'Ambiguous default API version for this non-versioned API' };
  if (versions.length === 1) return { version: versions[0]![1] };
  for (const want of DEFAULT_NAMES) {
    const hit = versions.find(([name]) => name === want);
    if (hit) return { version: hit[1] };
  }
  return { problem: 'No default API version for this non-versioned API found' };
}

interface ExtendedPaths extends Pick<
  ApiSpec,
  | 'globalHeaders'
  | 'headerTransforms'
  | 'globalResponseHeaders'
  | 'responseHeaderTransforms'
  | 'methodTransforms'
  | 'hardTimeouts'
  | 'globalEnforceTimeoutMs'
  | 'circuitBreakers'
  | 'cachePaths'
  | 'jsonValidations'
  | 'bodyTransforms'
  | 'responseBodyTransforms'
> {
  endpointRateLimits: EndpointRateLimit[];
  urlRewrites: UrlRewriteRule[];
  splitToken: SplitTokenEndpoint[];
  endpointLists: EndpointListEntry[];
  endpointSizeLimits: EndpointSizeLimit[];
  globalSizeLimit: number;
}

/** What one version (`version_data.versions.<name>`) serves: its extended paths and size limits. */
function extendedPaths(version: Fields | undefined): ExtendedPaths {
  const out: ExtendedPaths = { endpointRateLimits: [], urlRewrites: [], splitToken: [], endpointLists: [], endpointSizeLimits: [], globalSizeLimit: 0 };
  if (!version) return out;
  // Global headers are the version's own fields: read with or without use_extended_paths.
  const globalHeaders = globalEdit(version, 'global_headers', 'global_headers_remove', 'global_headers_disabled');
  if (globalHeaders) out.globalHeaders = globalHeaders;
  const globalResponse = globalEdit(version, 'global_response_headers', 'global_response_headers_remove', 'global_response_headers_disabled');
  if (globalResponse) out.globalResponseHeaders = globalResponse;
  // Tyk's size limit middleware is on when the version has size_limits entries (any, even disabled
  // or unused) or an enabled global limit; once on, it applies global_size_limit, switch or not.
  // Tyk's EnforcedTimeout: the version's own field, read with or without use_extended_paths.
  const enforce = version.bool('global_enforce_timeout_disabled') ? 0 : goDurationMs(version, 'global_enforce_timeout');
  if (enforce > 0) out.globalEnforceTimeoutMs = enforce;
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
  const request = endpointEdits(paths, 'transform_headers');
  if (request.length > 0) out.headerTransforms = request;
  const response = endpointEdits(paths, 'transform_response_headers');
  if (response.length > 0) out.responseHeaderTransforms = response;
  const methods = paths
    .list('method_transforms')
    .filter((e) => !e.bool('disabled'))
    .map((e) => ({ path: checkedListPattern(e, 'path'), method: e.str('method'), toMethod: e.str('to_method') }));
  if (methods.length > 0) out.methodTransforms = methods;
  const timeouts = paths
    .list('hard_timeouts')
    .filter((e) => !e.bool('disabled'))
    .map((e) => ({ path: checkedListPattern(e, 'path'), method: e.str('method'), ms: goDurationMs(e, 'duration') || e.count('timeout') * 1000 }));
  if (timeouts.length > 0) out.hardTimeouts = timeouts;
  const breakers = paths
    .list('circuit_breakers')
    .filter((e) => !e.bool('disabled'))
    .map((e) => ({
      path: checkedListPattern(e, 'path'),
      method: e.str('method'),
      thresholdPercent: e.count('threshold_percent'),
      samples: e.count('samples'),
      returnToServiceAfter: e.count('return_to_service_after'),
      disableHalfOpenState: e.bool('disable_half_open_state'),
    }));
  if (breakers.length > 0) out.circuitBreakers = breakers;
  const cached: EndpointCache[] = [];
  // A `cache` path is cached for GET, HEAD and OPTIONS (Tyk's SAFE_METHODS), before the advanced entries.
  for (const path of paths.strings('cache')) {
    const checked = checkedListPattern(paths, 'cache', path);
    for (const method of ['GET', 'HEAD', 'OPTIONS']) cached.push({ path: checked, method, keyRegex: '', codes: [], timeout: 0 });
  }
  for (const e of paths.list('advance_cache_config')) {
    if (e.bool('disabled')) continue;
    cached.push(
      endpointCacheOf(e, checkedListPattern(e, 'path'), e.str('method'), { regex: 'cache_key_regex', codes: 'cache_response_codes', timeout: 'timeout' }),
    );
  }
  if (cached.length > 0) out.cachePaths = cached;
  const validations = paths
    .list('validate_json')
    .filter((e) => !e.bool('disabled'))
    .map((e) => ({ path: checkedListPattern(e, 'path'), method: e.str('method'), schema: entrySchema(e), errorCode: e.count('error_response_code') }));
  if (validations.length > 0) out.jsonValidations = validations;
  const transforms = bodyTransformsOf(paths, 'transform');
  if (transforms.length > 0) out.bodyTransforms = transforms;
  const responseTransforms = bodyTransformsOf(paths, 'transform_response');
  if (responseTransforms.length > 0) out.responseBodyTransforms = responseTransforms;
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

/** `proxy.transport`'s TLS settings for the upstream (Tyk's httpTransport); undefined when none is set. */
function upstreamTlsOf(transport: Fields | undefined): ApiSpec['upstreamTls'] {
  if (transport === undefined) return undefined;
  return upstreamTls(
    transport,
    'ssl_ciphers',
    {
      insecureSkipVerify: transport.bool('ssl_insecure_skip_verify'),
      minVersion: transport.count('ssl_min_version'),
      maxVersion: transport.count('ssl_max_version'),
      ciphers: transport.strings('ssl_ciphers'),
    },
    (which) => `ssl_${which}_version`,
  );
}

/** `upstream_certificates` unless `upstream_certificates_disabled`; undefined when none. */
function upstreamCertificatesOf(root: Fields): Record<string, string> | undefined {
  if (root.bool('upstream_certificates_disabled')) return undefined;
  const map = root.stringMap('upstream_certificates');
  return Object.keys(map).length > 0 ? map : undefined;
}

/** `cache_options` when `enable_cache` is on (Tyk's CacheOptions). */
const CLASSIC_CACHE = {
  enabled: 'enable_cache',
  timeout: 'cache_timeout',
  allSafe: 'cache_all_safe_requests',
  codes: 'cache_response_codes',
  upstreamControl: 'enable_upstream_cache_control',
  ttlHeader: 'cache_control_ttl_header',
  byHeaders: 'cache_by_headers',
};

/**
 * `enable_load_balancing` with `target_list` (api_loader.go), each target as Tyk's EnsureTransport
 * makes it: trimmed, `http://` when it names no scheme, `h2c://` read as `http://`.
 */
function loadBalancingOf(proxy: Fields): { targets: string[] } | undefined {
  if (!proxy.bool('enable_load_balancing')) return undefined;
  return loadBalancingTargets(proxy, 'target_list', proxy.strings('target_list'));
}

const LISTS: Array<[EndpointListEntry['kind'], string]> = [
  ['mock', 'mock_response'],
  ['ignored', 'ignored'],
  ['black', 'black_list'],
  ['white', 'white_list'],
  ['internal', 'internal'],
];

/** The lists Tyk compiles between the white list and the internal one, in its order (getExtendedPathSpecs; those refused at load are left out). */
const OTHER_LISTS = [
  'advance_cache_config',
  'transform',
  'transform_response',
  'transform_headers',
  'transform_response_headers',
  'hard_timeouts',
  'circuit_breakers',
  'url_rewrites',
  'size_limits',
  'method_transforms',
  'track_endpoints',
  'do_not_track_endpoints',
  'validate_json',
];

/**
 * `transform` / `transform_response` entries that are not disabled: `template_data` with
 * `input_type` json, the template a base64 `blob` or a `file` (read now, from the working
 * directory as Tyk reads it), checked now (languages/go-template.ts refuses what it does not run).
 */
function bodyTransformsOf(paths: Fields, field: string): EndpointBodyTransform[] {
  return paths
    .list(field)
    .filter((e) => !e.bool('disabled'))
    .map((e) => {
      const data = e.obj('template_data') ?? e.fail('template_data', 'required (input_type, template_mode, template_source)');
      const input = data.str('input_type');
      if (input !== 'json')
        data.fail('input_type', `not supported: ${JSON.stringify(input)} (svc's body transforms read JSON bodies only): remove the field or turn it off`);
      return {
        path: checkedListPattern(e, 'path'),
        method: e.str('method'),
        template: templateSource(data, data.str('template_mode'), 'template_source'),
        enableSession: data.bool('enable_session'),
      };
    });
}

/** A version's global header fields: absent when switched off or empty (Tyk's GlobalHeadersEnabled). */
function globalEdit(version: Fields, addField: string, removeField: string, offField: string): HeaderEdit | undefined {
  if (version.bool(offField)) return undefined;
  const add = Object.entries(version.stringMap(addField));
  const remove = version.strings(removeField);
  return add.length > 0 || remove.length > 0 ? { remove, add } : undefined;
}

/** `transform_headers` / `transform_response_headers` entries that are not disabled (Tyk's compileInjectedHeaderSpec). */
function endpointEdits(paths: Fields, field: string): EndpointHeaderEdit[] {
  return paths
    .list(field)
    .filter((e) => !e.bool('disabled'))
    .map((e) => ({
      path: checkedListPattern(e, 'path'),
      method: e.str('method'),
      remove: e.strings('delete_headers'),
      add: Object.entries(e.stringMap('add_headers')),
    }));
}

/** A `validate_json` entry's schema, compiled; one that uses a keyword svc does not check is refused here. */
function entrySchema(e: Fields): JsonSchemaNode {
  try {
    return compileJsonSchema(e.raw('schema'), 'schema');
  } catch (err) {
    return e.fail('schema', errorMessage(err));
  }
}

/** A mock answer: `code`, the body field (`body`, or `data` in method_actions), `headers`. */
function mockReply(f: Fields, bodyField: string): MockReply {
  return { code: f.count('code'), body: f.str(bodyField), headers: f.stringMap('headers') };
}

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
      if (kind === 'mock') entry.reply = mockReply(e, 'body');
      const actions = kind === 'internal' || kind === 'mock' ? undefined : e.obj('method_actions');
      if (actions)
        entry.methodActions = Object.fromEntries(
          Object.keys(actions.value).map((m) => {
            const a = actions.obj(m);
            const action = a?.str('action') ?? '';
            return [m, action === 'reply' && a ? { action, reply: mockReply(a, 'data') } : { action }];
          }),
        );
      out.push(entry);
    }
  }
  return out;
}
