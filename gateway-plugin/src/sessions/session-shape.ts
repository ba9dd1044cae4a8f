/**
 * A session posted to the management API, checked as Go's encoding/json would decode it into
 * Tyk's `user.SessionState` (user/session.go, v5.14.0): a JSON value of the wrong type for its Go
 * field is an error (`is_inactive: "true"`, `expires: "never"`, `quota_max: 1.5`), where Tyk
 * answers 400 "Request malformed". As in Go, `null` leaves a field at its zero value and unknown
 * fields are ignored; one stricter rule: an access definition must be an object, not `null` (Go
 * would store an empty one, which then matches no API version).
 */
import { childPath, isObject, kindOf } from '../apis/fields.js';

type GoType = 'string' | 'bool' | 'int' | 'float' | 'time' | 'any' | { list: GoType } | { map: GoType; entryRequired?: boolean } | { struct: Shape };
type Shape = Record<string, GoType>;

const STRINGS: GoType = { list: 'string' };
const RATE: Shape = { rate: 'float', per: 'float', smoothing: { struct: {} } };
const LIMIT: Shape = {
  ...RATE,
  throttle_interval: 'float',
  throttle_retry_limit: 'int',
  max_query_depth: 'int',
  quota_max: 'int',
  quota_renews: 'int',
  quota_remaining: 'int',
  quota_renewal_rate: 'int',
};
const ACCESS: Shape = {
  api_name: 'string',
  api_id: 'string',
  versions: STRINGS,
  allowed_urls: { list: { struct: { url: 'string', methods: STRINGS } } },
  restricted_types: { list: { struct: { name: 'string', fields: STRINGS } } },
  allowed_types: { list: { struct: { name: 'string', fields: STRINGS } } },
  limit: { struct: LIMIT },
  field_access_rights: { list: { struct: { type_name: 'string', field_name: 'string' } } },
  disable_introspection: 'bool',
  allowance_scope: 'string',
  endpoints: { list: { struct: { path: 'string', methods: { list: { struct: { name: 'string', limit: { struct: RATE } } } } } } },
  json_rpc_methods: { list: { struct: {} } },
  json_rpc_methods_access_rights: { struct: {} },
  mcp_primitives: { list: { struct: {} } },
  mcp_access_rights: { struct: {} },
};
const SESSION: Shape = {
  last_check: 'int',
  allowance: 'float',
  rate: 'float',
  per: 'float',
  throttle_interval: 'float',
  throttle_retry_limit: 'int',
  max_query_depth: 'int',
  date_created: 'time',
  expires: 'int',
  quota_max: 'int',
  quota_renews: 'int',
  quota_remaining: 'int',
  quota_renewal_rate: 'int',
  access_rights: { map: { struct: ACCESS }, entryRequired: true },
  org_id: 'string',
  oauth_client_id: 'string',
  oauth_keys: { map: 'string' },
  certificate: 'string',
  mtls_static_certificate_bindings: STRINGS,
  basic_auth_data: { struct: { password: 'string', hash_type: 'string' } },
  jwt_data: { struct: { secret: 'string' } },
  hmac_enabled: 'bool',
  enable_http_signature_validation: 'bool',
  hmac_string: 'string',
  rsa_certificate_id: 'string',
  is_inactive: 'bool',
  apply_policy_id: 'string',
  apply_policies: STRINGS,
  data_expires: 'int',
  monitor: { struct: { trigger_limits: { list: 'float' } } },
  enable_detail_recording: 'bool',
  enable_detailed_recording: 'bool',
  meta_data: { map: 'any' },
  tags: STRINGS,
  alias: 'string',
  last_updated: 'string',
  id_extractor_deadline: 'int',
  session_lifetime: 'int',
  post_expiry_action: 'string',
  post_expiry_grace_period: 'int',
  smoothing: { struct: {} },
};

/** Go's time.Time accepts RFC 3339 text only. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** Why `v` would not decode into `type` (at `path`), or undefined. */
function problem(v: unknown, type: GoType, path: string): string | undefined {
  if (v === null || type === 'any') return undefined;
  const expected = (what: string) => `${path}: expected ${what}, got ${kindOf(v)}`;
  if (type === 'string') return typeof v === 'string' ? undefined : expected('a string');
  if (type === 'bool') return typeof v === 'boolean' ? undefined : expected('true or false');
  if (type === 'float') return typeof v === 'number' ? undefined : expected('a number');
  if (type === 'int') {
    if (typeof v !== 'number') return expected('an integer');
    // Go's int and int64 (64-bit): a fraction or a value past 2^63 does not decode.
    return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? undefined : `${path}: expected a 64-bit integer, got ${v}`;
  }
  if (type === 'time') return typeof v === 'string' && RFC3339.test(v) ? undefined : expected('an RFC 3339 time');
  if ('list' in type) {
    if (!Array.isArray(v)) return expected('an array');
    for (let i = 0; i < v.length; i++) {
      const p = problem(v[i], type.list, childPath(path, i));
      if (p !== undefined) return p;
    }
    return undefined;
  }
  if (!isObject(v)) return expected('an object');
  if ('map' in type) {
    for (const [k, entry] of Object.entries(v)) {
      if (entry === null && type.entryRequired) return `${childPath(path, k)}: expected an object, got null`;
      const p = problem(entry, type.map, childPath(path, k));
      if (p !== undefined) return p;
    }
    return undefined;
  }
  return shapeProblem(v, type.struct, path);
}

function shapeProblem(v: Record<string, unknown>, shape: Shape, path: string): string | undefined {
  for (const [field, type] of Object.entries(shape)) {
    if (!Object.hasOwn(v, field)) continue;
    const p = problem(v[field], type, childPath(path, field));
    if (p !== undefined) return p;
  }
  return undefined;
}

/** Why `body` is not a session Tyk's API would accept, or undefined when it is. */
export function sessionProblem(body: unknown): string | undefined {
  if (!isObject(body)) return `expected a JSON object (a session), got ${kindOf(body)}`;
  return shapeProblem(body, SESSION, '');
}
