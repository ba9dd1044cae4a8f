/**
 * A classic Tyk API definition (the JSON Tyk's `apps/` folder holds) as an {@link ApiSpec}.
 * Field names, defaults and fallbacks are Tyk v5's (`apidef/api_definitions.go`,
 * `gateway/middleware.go` getAuthToken).
 */
import type { ApiSpec, CredentialSource, EndpointRateLimit, JwtSettings, SplitTokenEndpoint, UrlRewriteRule } from './api-spec.js';
import { Fields } from './fields.js';
import { classicRewrite } from './url-rewrites.js';
import { endpointPattern, listenPathOf, checkedEndpointPattern, signingMethodOf, targetUrlOf } from './normalise.js';

export function parseClassic(root: Fields, definition: unknown, file: string | undefined, fallbackId: string): ApiSpec {
  const proxy = root.obj('proxy') ?? root.fail('proxy', 'required (an object with listen_path and target_url)');
  const keyless = root.bool('use_keyless');
  const jwtOn = root.bool('enable_jwt') || root.bool('use_jwt');
  const jwt = jwtOn ? jwtSettings(root) : undefined;
  const id = root.str('api_id') || fallbackId;
  if (id === '') root.fail('api_id', 'required (a non-empty string)');
  const { endpointRateLimits, urlRewrites, splitToken } = extendedPaths(root);
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

function extendedPaths(root: Fields): { endpointRateLimits: EndpointRateLimit[]; urlRewrites: UrlRewriteRule[]; splitToken: SplitTokenEndpoint[] } {
  const out = { endpointRateLimits: [] as EndpointRateLimit[], urlRewrites: [] as UrlRewriteRule[], splitToken: [] as SplitTokenEndpoint[] };
  const version = servedVersion(root);
  if (!version || !version.bool('use_extended_paths')) return out;
  const paths = version.obj('extended_paths');
  if (!paths) return out;
  for (const e of paths.list('rate_limit')) {
    // Tyk's classic field is `disabled`; the seed's table says `enabled`: either turns it off.
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
