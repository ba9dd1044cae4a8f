/**
 * Every field of a Tyk API definition (classic: `apidef/api_definitions.go`; OAS: the
 * `x-tyk-api-gateway` extension of `apidef/oas`, here `x-svc-api-gateway`; both Tyk v5.14.0), in
 * one of three lists:
 *
 * - implemented: read by the loaders (`classic.ts`, `oas.ts`) and served as Tyk serves it;
 * - ignored: harmless to leave out (analytics, dashboard-only, tracing, caching): a warning once
 *   per field when it is set;
 * - unsupported: a feature svc does not implement. A definition that turns it on is refused at
 *   load (`file: field: not supported: ...`; the other APIs still load), never served as if the
 *   field were absent: each of these would let through or shape a request Tyk refuses or changes.
 *
 * A field in no list (not Tyk's) is a warning once, as Tyk ignores unknown JSON fields.
 */
import { DefinitionError } from './definition-error.js';
import { childPath, isObject, type JsonObject } from './fields.js';

type Support = 'implemented' | 'ignored' | 'unsupported';

/** Whether a definition turns a feature on, given the field's value, its object and the definition's root. */
type TurnsOn = (value: unknown, parent: JsonObject, root: JsonObject) => boolean;

interface FieldRule {
  support: Support;
  /** What the field is, in messages (unsupported and ignored). */
  feature?: string;
  /**
   * Unsupported: when the definition turns it on (default: the value is set, see {@link isSet}).
   * Implemented: the one use of it that is not (a `version_data` with several versions).
   */
  on?: TurnsOn;
  /** Implemented objects: their fields. */
  fields?: FieldTable;
  /** Implemented maps or arrays: the fields of each entry. */
  each?: FieldTable;
}

type FieldTable = Record<string, FieldRule>;

/**
 * Set, as a feature reads it: true, a non-empty string, a non-zero number, a list with an entry
 * not `disabled`, an object with `enabled: true` (or, with no `enabled`, any field set).
 */
function isSet(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === '' || v === 0) return false;
  if (Array.isArray(v)) return v.some((item) => !(isObject(item) && item['disabled'] === true) && isSet(item));
  if (isObject(v)) {
    if ('enabled' in v) return v['enabled'] === true;
    if (v['disabled'] === true) return false;
    return Object.values(v).some(isSet);
  }
  return true;
}

const implemented = (more: Omit<FieldRule, 'support'> = {}): FieldRule => ({ support: 'implemented', ...more });
const ignored = (feature: string): FieldRule => ({ support: 'ignored', feature });
const unsupported = (feature: string, on?: TurnsOn): FieldRule => ({ support: 'unsupported', feature, ...(on ? { on } : {}) });

/** Implemented fields, named in one string. */
const fieldsOf = (names: string): FieldTable => Object.fromEntries(names.split(' ').map((k) => [k, implemented()]));

/** Set, unless the sibling `off` is true (`global_headers` + `global_headers_disabled`). */
const unlessOff =
  (off: string): TurnsOn =>
  (v, parent) =>
    isSet(v) && parent[off] !== true;
/** A date Tyk would expire on ('' and '-1' never expire). */
const expires: TurnsOn = (v) => typeof v === 'string' && v !== '' && v !== '-1';

const AUTH_CONFIG: FieldTable = {
  name: implemented(),
  use_param: implemented(),
  param_name: implemented(),
  use_cookie: implemented(),
  cookie_name: implemented(),
  disable_header: implemented(),
  auth_header_name: implemented(),
  use_certificate: unsupported('the client certificate as the credential'),
  validate_signature: unsupported('request signature validation of keys'),
  signature: ignored('signature validation settings (only with validate_signature, which is refused)'),
};

const TRANSPORT: FieldTable = {
  ssl_insecure_skip_verify: unsupported('skipping upstream TLS verification'),
  ssl_ciphers: unsupported('upstream TLS cipher suites'),
  ssl_min_version: unsupported('an upstream TLS minimum version'),
  ssl_max_version: unsupported('an upstream TLS maximum version'),
  ssl_force_common_name_check: unsupported('the upstream certificate common name check'),
  proxy_url: unsupported('an outbound proxy to the upstream'),
};

const PROXY: FieldTable = {
  preserve_host_header: implemented(),
  listen_path: implemented(),
  target_url: implemented(),
  strip_listen_path: implemented(),
  disable_strip_slash: ignored('disable_strip_slash (the upstream path is joined with one slash)'),
  enable_load_balancing: implemented(),
  target_list: implemented(),
  check_host_against_uptime_tests: unsupported('skipping upstream hosts that fail uptime tests'),
  service_discovery: unsupported('upstream service discovery', (v) => isObject(v) && v['use_discovery_service'] === true),
  ...TRANSPORT,
  // proxy.transport is read (TLS verification, versions and ciphers); the same names beside it are not Tyk's place for them.
  transport: implemented({
    fields: {
      ...TRANSPORT,
      ssl_insecure_skip_verify: implemented(),
      ssl_min_version: implemented(),
      ssl_max_version: implemented(),
      ssl_ciphers: implemented(),
    },
  }),
};

/** An extended_paths list: refused when it has an entry that is not disabled. */
const endpointList = (feature: string): FieldRule => unsupported(feature);

/** An entry of `ignored`, `white_list`, `black_list` (Tyk's EndPointMeta). */
const ENDPOINT_META: FieldTable = {
  path: implemented(),
  method: implemented(),
  ignore_case: implemented(),
  disabled: implemented(),
  // The deprecated per-method actions: no_action is the list's meaning; reply is a mock response.
  method_actions: implemented(),
};

/** A `transform` / `transform_response` entry (Tyk's TemplateMeta). */
const TEMPLATE_META: FieldTable = {
  disabled: implemented(),
  path: implemented(),
  method: implemented(),
  template_data: implemented({
    fields: { input_type: implemented(), template_mode: implemented(), enable_session: implemented(), template_source: implemented() },
  }),
};

const EXTENDED_PATHS: FieldTable = {
  rate_limit: implemented(),
  url_rewrites: implemented(),
  // Only declarative split-token endpoints are served; a scripted one would answer nothing Tyk answers.
  virtual: unsupported('virtual endpoints (JavaScript); only split_token ones are served', (v) =>
    Array.isArray(v) ? v.some((e) => isObject(e) && e['disabled'] !== true && !isObject(e['split_token'])) : false,
  ),
  ignored: implemented({ each: ENDPOINT_META }),
  white_list: implemented({ each: ENDPOINT_META }),
  black_list: implemented({ each: ENDPOINT_META }),
  internal: implemented({ each: { path: implemented(), method: implemented(), disabled: implemented() } }),
  size_limits: implemented({ each: { path: implemented(), method: implemented(), size_limit: implemented(), disabled: implemented() } }),
  mock_response: implemented({
    each: Object.fromEntries(['path', 'method', 'ignore_case', 'disabled', 'code', 'body', 'headers'].map((k) => [k, implemented()])),
  }),
  // The template is checked at load (languages/go-template.ts refuses what it does not run; input_type xml is refused).
  transform: implemented({ each: TEMPLATE_META }),
  transform_response: implemented({ each: TEMPLATE_META }),
  transform_jq: endpointList('request jq transforms'),
  transform_jq_response: endpointList('response jq transforms'),
  transform_headers: implemented({
    each: Object.fromEntries(['path', 'method', 'delete_headers', 'add_headers', 'act_on', 'disabled'].map((k) => [k, implemented()])),
  }),
  transform_response_headers: implemented({
    each: Object.fromEntries(['path', 'method', 'delete_headers', 'add_headers', 'act_on', 'disabled'].map((k) => [k, implemented()])),
  }),
  hard_timeouts: implemented({
    each: Object.fromEntries(['path', 'method', 'timeout', 'duration', 'disabled'].map((k) => [k, implemented()])),
  }),
  circuit_breakers: implemented({
    each: Object.fromEntries(
      ['path', 'method', 'threshold_percent', 'samples', 'return_to_service_after', 'disable_half_open_state', 'disabled'].map((k) => [k, implemented()]),
    ),
  }),
  method_transforms: implemented({ each: Object.fromEntries(['path', 'method', 'to_method', 'disabled'].map((k) => [k, implemented()])) }),
  // The schema's keywords are checked at load (languages/json-schema.ts refuses those it does not cover).
  validate_json: implemented({
    each: Object.fromEntries(['path', 'method', 'schema', 'error_response_code', 'disabled'].map((k) => [k, implemented()])),
  }),
  validate_request: endpointList('OAS request validation'),
  go_plugin: endpointList('Go plugins'),
  persist_graphql: endpointList('persisted GraphQL queries'),
  cache: implemented(),
  advance_cache_config: implemented({
    each: Object.fromEntries(['path', 'method', 'cache_key_regex', 'cache_response_codes', 'timeout', 'disabled'].map((k) => [k, implemented()])),
  }),
  track_endpoints: ignored('analytics endpoint tracking'),
  do_not_track_endpoints: ignored('analytics endpoint tracking'),
};

const VERSION: FieldTable = {
  name: implemented(),
  use_extended_paths: implemented(),
  extended_paths: implemented({ fields: EXTENDED_PATHS }),
  expires: implemented(),
  paths: unsupported('the legacy ignored/white_list/black_list paths', (v) => isObject(v) && Object.values(v).some(isSet)),
  ignored: endpointList('legacy ignored paths'),
  white_list: endpointList('legacy allow-listed paths'),
  black_list: endpointList('legacy block-listed paths'),
  global_headers: implemented(),
  global_headers_remove: implemented(),
  global_headers_disabled: implemented(),
  global_response_headers: implemented(),
  global_response_headers_remove: implemented(),
  global_response_headers_disabled: implemented(),
  // Tyk applies it to the endpoint lists only (ignored, white_list, black_list).
  ignore_endpoint_case: implemented(),
  global_size_limit: implemented(),
  global_size_limit_disabled: implemented(),
  global_enforce_timeout: implemented(),
  global_enforce_timeout_disabled: implemented(),
  override_target: implemented(),
};

const CLASSIC: FieldTable = {
  id: ignored("the dashboard's database id"),
  name: implemented(),
  expiration: implemented(),
  slug: ignored('the dashboard slug'),
  listen_port: unsupported('a listen port of its own for the API'),
  protocol: unsupported('a protocol other than HTTP (tcp, tls)', (v) => typeof v === 'string' && !['', 'http', 'https'].includes(v)),
  enable_proxy_protocol: unsupported('the PROXY protocol'),
  json_rpc_version: unsupported('JSON-RPC APIs'),
  application_protocol: unsupported('an application protocol (MCP, JSON-RPC)'),
  api_id: implemented(),
  org_id: implemented(),
  use_keyless: implemented(),
  use_oauth2: implemented(),
  external_oauth: unsupported('external OAuth authentication'),
  use_openid: unsupported('OpenID Connect authentication (use_openid)'),
  openid_options: ignored('OpenID Connect settings (only with use_openid, which is refused)'),
  allowed_access_types: ignored('OAuth settings (under oauth_meta)'),
  allowed_authorize_types: ignored('OAuth settings (under oauth_meta)'),
  auth_login_redirect: ignored('OAuth settings (under oauth_meta)'),
  oauth_meta: implemented({ fields: { allowed_access_types: implemented(), allowed_authorize_types: implemented(), auth_login_redirect: implemented() } }),
  auth: implemented({ fields: AUTH_CONFIG }),
  auth_configs: implemented({ each: AUTH_CONFIG }),
  use_basic_auth: implemented(),
  // Tyk's BasicAuth fields sit under basic_auth; these top-level names are not Tyk's own but were listed before.
  disable_caching: ignored('basic auth settings (under basic_auth)'),
  cache_ttl: ignored('basic auth settings (under basic_auth)'),
  extract_from_body: ignored('basic auth settings (under basic_auth)'),
  body_user_regexp: ignored('basic auth settings (under basic_auth)'),
  body_password_regexp: ignored('basic auth settings (under basic_auth)'),
  basic_auth: implemented({
    fields: {
      disable_caching: implemented(),
      cache_ttl: implemented(),
      extract_from_body: implemented(),
      body_user_regexp: implemented(),
      body_password_regexp: implemented(),
    },
  }),
  use_mutual_tls_auth: implemented(),
  client_certificates: implemented(),
  upstream_certificates: implemented(),
  upstream_certificates_disabled: implemented(),
  pinned_public_keys: unsupported('upstream certificate pinning', unlessOff('certificate_pinning_disabled')),
  certificate_pinning_disabled: ignored('switch of pinned_public_keys'),
  enable_jwt: implemented(),
  use_jwt: implemented(),
  use_standard_auth: implemented(),
  use_go_plugin_auth: unsupported('Go plugin authentication'),
  enable_coprocess_auth: unsupported('coprocess (plugin) authentication'),
  custom_plugin_auth_enabled: unsupported('custom plugin authentication'),
  jwt_signing_method: implemented(),
  jwt_source: implemented(),
  jwt_jwks_uris: unsupported('several JWKS URIs (jwt_jwks_uris)'),
  jwt_identity_base_field: implemented(),
  jwt_client_base_field: unsupported('the JWT client id claim (jwt_client_base_field)'),
  jwt_policy_field_name: implemented(),
  jwt_default_policies: implemented(),
  jwt_issued_at_validation_skew: implemented(),
  jwt_expires_at_validation_skew: implemented(),
  jwt_not_before_validation_skew: implemented(),
  jwt_skip_kid: unsupported('jwt_skip_kid'),
  scopes: unsupported('scope to policy mapping under scopes (use jwt_scope_to_policy_mapping)'),
  idp_client_id_mapping_disabled: ignored('client id mapping switch'),
  jwt_scope_to_policy_mapping: implemented(),
  jwt_scope_claim_name: implemented(),
  notifications: implemented({ fields: { shared_secret: implemented(), oauth_on_keychange_url: implemented() } }),
  enable_signature_checking: implemented(),
  hmac_allowed_clock_skew: implemented(),
  hmac_allowed_algorithms: implemented(),
  request_signing: unsupported('signing requests to the upstream', (v) => isObject(v) && v['is_enabled'] === true),
  base_identity_provided_by: ignored('the identity of several auth methods (one method is served)'),
  definition: implemented({
    fields: {
      enabled: implemented(),
      name: implemented(),
      default: implemented(),
      location: implemented(),
      key: implemented(),
      strip_path: implemented(),
      strip_versioning_data: implemented(),
      url_versioning_pattern: implemented(),
      fallback_to_default: implemented(),
      versions: implemented(),
    },
  }),
  version_data: implemented({
    fields: {
      not_versioned: implemented(),
      default_version: implemented(),
      versions: implemented({ each: VERSION }),
    },
  }),
  uptime_tests: ignored('uptime tests (health checks of upstreams)'),
  proxy: implemented({ fields: PROXY }),
  disable_rate_limit: implemented(),
  disable_quota: ignored('disable_quota (quotas are still enforced)'),
  // Dashboards export an empty section with a driver (`otto`): only a hook turns it on.
  custom_middleware: unsupported(
    'custom middleware (plugins)',
    (v) =>
      isObject(v) && (['pre', 'post', 'post_key_auth', 'response'].some((k) => isSet(v[k])) || (isObject(v['auth_check']) && isSet(v['auth_check']['name']))),
  ),
  custom_middleware_bundle: unsupported('a plugin bundle', unlessOff('custom_middleware_bundle_disabled')),
  custom_middleware_bundle_disabled: ignored('switch of custom_middleware_bundle'),
  cache_options: implemented({
    fields: Object.fromEntries(
      [
        'cache_timeout',
        'enable_cache',
        'cache_all_safe_requests',
        'cache_response_codes',
        'enable_upstream_cache_control',
        'cache_control_ttl_header',
        'cache_by_headers',
      ].map((k) => [k, implemented()]),
    ),
  }),
  session_lifetime_respects_key_expiration: ignored('session lifetime (only with session_lifetime, which is refused)'),
  session_lifetime: unsupported('a session lifetime (keys removed after it)'),
  active: implemented(),
  internal: implemented(),
  auth_provider: ignored('the auth provider (the default one is served)'),
  session_provider: ignored('the session provider (the default one is served)'),
  event_handlers: ignored('event handlers (webhooks, logs of events)'),
  enable_batch_request_support: implemented(),
  enable_ip_whitelisting: implemented(),
  allowed_ips: implemented(),
  enable_ip_blacklisting: implemented(),
  blacklisted_ips: implemented(),
  ip_access_control_disabled: implemented(),
  dont_set_quota_on_create: ignored('quota reset when a key is created through the dashboard'),
  expire_analytics_after: ignored('analytics'),
  response_processors: ignored('response processor names (their settings in extended_paths are checked there)'),
  CORS: implemented({
    fields: {
      ...Object.fromEntries(
        ['enable', 'allowed_origins', 'allowed_methods', 'allowed_headers', 'exposed_headers', 'allow_credentials', 'max_age', 'options_passthrough'].map(
          (k) => [k, implemented()],
        ),
      ),
      debug: ignored('CORS debug logging'),
    },
  }),
  domain: implemented(),
  domain_disabled: implemented(),
  certificates: unsupported('TLS certificates of the API'),
  do_not_track: ignored('analytics'),
  // The request's context variables exist only with it, as in Tyk: what rewrites and header values read.
  enable_context_vars: implemented(),
  config_data: ignored('plugin config data'),
  config_data_disabled: ignored('switch of config_data'),
  tag_headers: ignored('analytics tags'),
  global_rate_limit: implemented({ fields: { rate: implemented(), per: implemented(), disabled: implemented() } }),
  strip_auth_data: implemented(),
  enable_detailed_recording: ignored('analytics'),
  graphql: unsupported('GraphQL APIs'),
  analytics_plugin: ignored('analytics'),
  tags_disabled: ignored('segment tags'),
  tags: ignored('segment tags'),
  is_oas: ignored('the OAS marker of a classic definition'),
  detailed_tracing: ignored('detailed tracing'),
  // Read by classic.ts upstreamAuthOf, which refuses extra_metadata and the combinations Tyk fails on.
  upstream_auth: implemented({
    fields: {
      enabled: implemented(),
      basic_auth: implemented({ fields: fieldsOf('enabled username password header') }),
      oauth: implemented({
        fields: {
          enabled: implemented(),
          allowed_authorize_types: implemented(),
          client_credentials: implemented({ fields: fieldsOf('client_id client_secret header token_url scopes extra_metadata') }),
          password: implemented({ fields: fieldsOf('client_id client_secret header username password token_url scopes extra_metadata') }),
        },
      }),
    },
  }),
  security_requirements: unsupported('several security requirements'),
  security_requirement_scopes: unsupported('security requirement scopes'),
  // Each rule is read by apis/error-overrides.ts, which refuses what svc does not run (flag, template).
  error_overrides: implemented(),
  error_overrides_disabled: implemented(),
};

/** An OAS object field that is on with `enabled: true`. */
const enabledOn = (feature: string): FieldRule => unsupported(feature, (v) => isObject(v) && v['enabled'] === true);

/** An enabled security scheme that is neither a key (apiKey, bearer) nor a JWT: basic, OAuth, OIDC, mutual TLS, HMAC. */
const schemeNotServed: TurnsOn = (v, _parent, root) => {
  if (!isObject(v)) return false;
  const declared = isObject(root['components']) && isObject(root['components']['securitySchemes']) ? root['components']['securitySchemes'] : {};
  return Object.entries(v).some(([name, s]) => {
    if (!isObject(s) || s['enabled'] !== true) return false;
    const d = declared[name];
    if (!isObject(d)) return false;
    const type = d['type'];
    const scheme = typeof d['scheme'] === 'string' ? d['scheme'].toLowerCase() : '';
    return !(type === 'apiKey' || (type === 'http' && scheme === 'bearer'));
  });
};

/** A JWT scheme (Tyk's oas.JWT): what svc verifies, and the claims checks it does not make. */
const OAS_JWT: FieldTable = {
  ...Object.fromEntries(
    [
      'enabled',
      'header',
      'query',
      'cookie',
      'source',
      'signingMethod',
      'identityBaseField',
      'policyFieldName',
      'defaultPolicies',
      'issuedAtValidationSkew',
      'notBeforeValidationSkew',
      'expiresAtValidationSkew',
    ].map((k) => [k, implemented()]),
  ),
  scopes: implemented({
    fields: { claimName: implemented(), scopeToPolicyMapping: implemented(), claims: unsupported('several scope claims (scopes.claims)') },
  }),
  jwksURIs: unsupported('several JWKS URIs (jwksURIs)'),
  subjectClaims: unsupported('subject claims (subjectClaims)'),
  skipKid: unsupported('skipKid'),
  basePolicyClaims: unsupported('policy claims (basePolicyClaims)'),
  clientBaseField: unsupported('the JWT client id claim (clientBaseField)'),
  allowedIssuers: unsupported('an issuer check (allowedIssuers)'),
  allowedAudiences: unsupported('an audience check (allowedAudiences)'),
  allowedSubjects: unsupported('a subject check (allowedSubjects)'),
  jtiValidation: enabledOn('a JWT id check (jtiValidation)'),
  customClaimValidation: unsupported('claim checks (customClaimValidation)'),
  idpClientIdMappingDisabled: ignored('client id mapping switch'),
};

/** An entry of `securitySchemes`: a key (Tyk's oas.Token) or a JWT. */
const OAS_SCHEME: FieldTable = {
  ...OAS_JWT,
  enableClientCertificate: unsupported('the client certificate as the credential'),
  signatureValidation: enabledOn('request signature validation of keys'),
};

/** OAS `allow`, `block`, `ignoreAuthentication` (Tyk's Allowance). */
const ALLOWANCE: FieldTable = { enabled: implemented(), ignoreCase: implemented() };
/** OAS `requestSizeLimit` (operation and global). */
const SIZE_LIMIT: FieldTable = { enabled: implemented(), value: implemented() };

/** OAS `transformRequestBody` / `transformResponseBody` (Tyk's TransformBody): JSON only, checked at load. */
const BODY_TRANSFORM: FieldTable = { enabled: implemented(), format: implemented(), body: implemented(), path: implemented() };

const OAS_OPERATION: FieldTable = {
  rateLimit: implemented(),
  urlRewrite: implemented(),
  splitToken: implemented(),
  allow: implemented({ fields: ALLOWANCE }),
  block: implemented({ fields: ALLOWANCE }),
  ignoreAuthentication: implemented({ fields: ALLOWANCE }),
  internal: implemented({ fields: { enabled: implemented() } }),
  transformRequestMethod: implemented({ fields: { enabled: implemented(), toMethod: implemented() } }),
  transformRequestBody: implemented({ fields: BODY_TRANSFORM }),
  transformResponseBody: implemented({ fields: BODY_TRANSFORM }),
  transformRequestHeaders: implemented({
    fields: { enabled: implemented(), add: implemented({ each: { name: implemented(), value: implemented() } }), remove: implemented() },
  }),
  transformResponseHeaders: implemented({
    fields: { enabled: implemented(), add: implemented({ each: { name: implemented(), value: implemented() } }), remove: implemented() },
  }),
  enforceTimeout: implemented({ fields: { enabled: implemented(), value: implemented(), duration: implemented() } }),
  // The request body's and the parameters' schemas are checked at load (refused: content/styled/object parameters, keywords json-schema.ts does not check).
  validateRequest: implemented({ fields: { enabled: implemented(), errorResponseCode: implemented() } }),
  mockResponse: implemented({
    fields: {
      enabled: implemented(),
      code: implemented(),
      body: implemented(),
      headers: implemented({ each: { name: implemented(), value: implemented() } }),
      fromOASExamples: enabledOn('mock responses from the OAS examples (mockResponse.fromOASExamples)'),
    },
  }),
  virtualEndpoint: enabledOn('virtual endpoints (JavaScript)'),
  postPlugins: unsupported('endpoint plugins'),
  circuitBreaker: implemented({
    fields: { enabled: implemented(), threshold: implemented(), sampleSize: implemented(), coolDownPeriod: implemented(), halfOpenStateEnabled: implemented() },
  }),
  requestSizeLimit: implemented({ fields: SIZE_LIMIT }),
  scopeCheck: unsupported('scope checks'),
  exchange: unsupported('token exchange'),
  cache: implemented({ fields: { enabled: implemented(), cacheByRegex: implemented(), cacheResponseCodes: implemented(), timeout: implemented() } }),
  trackEndpoint: ignored('analytics endpoint tracking'),
  doNotTrackEndpoint: ignored('analytics endpoint tracking'),
};

const OAS_EXTENSION_FIELDS: FieldTable = {
  info: implemented({
    fields: {
      id: implemented(),
      dbId: ignored("the dashboard's database id"),
      orgId: implemented(),
      name: implemented(),
      expiration: unsupported('API expiry (info.expiration)', expires),
      state: implemented({ fields: { active: implemented(), internal: implemented() } }),
      versioning: implemented({
        fields: {
          ...Object.fromEntries(
            ['enabled', 'name', 'default', 'location', 'key', 'stripVersioningData', 'urlVersioningPattern', 'fallbackToDefault'].map((k) => [
              k,
              implemented(),
            ]),
          ),
          versions: implemented({ each: { name: implemented(), id: implemented() } }),
        },
      }),
    },
  }),
  upstream: implemented({
    fields: {
      url: implemented(),
      rateLimit: implemented(),
      preserveHostHeader: implemented(),
      serviceDiscovery: enabledOn('upstream service discovery'),
      uptimeTests: ignored('uptime tests (health checks of upstreams)'),
      mutualTLS: implemented({
        fields: { enabled: implemented(), domainToCertificateMapping: implemented({ each: { domain: implemented(), certificate: implemented() } }) },
      }),
      certificatePinning: enabledOn('upstream certificate pinning'),
      authentication: enabledOn('authentication to the upstream'),
      loadBalancing: implemented({
        fields: {
          enabled: implemented(),
          skipUnavailableHosts: unsupported('skipping upstream hosts that fail uptime tests (loadBalancing.skipUnavailableHosts)'),
          targets: implemented({ each: { url: implemented(), weight: implemented() } }),
        },
      }),
      preserveTrailingSlash: enabledOn('preserveTrailingSlash'),
      tlsTransport: implemented({
        fields: {
          insecureSkipVerify: implemented(),
          ciphers: implemented(),
          minVersion: implemented(),
          maxVersion: implemented(),
          forceCommonNameCheck: unsupported('the upstream certificate common name check (tlsTransport.forceCommonNameCheck)'),
        },
      }),
      proxy: enabledOn('an outbound proxy to the upstream'),
      enforceTimeout: implemented({ fields: { enabled: implemented(), duration: implemented() } }),
    },
  }),
  server: implemented({
    fields: {
      listenPath: implemented(),
      authentication: implemented({
        fields: {
          enabled: implemented(),
          stripAuthorizationData: implemented(),
          securitySchemes: implemented({
            feature: 'a security scheme other than an API key or a JWT (basic, OAuth, OpenID Connect, mutual TLS)',
            on: schemeNotServed,
            each: OAS_SCHEME,
          }),
          jwt: implemented({ fields: OAS_JWT }),
          baseIdentityProvider: ignored('the identity of several auth methods (one method is served)'),
          hmac: enabledOn('HMAC request signature authentication'),
          oidc: enabledOn('OpenID Connect authentication'),
          custom: enabledOn('custom plugin authentication'),
          customKeyLifetime: enabledOn('a custom key lifetime'),
          securityProcessingMode: unsupported('a security processing mode other than legacy', (v) => typeof v === 'string' && v !== '' && v !== 'legacy'),
          security: unsupported('several security requirements (authentication.security)'),
          protectedResourceMetadata: enabledOn('protected resource metadata'),
          certificateAuth: enabledOn('certificate authentication'),
        },
      }),
      clientCertificates: enabledOn('mutual TLS client certificates'),
      gatewayTags: ignored('segment tags'),
      customDomain: implemented({
        fields: { enabled: implemented(), name: implemented(), certificates: unsupported('certificates of a custom domain (customDomain.certificates)') },
      }),
      detailedActivityLogs: ignored('analytics'),
      detailedTracing: ignored('detailed tracing'),
      eventHandlers: ignored('event handlers (webhooks, logs of events)'),
      ipAccessControl: implemented({ fields: { enabled: implemented(), allow: implemented(), block: implemented() } }),
      batchProcessing: enabledOn('batch requests'),
      protocol: unsupported('a protocol other than HTTP', (v) => typeof v === 'string' && !['', 'http', 'https'].includes(v)),
      port: unsupported('a listen port of its own for the API'),
    },
  }),
  middleware: implemented({
    fields: {
      global: implemented({
        fields: {
          skipRateLimit: implemented(),
          skipQuota: ignored('skipQuota (quotas are still enforced)'),
          skipQuotaReset: ignored('quota reset when a key is created through the dashboard'),
          pluginConfig: ignored('plugin config data'),
          cors: implemented({
            fields: {
              ...Object.fromEntries(
                ['enabled', 'allowedOrigins', 'allowedMethods', 'allowedHeaders', 'exposedHeaders', 'allowCredentials', 'maxAge', 'optionsPassthrough'].map(
                  (k) => [k, implemented()],
                ),
              ),
              debug: ignored('CORS debug logging'),
            },
          }),
          prePlugin: enabledOn('plugins'),
          prePlugins: unsupported('plugins'),
          postAuthenticationPlugin: enabledOn('plugins'),
          postAuthenticationPlugins: unsupported('plugins'),
          postPlugin: enabledOn('plugins'),
          postPlugins: unsupported('plugins'),
          responsePlugin: enabledOn('plugins'),
          responsePlugins: unsupported('plugins'),
          cache: implemented({
            fields: Object.fromEntries(
              ['enabled', 'timeout', 'cacheAllSafeRequests', 'cacheResponseCodes', 'cacheByHeaders', 'enableUpstreamCacheControl', 'controlTTLHeaderName'].map(
                (k) => [k, implemented()],
              ),
            ),
          }),
          transformRequestHeaders: implemented({
            fields: { enabled: implemented(), add: implemented({ each: { name: implemented(), value: implemented() } }), remove: implemented() },
          }),
          transformResponseHeaders: implemented({
            fields: { enabled: implemented(), add: implemented({ each: { name: implemented(), value: implemented() } }), remove: implemented() },
          }),
          contextVariables: implemented(),
          trafficLogs: ignored('analytics'),
          requestSizeLimit: implemented({ fields: SIZE_LIMIT }),
          // Tyk applies it to the endpoint lists only (allow, block, ignoreAuthentication).
          ignoreCase: implemented({ fields: { enabled: implemented() } }),
        },
      }),
      operations: implemented({ each: OAS_OPERATION }),
      mcpTools: unsupported('MCP tools'),
      mcpResources: unsupported('MCP resources'),
      mcpPrompts: unsupported('MCP prompts'),
    },
  }),
  errorOverrides: enabledOn('error overrides'),
};

/** The OpenAPI document's own fields are the API's description: read where the loader needs them (paths, components). */
const OPENAPI_FIELDS = ['openapi', 'info', 'paths', 'components', 'servers', 'security', 'tags', 'externalDocs', 'jsonSchemaDialect', 'webhooks'];

const OAS: FieldTable = {
  ...Object.fromEntries(OPENAPI_FIELDS.map((k) => [k, implemented()])),
  'x-svc-api-gateway': implemented({ fields: OAS_EXTENSION_FIELDS }),
};

/** Fields warned about already (once per process, by their place in the table). */
const warned = new Set<string>();

/**
 * Checks a definition's fields against the lists: throws a DefinitionError for the first
 * unsupported feature it turns on; calls `warn` once per ignored field that is set (and per field
 * that is not Tyk's).
 */
export function checkFieldSupport(def: JsonObject, format: 'classic' | 'oas', file: string | undefined, warn: (message: string) => void): void {
  walk(def, format === 'oas' ? OAS : CLASSIC, '', format, def, file, warn);
}

function walk(
  obj: JsonObject,
  table: FieldTable,
  path: string,
  place: string,
  root: JsonObject,
  file: string | undefined,
  warn: (message: string) => void,
  unknown = true,
): void {
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    if (v === null || v === undefined) continue;
    const at = childPath(path, key);
    const where = `${place}.${key}`;
    const rule = table[key];
    if (rule === undefined) {
      // Other OpenAPI extensions (x-...) belong to other tools.
      if (unknown && !(place === 'oas' && key.startsWith('x-')))
        once(where, () => warn(`${file ?? 'API definition'}: ${at}: not a field of Tyk's API definition (ignored)`));
      continue;
    }
    if (rule.support === 'ignored') {
      if (isSet(v)) once(where, () => warn(`${file ?? 'API definition'}: ${at}: ignored (${rule.feature}: not implemented by svc)`));
      continue;
    }
    if (rule.support === 'unsupported') {
      if ((rule.on ?? isSet)(v, obj, root)) throw unsupportedError(file, at, rule);
      continue;
    }
    if (rule.on?.(v, obj, root) === true) throw unsupportedError(file, at, rule);
    if (rule.fields && isObject(v)) walk(v, rule.fields, at, where, root, file, warn, unknown);
    if (rule.each) {
      const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((e, i) => [i, e]) : isObject(v) ? Object.entries(v) : [];
      for (const [k, e] of entries) if (isObject(e)) walk(e, rule.each, childPath(at, k), `${where}.*`, root, file, warn, unknown);
    }
  }
}

function unsupportedError(file: string | undefined, at: string, rule: FieldRule): DefinitionError {
  return new DefinitionError(file, at, `not supported: ${rule.feature}; svc does not implement it: remove the field or turn it off`);
}

function once(key: string, say: () => void): void {
  if (warned.has(key)) return;
  warned.add(key);
  say();
}

/**
 * svc.conf's fields besides those the gateway reads (`conf/config-schema.ts`, all implemented):
 * Tyk's `config/config.go` (v5.14.0) that svc ignores (warned once when set) or does not implement
 * (the config is refused when it turns one on: the gateway does not start).
 */
const REDIS_TLS = ignored('Redis TLS settings (only with use_ssl, which is refused)');

/** `storage` (Tyk's StorageOptionsConf): the Redis the gateway keeps keys and limits in. */
const STORAGE: FieldTable = {
  ...Object.fromEntries(['type', 'host', 'port', 'addrs', 'username', 'password', 'database', 'enable_cluster'].map((k) => [k, implemented()])),
  hosts: unsupported('Redis hosts as a map (hosts: use addrs)'),
  master_name: unsupported('Redis Sentinel (master_name)'),
  sentinel_password: ignored('Redis Sentinel (only with master_name, which is refused)'),
  use_ssl: unsupported('TLS to Redis (use_ssl)'),
  ssl_insecure_skip_verify: REDIS_TLS,
  ca_file: REDIS_TLS,
  cert_file: REDIS_TLS,
  key_file: REDIS_TLS,
  tls_max_version: REDIS_TLS,
  tls_min_version: REDIS_TLS,
  optimisation_max_idle: ignored('Redis connection tuning'),
  optimisation_max_active: ignored('Redis connection tuning'),
  timeout: ignored('Redis connection tuning'),
  compress_api_definitions: ignored('compression of stored definitions'),
  compress_policies: ignored('compression of stored policies'),
  max_decompressed_size: ignored('compression of stored definitions'),
};

const CONF: FieldTable = {
  storage: implemented({ fields: STORAGE }),
  local_session_cache: implemented(),
  enable_separate_cache_store: implemented(),
  cache_storage: implemented({ fields: STORAGE }),
  enable_custom_domains: implemented(),
  hostname: implemented(),
  control_api_hostname: unsupported('a hostname the control API answers on'),
  http_server_options: implemented({
    fields: {
      use_ssl: implemented(),
      certificates: implemented(),
      ssl_certificates: unsupported('TLS certificates of the gateway'),
      min_version: implemented(),
      max_version: unsupported('a TLS maximum version'),
      ssl_ciphers: implemented(),
      ssl_insecure_skip_verify: unsupported('skipping TLS verification'),
      server_name: unsupported('a TLS server name'),
      skip_client_ca_announcement: ignored('TLS client CA announcement'),
      enable_strict_routes: implemented(),
      enable_path_prefix_matching: implemented(),
      enable_path_suffix_matching: implemented(),
      max_request_body_size: unsupported('a request size limit for every API (max_request_body_size)'),
      max_response_body_size: unsupported('a response size limit'),
      skip_url_cleaning: unsupported('skip_url_cleaning'),
      skip_target_path_escaping: unsupported('skip_target_path_escaping'),
      xff_depth: implemented(),
      read_timeout: ignored("read timeout (the api_gateway input's request_timeout bounds a request)"),
      write_timeout: ignored("write timeout (the api_gateway input's write_timeout bounds an exchange)"),
      enable_http2: ignored('HTTP/2 to clients'),
      enable_websockets: ignored('WebSockets'),
      flush_interval: ignored('flush interval'),
    },
  }),
  enforce_org_quotas: unsupported('organisation quotas (enforce_org_quotas)'),
  enforce_org_data_age: unsupported('organisation data age'),
  allow_master_keys: unsupported('master keys (allow_master_keys)'),
  force_global_session_lifetime: unsupported('a global session lifetime (force_global_session_lifetime)'),
  global_session_lifetime: ignored('global session lifetime (only with force_global_session_lifetime, which is refused)'),
  ignore_endpoint_case: unsupported('case-insensitive endpoint matching'),
  auth_override: unsupported(
    'auth and session provider overrides',
    (v) => isObject(v) && (v['force_auth_provider'] === true || v['force_session_provider'] === true),
  ),
  proxy_ssl_insecure_skip_verify: unsupported('skipping upstream TLS verification'),
  proxy_ssl_min_version: unsupported('an upstream TLS minimum version'),
  proxy_ssl_max_version: unsupported('an upstream TLS maximum version'),
  proxy_ssl_ciphers: unsupported('upstream TLS cipher suites'),
  proxy_ssl_disable_renegotiation: ignored('upstream TLS renegotiation'),
  ssl_force_common_name_check: unsupported('the upstream certificate common name check'),
  proxy_default_timeout: implemented(),
  security: unsupported('gateway security settings (control API mutual TLS, certificate pinning, certificates)'),
  min_token_length: unsupported('a minimum key length (min_token_length)'),
  use_db_app_configs: unsupported('API definitions from a dashboard (use_db_app_configs)'),
  slave_options: unsupported('MDCB (slave_options.use_rpc)', (v) => isObject(v) && v['use_rpc'] === true),
  drl_enable_sentinel_rate_limiter: unsupported('the sentinel limiter of the distributed rate limiter'),
  consul: unsupported('Consul settings outside kv (use kv.kvstore)'),
  vault: unsupported('Vault settings outside kv (use kv.secretstore)'),
  file: unsupported('a file key-value store'),
  override_messages: unsupported('overridden error messages'),
  error_overrides: unsupported('error overrides'),
  streaming: unsupported('Tyk streams (use the engine)'),
  ...Object.fromEntries(
    [
      'pid_file_location allow_insecure_configs public_key_path allow_remote_config enable_config_inspection external_services version_header',
      'suppress_redis_signal_reload reload_interval disable_key_actions_by_username basic_auth_hash_key_function hash_key_function_fallback',
      'enable_hashed_keys_listing template_path ports_whitelist disable_ports_whitelist db_app_conf_options disable_dashboard_zeroconf',
      'management_node enforce_org_data_detail_logging experimental_process_org_off_thread monitor max_idle_connections',
      'max_idle_connections_per_host max_conn_time close_connections service_discovery proxy_enable_http2 proxy_close_connections',
      'uptime_tests health_check health_check_endpoint_name readiness_check_endpoint_name graceful_shutdown_timeout_duration',
      'graceful_shutdown_delay_seconds enable_key_logging enable_analytics analytics_config',
      'enable_separate_analytics_store analytics_storage liveness_check dns_cache disable_regexp_cache regexp_cache_expire',
      'regexp_cache_max_entries disable_regexp_cache_bound disable_auto_max_procs',
      'enable_bundle_downloader bundle_base_url bundle_insecure_skip_verify skip_verify_existing_plugin_bundle enable_jsvm',
      'jsvm_timeout disable_virtual_path_blobs tyk_js_path middleware_path coprocess_options ignore_canonical_mime_header_key log_level',
      'log_format access_logs tracing opentelemetry newrelic enable_http_profiler use_redis_log use_sentry sentry_code sentry_log_level',
      'use_syslog syslog_transport syslog_network_addr use_graylog graylog_network_addr use_logstash logstash_transport',
      'logstash_network_addr track_404_logs statsd_connection_string statsd_prefix event_handlers event_trigers_defunct',
      'event_triggers_defunct hide_generator_header suppress_default_org_store legacy_enable_allowance_countdown',
      'session_lifetime_respects_key_expiration cloud jwt_ssl_insecure_skip_verify resource_sync oas_config labs jwks',
      'allow_unsafe_policy_ids enable_rate_limit_smoothing drl_notification_frequency',
    ]
      .join(' ')
      .split(' ')
      .map((k) => [k, ignored('logging, analytics, plugins, dashboards or connection tuning')]),
  ),
};

/**
 * Checks svc.conf's fields that the gateway does not read (`implemented`: those it reads, passed
 * in): throws for an unsupported feature turned on, warns once per ignored field that is set,
 * and says whether a field is known (else the loader warns it is unknown).
 */
export function checkConfSupport(conf: JsonObject, file: string, warn: (message: string) => void): void {
  // Fields in no list are the loader's to warn about (it knows the fields it reads).
  walk(conf, CONF, '', 'conf', conf, file, warn, false);
}

/** Whether svc.conf's `path` (`enable_analytics`, `storage.timeout`) is one of Tyk's fields in the lists. */
export function isKnownConfField(path: string): boolean {
  let table: FieldTable | undefined = CONF;
  const parts = path.split('.');
  for (let i = 0; i < parts.length; i++) {
    const rule: FieldRule | undefined = table !== undefined && Object.hasOwn(table, parts[i]!) ? table[parts[i]!] : undefined;
    if (rule === undefined) return false;
    if (i === parts.length - 1) return true;
    table = rule.fields;
  }
  return false;
}

/** One object of a definition in the gateway guide's field table: its path and its fields by support. */
interface FieldGroup {
  path: string;
  implemented: string[];
  ignored: string[];
  unsupported: string[];
}

function groups(table: FieldTable, path: string, out: FieldGroup[]): FieldGroup[] {
  const g: FieldGroup = { path, implemented: [], ignored: [], unsupported: [] };
  out.push(g);
  for (const [key, rule] of Object.entries(table)) {
    // A field implemented but refused for one use of it (`on`) is listed as implemented.
    g[rule.support].push(key);
    if (rule.fields) groups(rule.fields, path ? `${path}.${key}` : key, out);
    if (rule.each) groups(rule.each, path ? `${path}.${key}.*` : `${key}.*`, out);
  }
  return out;
}

/**
 * The gateway guide's (docs/guide/gateway.md) table of every field of a classic definition, an OAS `x-svc-api-gateway` extension
 * and svc.conf, by object: implemented, ignored (harmless; warned once) or refused at load when
 * turned on. The test of this file checks the guide carries exactly this text.
 */
export function fieldSupportTable(): string {
  const code = (names: string[]): string => names.map((n) => `\`${n}\``).join(', ');
  const rows: string[] = ['| where | implemented | ignored (warned once) | refused when turned on |', '|---|---|---|---|'];
  const add = (format: string, table: FieldTable, root: string): void => {
    for (const g of groups(table, '', [])) {
      if (g.implemented.length + g.ignored.length + g.unsupported.length === 0) continue;
      const where = `${format} ${g.path === '' ? root : `\`${g.path}\``}`;
      rows.push(`| ${where} | ${code(g.implemented)} | ${code(g.ignored)} | ${code(g.unsupported)} |`);
    }
  };
  add('classic', CLASSIC, '(top level)');
  add('OAS', OAS_EXTENSION_FIELDS, '`x-svc-api-gateway`');
  add('svc.conf', CONF, '(top level: besides the fields the gateway reads)');
  return rows.join('\n');
}
