/**
 * svc.conf's fields the gateway reads (the "implemented" list): their type and default (Tyk's
 * `config/config.go`, and its shipped `tyk.conf` where config.go leaves a zero value the docs do
 * not mean). Tyk's other fields are in `apis/field-support.ts`: ignored (a warning when set) or
 * not implemented (refused when turned on); a field in neither is unknown: a warning. One `f`
 * spec, read by the engine's config-document loader (positions in every error).
 */
import { f } from '@svc/engine';

const str = (d = '') => f.string().default(d);
const int = (d = 0, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  f
    .int()
    .default(d)
    .validate((n) => (n < min || n > max ? `expected an integer from ${min} to ${max}, got ${n}` : undefined));
const bool = (d = false) => f.bool().default(d);

/** Tyk's StorageOptionsConf as svc reads it (`storage`, `cache_storage`); Tyk's defaults fill it. */
const STORAGE = f.object({
  type: str('redis'),
  host: str('localhost'),
  port: int(6379, 0, 65535),
  username: str(),
  password: str(),
  database: int(0),
  enable_cluster: bool(),
  addrs: f.array(f.string()).default([]),
});

const TLS = f.object({ address: str(), ca_path: str(), ca_file: str(), cert_file: str(), key_file: str(), insecure_skip_verify: bool() });

export const GATEWAY_CONFIG_SPEC = f.object({
  listen_address: str(),
  listen_port: int(8080, 0, 65535),
  // Tyk's built-in default secret is a published constant: no default here, set one.
  secret: str(),
  node_secret: str(),
  control_api_port: int(0, 0, 65535),
  app_path: str('apps/'),
  policies: f.object({ policy_source: str(), policy_record_name: str(), policy_path: str(), policy_connection_string: str() }),
  // Absent = sessions and limits in memory; present, Tyk's defaults fill it.
  storage: STORAGE.optional(),
  // Tyk's local session cache (sessions/cached-store.ts): 10 s per process; v5.14 reads neither timeout field.
  local_session_cache: f.object({ disable_cached_session_state: bool(), cached_session_timeout: int(0), cached_session_eviction: int(0) }),
  // The response cache's own Redis (Tyk's cache connection), when enable_separate_cache_store.
  enable_separate_cache_store: bool(),
  cache_storage: STORAGE.optional(),
  // tyk.conf as Tyk ships it turns hashing on; config.go's zero value would store keys in the clear.
  hash_keys: bool(true),
  hash_key_function: str(),
  // Tyk's OAuth 2.0 server (auth/oauth2/): token lifetimes in seconds (0: 3600 and 14 days), the
  // separator of a client's several redirect URIs ('' = one), the status of its errors (0: 403).
  oauth_token_expire: int(0),
  oauth_refresh_token_expire: int(0),
  oauth_redirect_uri_separator: str(),
  oauth_error_status_code: int(0, 0, 599),
  // Seconds an expired token stays in its client's list before DELETE /svc/oauth/tokens?scope=lapsed drops it (0: never).
  oauth_token_expired_retain_period: int(0),
  enable_shared_store_rolling_limiter: bool(),
  // Tyk's own name of the same switch (tyk.conf): read into enable_shared_store_rolling_limiter.
  enable_redis_rolling_limiter: bool(),
  enable_sentinel_rate_limiter: bool(),
  enable_non_transactional_rate_limiter: bool(),
  enable_fixed_window_rate_limiter: bool(),
  drl_threshold: int(0),
  // Tyk's: "quotas" (the default, also when empty) or "rate_limits".
  rate_limit_response_headers: str('quotas'),
  // svc's own: what a request gets while the shared store cannot count it (false: 429, as Tyk).
  rate_limit_fail_open: bool(),
  // Tyk's routing by Host: an API's `domain` (and `hostname`, for the APIs without one) only with it.
  enable_custom_domains: bool(),
  hostname: str(),
  // Tyk's server options read here: xff_depth (the client address of the IP lists) and HTTPS
  // (gateway/gateway-tls.ts); the others are in field-support.ts.
  http_server_options: f.object({
    xff_depth: int(0),
    use_ssl: bool(),
    certificates: f.array(f.object({ domain_name: str(), cert_file: str(), key_file: str() })).default([]),
    // Go's tls version numbers: 769 TLS 1.0, 770 1.1, 771 1.2, 772 1.3; 0: Go's default (1.2).
    min_version: int(0, 0, 772),
    // Go cipher suite names (TLS 1.2; languages/go-cipher-suites.ts); empty: Node's defaults.
    ssl_ciphers: f.array(f.string()).default([]),
    // Tyk's routing and endpoint matching switches (apis/endpoints.ts, gateway/api-router.ts).
    enable_strict_routes: bool(),
    enable_path_prefix_matching: bool(),
    enable_path_suffix_matching: bool(),
  }),
  // Tyk's float64 seconds; 0 (its zero value): the proxy's own `timeout` (30 s, Tyk's default too).
  proxy_default_timeout: f
    .float()
    .default(0)
    .validate((v) => (v < 0 ? `expected a number of seconds, 0 or more, got ${v}` : undefined)),
  secrets: f.map(f.string()).default({}),
  kv: f.object({
    kvstore: f
      .object({
        address: str(),
        scheme: str('http'),
        datacenter: str(),
        http_auth: f.object({ username: str(), password: str() }),
        wait_time: int(0),
        token: str(),
        tls_config: TLS,
      })
      .optional(),
    secretstore: f.object({ address: str(), agent_address: str(), max_retries: int(0), timeout: int(0), token: str(), kv_version: int(2) }).optional(),
  }),
});

/**
 * The svc.conf fields that may hold an external reference (docs/spec/gateway.md's list); those the gateway
 * reads are resolved once, at load. The others are read by no part of this gateway.
 */
export const REFERENCE_FIELDS = ['secret', 'node_secret', 'storage.password', 'cache_storage.password', 'policies.policy_connection_string'] as const;
