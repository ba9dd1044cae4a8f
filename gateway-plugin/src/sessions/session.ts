/**
 * A session (an access key's state) and a policy, in the JSON shapes Tyk stores and its
 * management API sends (`user/session.go`, `user/policy.go`): snake_case, as they are written to
 * Redis and read back. Fields the gateway does not use yet are kept as they come.
 */

export interface AccessLimit {
  rate?: number;
  per?: number;
  quota_max?: number;
  quota_renewal_rate?: number;
  quota_remaining?: number;
  quota_renews?: number;
  smoothing?: Smoothing;
}

export interface Smoothing {
  enabled: boolean;
  threshold: number;
  trigger: number;
  step: number;
  delay: number;
}

export interface AllowedUrl {
  url: string;
  methods: string[];
}

export interface AccessDefinition {
  api_name?: string;
  api_id: string;
  versions?: string[];
  allowed_urls?: AllowedUrl[];
  limit?: AccessLimit;
  [field: string]: unknown;
}

export interface SessionState {
  allowance?: number;
  rate?: number;
  per?: number;
  quota_max?: number;
  quota_renews?: number;
  quota_remaining?: number;
  quota_renewal_rate?: number;
  access_rights?: Record<string, AccessDefinition>;
  org_id?: string;
  jwt_data?: { secret?: string };
  is_inactive?: boolean;
  apply_policy_id?: string;
  apply_policies?: string[];
  /** Unix seconds; 0 or absent: never. */
  expires?: number;
  meta_data?: Record<string, unknown>;
  tags?: string[];
  alias?: string;
  smoothing?: Smoothing;
  /** A basic auth user's password (`hash_type`: bcrypt, the default, plaintext, sha256 or murmur32/64/128). */
  basic_auth_data?: { password?: string; hash_type?: string };
  [field: string]: unknown;
}

export interface Policy {
  id: string;
  _id?: string;
  name?: string;
  org_id?: string;
  rate?: number;
  per?: number;
  quota_max?: number;
  quota_renewal_rate?: number;
  access_rights?: Record<string, AccessDefinition>;
  active?: boolean;
  is_inactive?: boolean;
  tags?: string[];
  key_expires_in?: number;
  partitions?: { quota?: boolean; rate_limit?: boolean; complexity?: boolean; acl?: boolean; per_api?: boolean };
  meta_data?: Record<string, unknown>;
  smoothing?: Smoothing;
  [field: string]: unknown;
}
