/**
 * Test fixtures shared by the gateway's tests: a gateway config and an API spec with every field
 * at its default (Tyk's), which a test overrides where it matters.
 */
import type { ApiSpec, JwtSettings } from '../apis/api-spec.js';
import type { GatewayConfig } from '../conf/gateway-config.js';

export function gatewayConfig(over: Partial<GatewayConfig> = {}): GatewayConfig {
  return {
    listen_address: '',
    listen_port: 8080,
    secret: '',
    node_secret: '',
    control_api_port: 0,
    app_path: '',
    policies: { policy_source: 'file', policy_record_name: '', policy_path: '', policy_connection_string: '' },
    hash_keys: false,
    hash_key_function: '',
    enable_shared_store_rolling_limiter: false,
    enable_sentinel_rate_limiter: false,
    enable_non_transactional_rate_limiter: false,
    enable_fixed_window_rate_limiter: false,
    drl_threshold: 0,
    rate_limit_response_headers: 'quotas',
    rate_limit_fail_open: false,
    enable_custom_domains: false,
    hostname: '',
    enable_separate_cache_store: false,
    proxy_default_timeout: 0,
    secrets: {},
    kv: {},
    baseDir: '.',
    ...over,
  };
}

/** A keyless API on `/<id>/` (stripped) in front of a closed port, unless `over` says otherwise. */
export function apiSpec(over: Partial<ApiSpec> & { id: string }): ApiSpec {
  return {
    name: over.id,
    orgId: '',
    active: true,
    format: 'classic',
    definition: {},
    listenPath: `/${over.id}/`,
    stripListenPath: true,
    targetUrl: 'http://127.0.0.1:1',
    keyless: true,
    standardAuth: false,
    credential: { header: 'Authorization', query: '', cookie: '' },
    stripAuthData: false,
    globalRateLimit: { rate: 0, per: 0 },
    disableRateLimit: false,
    endpointRateLimits: [],
    urlRewrites: [],
    splitToken: [],
    ...over,
  };
}

export function jwtSettings(over: Partial<JwtSettings> = {}): JwtSettings {
  return {
    signingMethod: 'hmac',
    source: '',
    identityBaseField: 'sub',
    policyFieldName: 'pol',
    defaultPolicies: [],
    scopeClaimName: 'scope',
    scopeToPolicy: {},
    issuedAtSkew: 0,
    expiresAtSkew: 0,
    notBeforeSkew: 0,
    ...over,
  };
}
