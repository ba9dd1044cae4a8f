/**
 * An API as the gateway serves it: what a classic Tyk API definition or an OAS definition with the
 * `x-svc-api-gateway` extension says, normalised to one shape. Loaders (`classic.ts`, `oas.ts`)
 * build it; every other part of the gateway reads only this. Plain data (structured-clonable):
 * it is copied to worker threads as it is.
 */
import type { JsonSchemaNode } from '../languages/json-schema.js';
import type { OasRequestBody } from '../languages/oas-request-validation.js';
import type { OasParameter } from '../languages/oas-parameters.js';
import type { PathMatching } from './endpoints.js';
import type { ErrorOverrides } from './error-overrides.js';
import type { MutualTls } from './client-certificates.js';

/** A `rate` per `per` seconds pair (0/0: no limit). */
export interface RatePair {
  rate: number;
  per: number;
}

/** The JWT settings of an API (classic `jwt_*` fields; OAS `server.authentication.jwt`). */
export interface JwtSettings {
  /** `rsa`, `hmac`, `ecdsa`, or '' (the key is configured per key: `jwt_data.secret`). */
  signingMethod: 'rsa' | 'hmac' | 'ecdsa' | '';
  /**
   * `jwt_source` as written: a base64 PEM (RSA/ECDSA), a base64 shared secret (HMAC), a JWKS
   * URL (http(s)://..., or its base64), or '' for per-key secrets.
   */
  source: string;
  /** The identity claim (`jwt_identity_base_field`, default `sub`). */
  identityBaseField: string;
  /** The policy claim (`jwt_policy_field_name`, default `pol`). */
  policyFieldName: string;
  /** `jwt_default_policies`: applied when the policy claim is absent. */
  defaultPolicies: string[];
  /** `jwt_scope_claim_name` (default `scope`; dot notation reaches nested claims). */
  scopeClaimName: string;
  /** `jwt_scope_to_policy_mapping`: scope → policy id. */
  scopeToPolicy: Record<string, string>;
  /** `jwt_issued_at_validation_skew`, `jwt_expires_at_validation_skew`, `jwt_not_before_validation_skew`, in seconds. */
  issuedAtSkew: number;
  expiresAtSkew: number;
  notBeforeSkew: number;
}

/** Where the credential is read from (classic `auth`/`auth_configs`; OAS security scheme). */
export interface CredentialSource {
  /** Header name (case-insensitive; default `Authorization`); '' = header disabled. */
  header: string;
  /** Query parameter name (case-sensitive), or '' when disabled. */
  query: string;
  /** Cookie name (case-sensitive), or '' when disabled. */
  cookie: string;
}

/** Per-endpoint rate limit (classic `extended_paths.rate_limit[]`, OAS `operations.<id>.rateLimit`). */
export interface EndpointRateLimit extends RatePair {
  /** A regular expression over the path after the listen path (OAS `{x}` already turned into `(.*)`). */
  path: string;
  method: string;
}

/** One rule of an advanced trigger: a key at a location, its pattern (RE2), maybe negated. */
export interface RewriteMatch {
  /** The key name: a header (hyphenated), query parameter, path part label, metadata or context key. */
  key: string;
  matchRx: string;
  /** Passes when the pattern does not match. */
  reverse: boolean;
}

/** Where an advanced trigger's rules look: Tyk's `options` fields, in the order Tyk checks them. */
export type RewriteLocation = 'header' | 'query' | 'pathPart' | 'sessionMeta' | 'requestContext' | 'payload';

/** An advanced trigger (classic `triggers[]`, OAS `triggers[]` of `urlRewrite`). */
export interface RewriteTrigger {
  /** `all`: every location with rules must pass; `any`: one is enough. */
  on: 'all' | 'any';
  /** Rules by location (the payload has at most one rule, with key `payload`). */
  rules: Partial<Record<RewriteLocation, RewriteMatch[]>>;
  rewriteTo: string;
}

/** A URL rewrite (classic `extended_paths.url_rewrites[]`; OAS `operations.<id>.urlRewrite`), patterns checked (RE2) at load. */
export interface UrlRewriteRule {
  /** The endpoint the rule is for: a pattern over the path after the listen path. */
  path: string;
  method: string;
  /** The basic trigger's pattern, over the request path and query. */
  matchPattern: string;
  rewriteTo: string;
  triggers: RewriteTrigger[];
}

/**
 * A split-token endpoint (an entry of classic `extended_paths.virtual` with `split_token`, or
 * OAS `middleware.operations.<id>.splitToken`): POSTs to `path` go to `tokenUrl`, as Tyk's
 * "Split-token virtual endpoint" describes.
 */
export interface SplitTokenEndpoint {
  path: string;
  method: string;
  tokenUrl: string;
}

/** CORS of an API that turns it on (classic `CORS` with `enable`; OAS `middleware.global.cors` with `enabled`). */
export interface CorsSettings {
  allowedOrigins: string[];
  allowedMethods: string[];
  allowedHeaders: string[];
  exposedHeaders: string[];
  allowCredentials: boolean;
  /** Seconds; 0: no Access-Control-Max-Age, negative: 0. */
  maxAge: number;
  /** Preflights and OPTIONS requests go on to the upstream instead of being answered by the gateway. */
  optionsPassthrough: boolean;
}

/** Headers taken out, then set (Go's Header.Del, then Header.Set), values with context variables resolved per request. */
export interface HeaderEdit {
  remove: string[];
  /** Name and value template (`$svc_context.*`, `$svc_meta.*`, `$secret_*`), in the definition's order. */
  add: Array<[string, string]>;
}

/** A header edit of an endpoint (classic `transform_headers[]`, `transform_response_headers[]`): its method exactly. */
export interface EndpointHeaderEdit extends HeaderEdit {
  path: string;
  method: string;
}

/** A method transform (classic `method_transforms[]`): requests of `method` on `path` go upstream as `toMethod`. */
export interface MethodTransform {
  path: string;
  method: string;
  toMethod: string;
}

/** A mock answer (classic `mock_response` entries and `method_actions` with `reply`): Tyk's DoMockReply. */
export interface MockReply {
  code: number;
  body: string;
  /** Added to the answer as written (Go's Header.Add canonicalises the names). */
  headers: Record<string, string>;
}

/**
 * An entry of the endpoint lists Tyk's VersionCheck reads (classic `extended_paths.ignored`,
 * `black_list`, `white_list`, `internal`, `mock_response`; OAS operations' `ignoreAuthentication`,
 * `block`, `allow`, `internal`), in Tyk's order: mock, ignored, black, white, other, internal.
 */
export interface EndpointListEntry {
  /**
   * `other`: an entry of another list Tyk compiles between the white list and the internal one
   * (cache, URL rewrite, size limit, endpoint tracking): with a white list, a request whose path
   * one of them matches before an internal entry is forbidden (any method, even looped). Only
   * present when the API has a white list.
   */
  kind: 'mock' | 'ignored' | 'black' | 'white' | 'other' | 'internal';
  /** A pattern over the path (Tyk's `{id}` and `/*` widened), unanchored, as Tyk matches it. */
  path: string;
  /** As written ('' = every method, except for internal entries, which Tyk matches only with a method). */
  method: string;
  /** The entry's `ignore_case`, or the version's `ignore_endpoint_case`. */
  ignoreCase: boolean;
  /**
   * Classic `method_actions` when the entry has them (Tyk then reads them instead of `method`):
   * method → action (`no_action`: the list's meaning; `reply`: the mock answer; anything else forbids).
   */
  methodActions?: Record<string, { action: string; reply?: MockReply }>;
  /** A `mock` entry's answer (its method matched exactly). */
  reply?: MockReply;
}

/** A JSON Schema check of an endpoint's request body (classic `extended_paths.validate_json[]`). */
export interface EndpointJsonValidation {
  path: string;
  /** Tyk matches these only with a method. */
  method: string;
  schema: JsonSchemaNode;
  /** `error_response_code` (0: Tyk's 422). */
  errorCode: number;
}

/** An OAS operation's request check (`validateRequest`): its parameters and `requestBody`, as kin-openapi checks them. */
export interface EndpointRequestValidation {
  path: string;
  method: string;
  parameters: OasParameter[];
  body: OasRequestBody;
  /** `errorResponseCode` (0: Tyk's 422). */
  errorCode: number;
}

/**
 * A body transform of an endpoint (classic `extended_paths.transform[]` / `transform_response[]`;
 * OAS `transformRequestBody` / `transformResponseBody`): Tyk's TransformSpec, a Go text/template
 * run on the JSON body (see languages/go-template.ts for the subset served).
 */
export interface EndpointBodyTransform {
  path: string;
  /** Tyk matches these only with a method. */
  method: string;
  /** The template's text (blob decoded, file read), checked at load. */
  template: string;
  /** `enable_session`: the session's metadata is `._svc_meta` (OAS: always). */
  enableSession: boolean;
}

/** A request size limit of an endpoint (classic `extended_paths.size_limits[]`, OAS `requestSizeLimit`). */
export interface EndpointSizeLimit {
  path: string;
  /** Tyk matches these only with a method. */
  method: string;
  /** Bytes. */
  limit: number;
}

/** A per-endpoint upstream deadline (classic `extended_paths.hard_timeouts[]`): Tyk's HardTimeoutMeta. */
export interface EndpointHardTimeout {
  path: string;
  /** Tyk matches these only with a method. */
  method: string;
  /** `duration` when set, else `timeout` seconds, in milliseconds (0: this entry sets none). */
  ms: number;
}

/** A circuit breaker of an endpoint (classic `extended_paths.circuit_breakers[]`): Tyk's CircuitBreakerMeta. */
export interface EndpointCircuitBreaker {
  path: string;
  /** Tyk matches these only with a method. */
  method: string;
  /** The failure rate (0-1: `0.5` is half) that opens the breaker, once it has `samples` results. */
  thresholdPercent: number;
  samples: number;
  /** Seconds after which an open breaker closes again. */
  returnToServiceAfter: number;
  /** No trial request while open: the breaker stays open until `returnToServiceAfter`. */
  disableHalfOpenState: boolean;
}

/** A cached endpoint (classic `advance_cache_config[]`; a `cache` path is one for each of GET, HEAD, OPTIONS). */
export interface EndpointCache {
  path: string;
  method: string;
  /** RE2 over a POST, PUT or PATCH body: only its match is part of the key ('' = the whole body). */
  keyRegex: string;
  /** Statuses kept (none: the API's `cache_response_codes`). */
  codes: number[];
  /** Seconds (0: the API's `cache_timeout`). */
  timeout: number;
}

/** `cache_options` with `enable_cache`. */
export interface CacheOptions {
  /** `cache_timeout`, seconds. */
  timeout: number;
  allSafeRequests: boolean;
  /** `cache_response_codes` (none: every status). */
  codes: number[];
  /** `enable_upstream_cache_control`, with `cache_control_ttl_header`. */
  upstreamCacheControl: boolean;
  ttlHeader: string;
  /** `cache_by_headers`: their values are part of the key. */
  byHeaders: string[];
}

/**
 * How a versioned classic API (`version_data.not_versioned` false) finds a request's version, as
 * Tyk v5.14.0's `getVersionFromRequest` and `Version` do (`gateway/api_definition.go`).
 */
export interface ApiVersioning {
  /** `definition.location`: a header, a query parameter, the first path segment after the listen path; '': none (the default version). */
  location: 'header' | 'url-param' | 'url' | '';
  /** `definition.key`: the header or parameter name. */
  key: string;
  /** `definition.strip_path` or `strip_versioning_data`: the version is taken out of what the upstream gets. */
  strip: boolean;
  /** `definition.url_versioning_pattern` (RE2): with `url`, only a segment it matches is stripped ('' = any). */
  urlPattern: string;
  /** `version_data.default_version`: served when the request names none ('' = such a request is refused). */
  defaultVersion: string;
  /** `definition.fallback_to_default`: an unknown version is served as the default one. */
  fallbackToDefault: boolean;
  /** The API as each version (by its key in `version_data.versions`) serves it; a Map, as a request names the version. */
  versions: ReadonlyMap<string, ApiSpec>;
}

/**
 * Versions as separate APIs (classic `definition.enabled` with `definition.versions`; OAS
 * `info.versioning`): the base API reads the version where the classic versioning does, serves
 * its own one (`name`, or `self`) itself and hands any other to the API that version names, as
 * Tyk v5.14.0's VersionCheck does.
 */
export interface ChildVersioning {
  /** The base API's own version name (`definition.name`, `versioning.name`). */
  name: string;
  /** The version served when the request names none (`self` or '' = the base). */
  defaultVersion: string;
  location: ApiVersioning['location'];
  key: string;
  strip: boolean;
  urlPattern: string;
  fallbackToDefault: boolean;
  /** Version name → the id (or name) of the API serving it; a Map, as a request names the version. */
  versions: ReadonlyMap<string, string>;
}

export interface ApiSpec {
  id: string;
  name: string;
  orgId: string;
  active: boolean;
  /** Where it came from: `classic` or `oas`, and the file (absent when created through the management API). */
  format: 'classic' | 'oas';
  file?: string;
  /**
   * The classic `<name>.json` with `is_oas` that Tyk writes beside an OAS `<name>-oas.json`: the
   * pair is this one API (served from the OAS file), and deleting the API deletes both.
   */
  companionFile?: string;
  /** The definition as written (external references unresolved), for the management API: it never shows a resolved secret. */
  definition: unknown;

  /** `internal` (OAS `info.state.internal`): not routed by its listen path, reached only by a `svc://` loop or as a base API's version. */
  internal?: boolean;
  /**
   * `domain` (OAS `server.customDomain.name`), with svc.conf's `enable_custom_domains`: the API
   * answers only on that host (a gorilla/mux host template: `{name}` or `{name:pattern}` parts).
   * `domainOn` false: `domain_disabled` (Tyk still sorts the API among those with a domain).
   */
  domain?: string;
  domainOn?: boolean;
  /** A base API whose versions are other APIs. */
  childVersions?: ChildVersioning;

  /** The listen path, always starting with `/`. */
  listenPath: string;
  stripListenPath: boolean;
  /**
   * How endpoint patterns are anchored: svc.conf's `enable_path_prefix_matching` and
   * `enable_path_suffix_matching`, set on every API by the gateway state (absent: Tyk's default, unanchored).
   */
  pathMatching?: PathMatching;
  /** The upstream URL (`proxy.target_url`, `upstream.url`). */
  targetUrl: string;
  /**
   * `proxy.enable_load_balancing`: the upstreams of `proxy.target_list` taken in turn (round
   * robin), each an absolute URL (Tyk's EnsureTransport: `host:port` gets `http://`). Absent: `targetUrl`.
   */
  loadBalancing?: { targets: string[] };
  /**
   * `proxy.transport` for HTTPS upstreams: `ssl_insecure_skip_verify` (any certificate is
   * accepted), `ssl_min_version` / `ssl_max_version` (node:tls names), `ssl_ciphers`. Absent:
   * verified, TLS 1.2 and up, Node's suites.
   */
  /**
   * `upstream_certificates` (unless `upstream_certificates_disabled`): upstream host pattern (`*`,
   * `*.example.com`, `host`, `host:port`) → the client certificate to present, a PEM file holding
   * the certificate and its private key, or that PEM itself.
   */
  upstreamCertificates?: Record<string, string>;
  upstreamTls?: {
    insecureSkipVerify: boolean;
    minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
    maxVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
    /** `ssl_ciphers` (Go names) as OpenSSL's: the only TLS 1.2 suites offered (TLS 1.3 ones are Node's). */
    ciphers?: string;
  };
  /**
   * `proxy.preserve_host_header` (OAS `upstream.preserveHostHeader.enabled`): the upstream gets
   * the client's Host instead of the target's. Absent = false, Tyk's default.
   */
  preserveHostHeader?: boolean;

  /** `use_keyless` (no authentication at all). */
  keyless: boolean;
  /** `use_standard_auth`: a key in the credential location, looked up in the session store. */
  standardAuth: boolean;
  /**
   * `use_basic_auth`: a user name and password in the Authorization header (`auth_configs.basic`),
   * the user a key of the session store; `basic_auth.disable_caching` / `cache_ttl` (seconds, 0: 60);
   * `extract_from_body` with `body_user_regexp` / `body_password_regexp` (RE2, group 1 is the value):
   * the body's credentials when the header's are missing or malformed.
   */
  basicAuth?: { disableCaching: boolean; cacheTtl: number; fromBody?: { user: string; password: string } };
  /** `upstream_auth`: the credentials the upstream gets (auth/upstream-auth.ts). */
  upstreamAuth?: UpstreamAuth;
  /** `enable_signature_checking`: HMAC request signatures (auth/hmac-auth.ts), `hmac_allowed_algorithms` ([] = any), `hmac_allowed_clock_skew` (ms; 0 = any). */
  hmac?: { allowedAlgorithms: string[]; clockSkewMs: number };
  /** `enable_jwt` / `use_jwt` / an enabled OAS JWT scheme. */
  jwt?: JwtSettings;
  /** `use_oauth2`: Tyk's own OAuth 2.0 server for this API (auth/oauth2/). */
  oauth2?: OAuth2Settings;
  credential: CredentialSource;
  /** `strip_auth_data` / `stripAuthorizationData`. */
  stripAuthData: boolean;

  /** `global_rate_limit` (0/0 = none). */
  globalRateLimit: RatePair;
  disableRateLimit: boolean;
  /** Per-endpoint limits in evaluation order. */
  endpointRateLimits: EndpointRateLimit[];
  urlRewrites: UrlRewriteRule[];
  splitToken: SplitTokenEndpoint[];

  /**
   * The client addresses or CIDRs allowed (`allowed_ips` when Tyk enables it: see classic.ts;
   * OAS `server.ipAccessControl.allow`); absent or empty: no allow list.
   */
  ipAllow?: string[];
  /** The client addresses or CIDRs refused (`blacklisted_ips`; OAS `ipAccessControl.block`). */
  ipBlock?: string[];
  /** The endpoint lists; absent or empty: none. */
  endpointLists?: EndpointListEntry[];
  /** The version's `global_size_limit` in bytes (0: none; OAS `middleware.global.requestSizeLimit`). */
  globalSizeLimit?: number;
  endpointSizeLimits?: EndpointSizeLimit[];

  /** The version's `global_headers_remove` / `global_headers` (absent when none, or `global_headers_disabled`). */
  globalHeaders?: HeaderEdit;
  /** `extended_paths.transform_headers`: the first matching entry applies, after the global ones. */
  headerTransforms?: EndpointHeaderEdit[];
  /** The version's `global_response_headers_remove` / `global_response_headers`. */
  globalResponseHeaders?: HeaderEdit;
  /** `extended_paths.transform_response_headers`: the first matching entry applies, before the global ones. */
  responseHeaderTransforms?: EndpointHeaderEdit[];
  /** `extended_paths.hard_timeouts`: the first entry matching the method and path sets the request's deadline. */
  hardTimeouts?: EndpointHardTimeout[];
  /** The version's `global_enforce_timeout` in milliseconds, for requests no hard timeout entry matches (absent: none). */
  globalEnforceTimeoutMs?: number;
  /** `extended_paths.circuit_breakers`: the first entry matching the method and path guards the request. */
  circuitBreakers?: EndpointCircuitBreaker[];
  /** `cache_options` when `enable_cache` is on: the response cache (proxy/response-cache.ts). */
  cache?: CacheOptions;
  /** The version's `cache` and `advance_cache_config` entries (only read with `cache`). */
  cachePaths?: EndpointCache[];
  /** `extended_paths.method_transforms`. */
  methodTransforms?: MethodTransform[];
  /** Request bodies checked against a JSON Schema (classic `validate_json`), in the definition's order. */
  jsonValidations?: EndpointJsonValidation[];
  /** OAS operations' `mockResponse` (enabled, from its `code`, `body`, `headers`), answered by `gateway_transform`. */
  oasMocks?: Array<{ path: string; method: string; reply: MockReply }>;
  /** OAS operations' `validateRequest` (enabled), in the document's order. */
  requestValidations?: EndpointRequestValidation[];
  /** Request body transforms (Go templates), in the definition's order. */
  bodyTransforms?: EndpointBodyTransform[];
  /** Response body transforms (Go templates), in the definition's order. */
  responseBodyTransforms?: EndpointBodyTransform[];
  /** CORS, when on. */
  cors?: CorsSettings;
  /** `error_overrides` (classic; absent with `error_overrides_disabled`): Tyk's rewrites of error answers. */
  errorOverrides?: ErrorOverrides;
  /** `enable_batch_request_support`: `{listen_path}/tyk/batch/` takes batches (gateway/batch-requests.ts). */
  batchRequests?: boolean;
  /** `use_mutual_tls_auth` with `client_certificates`: the certificates a client must present (gateway/client-certificate-check.ts). */
  mutualTls?: MutualTls;
  /** `enable_context_vars`: the request's context variables exist (else `$svc_context.*` is empty, as in Tyk). */
  enableContextVars?: boolean;

  /** A versioned API: its versions (each an ApiSpec of its own, without `versioning`). */
  versioning?: ApiVersioning;
  /** The version this spec serves (a key of `versioning.versions`); absent on the base of a versioned API. */
  versionName?: string;
  /**
   * Expiry dates, in milliseconds since the epoch (UTC; NaN: a date Tyk cannot parse, which counts
   * as expired): the API's `expiration` and the served version's `expires`. A versioned API refuses
   * requests past the version's date (Tyk's VersionExpired), a not-versioned one past the API's
   * (APIExpired); the date is announced in X-Svc-Api-Expires (the API's, else the version's).
   */
  expiry?: { api?: number; version?: number; versioned: boolean };
  /** A not-versioned API whose versions leave Tyk no default one: every request is refused with this text. */
  versionProblem?: string;
}

/** `use_oauth2` with `oauth_meta` and `notifications` (Tyk's OAuth 2.0 server, auth/oauth2/). */
export interface OAuth2Settings {
  /** `oauth_meta.allowed_access_types`: the grants `/oauth/token` serves (authorization_code, refresh_token, client_credentials, password). */
  accessTypes: string[];
  /** `oauth_meta.allowed_authorize_types`: the response types `/oauth/authorize` serves (code, token). */
  authorizeTypes: string[];
  /** `oauth_meta.auth_login_redirect`: where `/oauth/authorize` sends the browser. */
  loginRedirect: string;
  /** `notifications.oauth_on_keychange_url` ('' = none) and the `X-Tyk-Shared-Secret` it gets. */
  keyChangeUrl: string;
  sharedSecret: string;
}

/** `upstream_auth.oauth`: a token from `tokenUrl` with one grant; `header` is the lower-case header the upstream gets it in. */
export interface UpstreamOAuth {
  kind: 'oauth';
  grant: 'client_credentials' | 'password';
  header: string;
  clientId: string;
  clientSecret: string;
  tokenUrl: string;
  scopes: string[];
  /** The password grant's resource owner (empty for client credentials). */
  username: string;
  password: string;
}

/** `upstream_auth`: HTTP Basic credentials or an OAuth token, in `header` (lower case). */
export type UpstreamAuth = { kind: 'basic'; header: string; username: string; password: string } | UpstreamOAuth;
