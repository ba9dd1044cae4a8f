/**
 * A loaded API in Tyk's classic form, as Tyk v5.14.0's `GET /tyk/apis` and `GET /tyk/apis/{id}`
 * answer it: the `apidef.APIDefinition` Tyk holds, written by encoding/json (every field, its zero
 * value when unset). A classic definition is its file decoded into that struct; an OAS one is what
 * Tyk's `OAS.ExtractTo` (apidef/oas) makes of it, for the fields svc serves (the loader refuses the
 * others): info (versioning too), state, upstream (url, rateLimit, preserveHostHeader), server (listenPath,
 * authentication with a key or a JWT, ipAccessControl), middleware.global (cors, header
 * transforms, requestSizeLimit, contextVariables, ignoreCase, skips) and the operations' allow,
 * block, ignoreAuthentication, internal, transformRequestMethod, body and header transforms, urlRewrite,
 * requestSizeLimit and rateLimit (Tyk leaves validateRequest and mockResponse out of the classic form).
 */
import type { ApiSpec } from './api-spec.js';
import { CLASSIC_SHAPE } from './classic-shape.js';
import { goEncode } from '../languages/go-shape.js';
import { OAS_EXTENSION, tykPathLess } from './oas.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const on = (v: unknown): boolean => isObj(v) && v['enabled'] === true;

/** The JSON text Tyk answers for the API (no final newline). */
export function classicForm(api: ApiSpec): string {
  return goEncode(CLASSIC_SHAPE, api.format === 'oas' ? oasExtract(obj(api.definition)) : api.definition);
}

const UNIT_SECONDS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, μs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** A ReadableDuration's Seconds() (0 for one Go's ParseDuration refuses). */
function seconds(v: unknown): number {
  if (typeof v !== 'string') return 0;
  const parts = [...v.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)];
  if (parts.map((p) => p[0]).join('') !== v) return 0;
  return Math.floor(parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_SECONDS[p[2]!]!, 0) * 1e9) / 1e9;
}

/** TransformHeaders.ExtractTo: disabled, delete_headers, add_headers. */
function headerMeta(t: unknown): { disabled: boolean; delete_headers: unknown; add_headers: Obj } {
  const th = obj(t);
  const add: Obj = {};
  for (const h of Array.isArray(th['add']) ? th['add'] : []) if (isObj(h)) add[String(h['name'] ?? '')] = h['value'] ?? '';
  return { disabled: th['enabled'] !== true, delete_headers: th['remove'], add_headers: add };
}

const INPUTS: Record<string, string> = {
  header: 'header_matches',
  query: 'query_val_matches',
  path: 'path_part_matches',
  sessionMetadata: 'session_meta_matches',
  requestContext: 'request_context_matches',
};

/** URLRewrite.ExtractTo. */
function urlRewrite(u: Obj): Obj {
  const triggers = (Array.isArray(u['triggers']) ? u['triggers'] : []).map((t) => {
    const trigger = obj(t);
    const options: Obj = {
      header_matches: {},
      query_val_matches: {},
      path_part_matches: {},
      session_meta_matches: {},
      request_context_matches: {},
      payload_matches: {},
    };
    for (const r of Array.isArray(trigger['rules']) ? trigger['rules'] : []) {
      const rule = obj(r);
      const item = { match_rx: rule['pattern'], reverse: rule['negate'] };
      const where = INPUTS[String(rule['in'])];
      if (rule['in'] === 'requestBody') options['payload_matches'] = item;
      else if (where) (options[where] as Obj)[String(rule['name'] ?? '')] = item;
    }
    return { on: trigger['condition'], options, rewrite_to: trigger['rewriteTo'] };
  });
  return { disabled: u['enabled'] !== true, match_pattern: u['pattern'], rewrite_to: u['rewriteTo'], triggers: triggers.length ? triggers : null };
}

/** OAS.extractPathsAndOperations: each operation's entries, paths in PathLess order. */
function extendedPaths(doc: Obj, operations: Obj): Obj {
  const ep: Record<string, Obj[]> = {};
  const add = (list: string, entry: Obj): void => {
    (ep[list] ??= []).push(entry);
  };
  const paths = Object.keys(obj(doc['paths'])).sort((x, y) => (tykPathLess(x, y) ? -1 : tykPathLess(y, x) ? 1 : 0));
  for (const path of paths) {
    for (const [m, op] of Object.entries(obj(obj(doc['paths'])[path]))) {
      const id = obj(op)['operationId'];
      if (typeof id !== 'string' || !isObj(operations[id])) continue;
      const o = operations[id];
      const method = m.toUpperCase();
      const at = { path, method };
      for (const [field, list] of [
        ['allow', 'white_list'],
        ['block', 'black_list'],
        ['ignoreAuthentication', 'ignored'],
      ] as const)
        if (isObj(o[field])) add(list, { disabled: o[field]['enabled'] !== true, ...at, ignore_case: o[field]['ignoreCase'] });
      if (isObj(o['internal'])) add('internal', { disabled: o['internal']['enabled'] !== true, ...at });
      if (isObj(o['transformRequestMethod']))
        add('method_transforms', { disabled: o['transformRequestMethod']['enabled'] !== true, ...at, to_method: o['transformRequestMethod']['toMethod'] });
      for (const [field, list] of [
        ['transformRequestBody', 'transform'],
        ['transformResponseBody', 'transform_response'],
      ] as const) {
        const t = o[field];
        if (!isObj(t)) continue;
        const blob = typeof t['body'] === 'string' && t['body'] !== '';
        add(list, {
          disabled: t['enabled'] !== true,
          template_data: {
            input_type: t['format'],
            template_mode: blob ? 'blob' : 'file',
            enable_session: true,
            template_source: blob ? t['body'] : t['path'],
          },
          ...at,
        });
      }
      if (isObj(o['transformRequestHeaders'])) add('transform_headers', { ...headerMeta(o['transformRequestHeaders']), ...at });
      if (isObj(o['transformResponseHeaders'])) add('transform_response_headers', { ...headerMeta(o['transformResponseHeaders']), ...at });
      if (isObj(o['urlRewrite'])) add('url_rewrites', { ...urlRewrite(o['urlRewrite']), ...at });
      if (isObj(o['requestSizeLimit']))
        add('size_limits', { disabled: o['requestSizeLimit']['enabled'] !== true, ...at, size_limit: o['requestSizeLimit']['value'] });
      if (isObj(o['rateLimit']))
        add('rate_limit', {
          disabled: o['rateLimit']['enabled'] !== true,
          ...at,
          rate: o['rateLimit']['rate'],
          per: seconds(o['rateLimit']['per']),
        });
    }
  }
  return ep;
}

/** A security scheme's auth sources (AuthSources.ExtractTo) over `ac`. */
function authSources(scheme: Obj, ac: Obj): void {
  if (isObj(scheme['header'])) {
    ac['disable_header'] = scheme['header']['enabled'] !== true;
    ac['auth_header_name'] = scheme['header']['name'];
  } else ac['disable_header'] = true;
  if (isObj(scheme['query'])) {
    ac['use_param'] = scheme['query']['enabled'];
    ac['param_name'] = scheme['query']['name'];
  }
  if (isObj(scheme['cookie'])) {
    ac['use_cookie'] = scheme['cookie']['enabled'];
    ac['cookie_name'] = scheme['cookie']['name'];
  }
}

/** OAS.extractSecurityTo (legacy processing mode) for key and JWT schemes. */
function security(doc: Obj, auth: Obj, api: Obj): void {
  api['use_keyless'] = auth['enabled'] !== true;
  api['strip_auth_data'] = auth['stripAuthorizationData'];
  api['base_identity_provided_by'] = auth['baseIdentityProvider'];
  const configs: Obj = {};
  api['auth_configs'] = configs;
  const requirements = Array.isArray(doc['security']) ? doc['security'].filter(isObj) : [];
  const declared = obj(obj(doc['components'])['securitySchemes']);
  if (requirements.length === 0 || Object.keys(declared).length === 0) return;
  if (requirements.length > 1) {
    api['security_requirements'] = requirements.map((r) => Object.keys(r));
    api['security_requirement_scopes'] = requirements;
  } else {
    const [only] = requirements as [Obj];
    if (Object.keys(only).length > 1) api['security_requirements'] = [Object.keys(only)];
    api['security_requirement_scopes'] = [only];
  }
  const tykSchemes = obj(auth['securitySchemes']);
  if (!(auth['enabled'] === true || Object.keys(tykSchemes).length > 0)) return;
  for (const name of Object.keys(requirements[0]!)) {
    const d = obj(declared[name]);
    const tyk = isObj(tykSchemes[name]) ? tykSchemes[name] : undefined;
    if (d['type'] === 'apiKey') {
      const ac: Obj = isObj(configs['authToken']) ? configs['authToken'] : { disable_header: true };
      if (tyk) authSources(tyk, ac);
      api['use_standard_auth'] = tyk?.['enabled'] === true;
      ac['name'] = name;
      if (d['in'] === 'header') {
        ac['auth_header_name'] = d['name'];
        ac['disable_header'] = false;
      } else if (d['in'] === 'query') {
        ac['param_name'] = d['name'];
        ac['use_param'] = true;
      } else if (d['in'] === 'cookie') {
        ac['cookie_name'] = d['name'];
        ac['use_cookie'] = true;
      }
      configs['authToken'] = ac;
    } else if (d['type'] === 'http' && d['scheme'] === 'bearer' && d['bearerFormat'] === 'JWT') {
      const ac: Obj = { name, disable_header: true };
      if (tyk) {
        api['enable_jwt'] = tyk['enabled'];
        authSources(tyk, ac);
        api['jwt_source'] = tyk['source'];
        api['jwt_signing_method'] = tyk['signingMethod'];
        api['jwt_identity_base_field'] = tyk['identityBaseField'];
        api['jwt_skip_kid'] = tyk['skipKid'];
        api['jwt_policy_field_name'] = tyk['policyFieldName'];
        api['jwt_client_base_field'] = tyk['clientBaseField'];
        if (isObj(tyk['scopes'])) {
          const mapping: Obj = {};
          for (const m of Array.isArray(tyk['scopes']['scopeToPolicyMapping']) ? tyk['scopes']['scopeToPolicyMapping'] : [])
            if (isObj(m)) mapping[String(m['scope'] ?? '')] = m['policyId'] ?? '';
          api['scopes'] = { jwt: { scope_claim_name: tyk['scopes']['claimName'], scope_to_policy: mapping } };
        }
        api['jwt_default_policies'] = tyk['defaultPolicies'];
        api['jwt_issued_at_validation_skew'] = tyk['issuedAtValidationSkew'];
        api['jwt_not_before_validation_skew'] = tyk['notBeforeValidationSkew'];
        api['jwt_expires_at_validation_skew'] = tyk['expiresAtValidationSkew'];
        api['idp_client_id_mapping_disabled'] = tyk['idpClientIdMappingDisabled'];
      }
      configs['jwt'] = ac;
    }
  }
}

/** Versioning.ExtractTo: `info.versioning` as the classic `definition` (versions as a name → id map, nil when none). */
function versionDefinition(v: Obj): Obj {
  const list = Array.isArray(v['versions']) ? v['versions'].filter(isObj) : [];
  return {
    enabled: v['enabled'],
    name: v['name'],
    default: v['default'],
    location: v['location'],
    key: v['key'],
    versions: list.length > 0 ? Object.fromEntries(list.map((e) => [String(e['name'] ?? ''), e['id'] ?? ''])) : null,
    strip_versioning_data: v['stripVersioningData'],
    url_versioning_pattern: v['urlVersioningPattern'],
    fallback_to_default: v['fallbackToDefault'],
  };
}

/** OAS.ExtractTo: the classic definition Tyk holds for an OAS one (before encoding). */
function oasExtract(doc: Obj): Obj {
  const x = obj(doc[OAS_EXTENSION]);
  const info = obj(x['info']);
  const upstream = obj(x['upstream']);
  const server = obj(x['server']);
  const global = obj(obj(x['middleware'])['global']);
  const rate = obj(upstream['rateLimit']);
  const ip = obj(server['ipAccessControl']);
  const cors = obj(global['cors']);
  const size = obj(global['requestSizeLimit']);
  const reqHeaders = headerMeta(global['transformRequestHeaders']);
  const resHeaders = headerMeta(global['transformResponseHeaders']);
  const listen = obj(server['listenPath']);
  const ratePer = seconds(rate['per']);
  const api: Obj = {
    // SetDisabledFlags, then each part's ExtractTo with its zero value when absent.
    custom_middleware: { auth_check: { disabled: true }, id_extractor: { disabled: true } },
    tags_disabled: true,
    upstream_certificates_disabled: true,
    certificate_pinning_disabled: true,
    custom_middleware_bundle_disabled: true,
    domain: obj(server['customDomain'])['name'],
    domain_disabled: obj(server['customDomain'])['enabled'] !== true,
    config_data_disabled: true,
    uptime_tests: { disabled: true, config: { service_discovery: { cache_disabled: true } } },
    do_not_track: true,
    error_overrides_disabled: true,
    event_handlers: { events: {} },
    api_id: info['id'],
    id: info['dbId'],
    org_id: info['orgId'],
    name: info['name'],
    expiration: info['expiration'],
    definition: versionDefinition(obj(info['versioning'])),
    active: obj(info['state'])['active'],
    internal: obj(info['state'])['internal'],
    proxy: {
      target_url: upstream['url'],
      listen_path: listen['value'],
      strip_listen_path: listen['strip'],
      preserve_host_header: on(upstream['preserveHostHeader']),
      service_discovery: { cache_disabled: true },
    },
    global_rate_limit: { disabled: rate['enabled'] !== true, rate: rate['rate'], per: ratePer },
    protocol: server['protocol'],
    listen_port: server['port'],
    ip_access_control_disabled: ip['enabled'] !== true,
    blacklisted_ips: ip['block'],
    allowed_ips: ip['allow'],
    CORS: {
      enable: cors['enabled'],
      max_age: cors['maxAge'],
      allow_credentials: cors['allowCredentials'],
      exposed_headers: cors['exposedHeaders'],
      allowed_headers: cors['allowedHeaders'],
      options_passthrough: cors['optionsPassthrough'],
      debug: cors['debug'],
      allowed_origins: cors['allowedOrigins'],
      allowed_methods: cors['allowedMethods'],
    },
    enable_context_vars: on(global['contextVariables']),
    disable_rate_limit: global['skipRateLimit'],
    disable_quota: global['skipQuota'],
    dont_set_quota_on_create: global['skipQuotaReset'],
    is_oas: true,
    version_data: {
      not_versioned: true,
      default_version: '',
      versions: {
        '': {
          use_extended_paths: true,
          extended_paths: extendedPaths(doc, obj(obj(x['middleware'])['operations'])),
          global_headers: reqHeaders.add_headers,
          global_headers_remove: reqHeaders.delete_headers,
          global_headers_disabled: reqHeaders.disabled,
          global_response_headers: resHeaders.add_headers,
          global_response_headers_remove: resHeaders.delete_headers,
          global_response_headers_disabled: resHeaders.disabled,
          ignore_endpoint_case: on(global['ignoreCase']),
          global_size_limit: size['value'] ? size['value'] : 0,
          global_size_limit_disabled: size['value'] ? size['enabled'] !== true : true,
          global_enforce_timeout_disabled: true,
        },
      },
    },
  };
  security(doc, obj(server['authentication']), api);
  return api;
}
