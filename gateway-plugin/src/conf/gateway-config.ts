/**
 * The gateway config file (`svc.conf`): JSON with Tyk's gateway config field names. Only the
 * fields the gateway reads are typed; the file may hold many more (Tyk's config is large), which
 * load with a warning each.
 */
import type { ReferenceConfig } from '../refs/resolver.js';

export interface StorageConfig {
  /** `redis`; absent storage = sessions and limits in memory. */
  type: string;
  host: string;
  port: number;
  username: string;
  password: string;
  database: number;
  enable_cluster: boolean;
  /** `host:port` entries (a cluster, or several hosts). */
  addrs: string[];
}

export interface GatewayConfig extends ReferenceConfig {
  listen_address: string;
  /** Default 8080. */
  listen_port: number;
  /** The management API's secret (`x-svc-authorization`). */
  secret: string;
  node_secret: string;
  /** 0 = the management API on `listen_port`. */
  control_api_port: number;
  /** A folder of API definitions (classic JSON, OAS JSON or YAML). */
  app_path: string;
  policies: { policy_source: string; policy_record_name: string; policy_path: string; policy_connection_string: string };
  /** Absent (undefined) = in memory. */
  storage?: StorageConfig;
  /** Tyk's: sessions read from `storage` are kept 10 s in each process unless `disable_cached_session_state` (the timeouts are read by no Tyk v5.14 code, nor here). */
  local_session_cache?: { disable_cached_session_state: boolean; cached_session_timeout: number; cached_session_eviction: number };
  /** With `cache_storage`: the response cache is in that Redis instead of `storage`'s (Tyk's cache connection). */
  enable_separate_cache_store: boolean;
  cache_storage?: StorageConfig;
  hash_keys: boolean;
  /** `murmur32` (Tyk's default when empty), `murmur64`, `murmur128`, `sha256`. */
  hash_key_function: string;
  /** Tyk's OAuth 2.0 server: access token lifetime in seconds (0: 3600). */
  oauth_token_expire?: number;
  /** Refresh token lifetime in seconds (0: 14 days). */
  oauth_refresh_token_expire?: number;
  /** Splits a client's redirect_uri into several ('' = one URI). */
  oauth_redirect_uri_separator?: string;
  /** The status of the OAuth server's errors (0: 403). */
  oauth_error_status_code?: number;
  /** Seconds an expired OAuth token stays in its client's list before a lapsed purge drops it (0: never). */
  oauth_token_expired_retain_period?: number;
  enable_shared_store_rolling_limiter: boolean;
  enable_sentinel_rate_limiter: boolean;
  enable_non_transactional_rate_limiter: boolean;
  enable_fixed_window_rate_limiter: boolean;
  /** Requests per second per instance below which the distributed limiter hands a limit to the rolling log (0 = Tyk's 5). */
  drl_threshold: number;
  /** What X-RateLimit-* carry: `quotas` (Tyk's default) or `rate_limits`. */
  rate_limit_response_headers: string;
  /** While the shared store (Redis) cannot count a request: true admits it, false (default) answers 429 as Tyk does. */
  rate_limit_fail_open: boolean;
  /** APIs answer on their `domain` only (Tyk's custom domains); the others on `hostname` when set. */
  enable_custom_domains: boolean;
  /** The host every API without a domain answers on ('' = any), as Tyk's `hostname`. */
  hostname: string;
  /** Tyk's `http_server_options` the gateway reads: `xff_depth`, which X-Forwarded-For entry is the client (0: the leftmost). Absent: 0. */
  http_server_options?: {
    xff_depth: number;
    /** `use_ssl`: the gateway's port serves HTTPS with `certificates` (`domain_name`, `cert_file`, `key_file`), from `min_version` (Go's number). */
    use_ssl?: boolean;
    certificates?: Array<{ domain_name: string; cert_file: string; key_file: string }>;
    min_version?: number;
    /** Go cipher suite names the HTTPS port accepts (TLS 1.2 ones; TLS 1.3 suites are not configurable, as in Go). */
    ssl_ciphers?: string[];
    /** A listen path without a trailing slash or `{name}` answers only itself and what is under it (`/app` 404s `/apple`). */
    enable_strict_routes?: boolean;
    /** Endpoint patterns starting with `/` match at the start of the path only (`^`). */
    enable_path_prefix_matching?: boolean;
    /** Endpoint patterns match at the end of the path only (`$`). */
    enable_path_suffix_matching?: boolean;
  };
  /** Seconds (a fraction allowed) the proxy gives a request up to the upstream's response headers; 0 = `gateway_proxy.timeout`. */
  proxy_default_timeout: number;
  /** The folder `conf` was read from: relative paths in it resolve against this. */
  baseDir: string;
}
