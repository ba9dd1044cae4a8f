/**
 * An OAS 3 definition with the `x-svc-api-gateway` extension (Tyk's `x-tyk-api-gateway`,
 * renamed) as an {@link ApiSpec}: Tyk's OAS field table (docs/spec/gateway.md), and Tyk v5's `apidef/oas` names
 * where docs/spec/gateway.md is silent. Operations (`middleware.operations.<operationId>`) take their path and
 * method from the OpenAPI `paths`.
 */
import type {
  ApiSpec,
  ChildVersioning,
  CredentialSource,
  EndpointListEntry,
  EndpointRateLimit,
  EndpointSizeLimit,
  HeaderEdit,
  JwtSettings,
  SplitTokenEndpoint,
  UrlRewriteRule,
} from './api-spec.js';
import { errorMessage } from '@svc/engine';
import { compileJsonSchema, type JsonSchemaNode } from '../languages/json-schema.js';
import type { OasRequestBody } from '../languages/oas-request-validation.js';
import type { OasParameter } from '../languages/oas-parameters.js';
import { templateSource } from './body-templates.js';
import { checkedHost } from './host-template.js';
import { Fields, isObject } from './fields.js';
import { oasRewrite } from './url-rewrites.js';
import { cacheOptionsOf, endpointCacheOf, goDurationMs, loadBalancingTargets, upstreamTls } from './traffic-fields.js';
import {
  corsOf,
  durationSeconds,
  endpointPattern,
  listenPathOf,
  checkedEndpointPattern,
  checkedListPattern,
  checkedRegexp,
  signingMethodOf,
  targetUrlOf,
} from './normalise.js';

export const OAS_EXTENSION = 'x-svc-api-gateway';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Operation {
  id: string;
  path: string;
  method: string;
}

export function parseOas(root: Fields, definition: unknown, file: string | undefined, fallbackId: string): ApiSpec {
  const ext = root.obj(OAS_EXTENSION) ?? root.fail(OAS_EXTENSION, 'required in an OAS definition (the gateway settings: info, upstream, server)');
  const info = ext.obj('info');
  const upstream = ext.obj('upstream') ?? ext.fail('upstream', 'required (an object with url)');
  const server = ext.obj('server') ?? ext.fail('server', 'required (an object with listenPath)');
  const listen = server.obj('listenPath') ?? server.fail('listenPath', 'required (an object with value)');
  const id = info?.str('id') || fallbackId;
  if (id === '') (info ?? ext).fail(info ? 'id' : 'info', 'required (the API id)');
  const auth = authentication(root, server);
  const rate = upstream.obj('rateLimit');
  const global = ext.obj('middleware')?.obj('global');
  const ip = server.obj('ipAccessControl');
  const ipOn = ip?.bool('enabled') ?? false;
  const size = global?.obj('requestSizeLimit');
  const cors = corsOf(global?.obj('cors'), {
    enabled: 'enabled',
    allowedOrigins: 'allowedOrigins',
    allowedMethods: 'allowedMethods',
    allowedHeaders: 'allowedHeaders',
    exposedHeaders: 'exposedHeaders',
    allowCredentials: 'allowCredentials',
    maxAge: 'maxAge',
    optionsPassthrough: 'optionsPassthrough',
  });
  return {
    id,
    name: info?.str('name') || root.obj('info')?.str('title') || '',
    orgId: info?.str('orgId') ?? '',
    active: info?.obj('state')?.bool('active', true) ?? true,
    format: 'oas',
    ...(file === undefined ? {} : { file }),
    definition,
    ...(info?.obj('state')?.bool('internal') ? { internal: true } : {}),
    ...customDomain(server.obj('customDomain')),
    ...childVersionsOf(info?.obj('versioning')),
    listenPath: listenPathOf(listen, 'value'),
    stripListenPath: listen.bool('strip'),
    targetUrl: targetUrlOf(upstream, 'url'),
    preserveHostHeader: upstream.obj('preserveHostHeader')?.bool('enabled') ?? false,
    ...upstreamTraffic(upstream),
    ...optionalField('cache', cacheOptionsOf(global?.obj('cache'), OAS_CACHE)),
    ...auth,
    // rateLimit.enabled false is Tyk's global_rate_limit.disabled: no API-level limit.
    globalRateLimit: rate && rate.bool('enabled') ? { rate: rate.count('rate'), per: durationSeconds(rate, 'per') } : { rate: 0, per: 0 },
    disableRateLimit: global?.bool('skipRateLimit') ?? false,
    enableContextVars: global?.obj('contextVariables')?.bool('enabled') ?? false,
    ...optionalEdit('globalHeaders', headerEdit(global?.obj('transformRequestHeaders'))),
    ...optionalEdit('globalResponseHeaders', headerEdit(global?.obj('transformResponseHeaders'))),
    ...(cors ? { cors } : {}),
    // Tyk: ip_access_control_disabled = !enabled; a list is on when it is not empty.
    ipAllow: ipOn ? ip!.strings('allow') : [],
    ipBlock: ipOn ? ip!.strings('block') : [],
    // Tyk applies the global limit whenever its size middleware is on: an operation with a
    // requestSizeLimit (even disabled) turns it on as an enabled global limit does.
    globalSizeLimit: size?.bool('enabled') || anySizeLimit(ext) ? (size?.count('value') ?? 0) : 0,
    ...operations(root, ext, global?.obj('ignoreCase')?.bool('enabled') ?? false),
  };
}

function optionalField<K extends keyof ApiSpec>(key: K, v: ApiSpec[K] | undefined): Partial<Pick<ApiSpec, K>> {
  return v === undefined ? {} : ({ [key]: v } as Partial<Pick<ApiSpec, K>>);
}

/** `middleware.global.cache` (Tyk's Cache.ExtractTo: classic `cache_options`). */
const OAS_CACHE = {
  enabled: 'enabled',
  timeout: 'timeout',
  allSafe: 'cacheAllSafeRequests',
  codes: 'cacheResponseCodes',
  upstreamControl: 'enableUpstreamCacheControl',
  ttlHeader: 'controlTTLHeaderName',
  byHeaders: 'cacheByHeaders',
};

/** Tyk's TLSTransport.tlsVersionFromString: "1.0" … "1.3" as Go's numbers ('' none). */
const OAS_TLS_VERSIONS: Record<string, number> = { '': 0, '1.0': 769, '1.1': 770, '1.2': 771, '1.3': 772 };

/**
 * The upstream's traffic settings as Tyk's Upstream.ExtractTo makes them classic:
 * `loadBalancing` (`targets` each repeated `weight` times, in order; on when `enabled` and there
 * are targets, else the `url`), `tlsTransport` (`proxy.transport`), `mutualTLS`
 * (`upstream_certificates` unless not `enabled`) and `enforceTimeout` (the version's
 * `global_enforce_timeout` when `enabled`).
 */
function upstreamTraffic(upstream: Fields): Pick<ApiSpec, 'loadBalancing' | 'upstreamTls' | 'upstreamCertificates' | 'globalEnforceTimeoutMs'> {
  const out: Pick<ApiSpec, 'loadBalancing' | 'upstreamTls' | 'upstreamCertificates' | 'globalEnforceTimeoutMs'> = {};
  const lb = upstream.obj('loadBalancing');
  const targets = lb?.list('targets') ?? [];
  if (lb !== undefined && targets.length > 0 && lb.bool('enabled')) {
    const expanded: string[] = [];
    for (const t of targets) for (let i = 0; i < t.count('weight'); i++) expanded.push(t.required('url'));
    out.loadBalancing = loadBalancingTargets(lb, 'targets', expanded);
  }
  const transport = upstream.obj('tlsTransport');
  if (transport !== undefined) {
    const version = (key: string): number => {
      const v = transport.str(key);
      const n = OAS_TLS_VERSIONS[v];
      return n ?? transport.fail(key, `expected a TLS version: "1.0", "1.1", "1.2" or "1.3", got ${JSON.stringify(v)}`);
    };
    const tls = upstreamTls(
      transport,
      'ciphers',
      {
        insecureSkipVerify: transport.bool('insecureSkipVerify'),
        minVersion: version('minVersion'),
        maxVersion: version('maxVersion'),
        ciphers: transport.strings('ciphers'),
      },
      (which) => `${which}Version`,
    );
    if (tls !== undefined) out.upstreamTls = tls;
  }
  const mtls = upstream.obj('mutualTLS');
  if (mtls?.bool('enabled') === true) {
    const map: Record<string, string> = {};
    for (const m of mtls.list('domainToCertificateMapping')) map[m.str('domain')] = m.str('certificate');
    if (Object.keys(map).length > 0) out.upstreamCertificates = map;
  }
  const enforce = upstream.obj('enforceTimeout');
  if (enforce?.bool('enabled') === true) {
    const ms = goDurationMs(enforce, 'duration');
    if (ms > 0) out.globalEnforceTimeoutMs = ms;
  }
  return out;
}

/** `server.customDomain`: `name` is the domain, on when `enabled` (Tyk's Domain.ExtractTo). */
function customDomain(d: Fields | undefined): Pick<ApiSpec, 'domain' | 'domainOn'> {
  if (d === undefined || d.str('name') === '') return {};
  return { domain: checkedHost(d, 'name'), domainOn: d.bool('enabled') };
}

/** `info.versioning` when enabled: versions as separate APIs (`versions[]`: name and API id). */
function childVersionsOf(v: Fields | undefined): { childVersions?: ChildVersioning } {
  if (!v?.bool('enabled')) return {};
  const location = v.str('location');
  return {
    childVersions: {
      name: v.str('name'),
      defaultVersion: v.str('default'),
      location: location === 'header' || location === 'url-param' || location === 'url' ? location : '',
      key: v.str('key'),
      strip: v.bool('stripVersioningData'),
      urlPattern: checkedRegexp(v, 'urlVersioningPattern'),
      fallbackToDefault: v.bool('fallbackToDefault'),
      versions: new Map(v.list('versions').map((e) => [e.str('name'), e.str('id')])),
    },
  };
}

function optionalEdit<K extends 'globalHeaders' | 'globalResponseHeaders'>(key: K, edit: HeaderEdit | undefined): Partial<Record<K, HeaderEdit>> {
  return (edit === undefined ? {} : { [key]: edit }) as Partial<Record<K, HeaderEdit>>;
}

type Auth = Pick<ApiSpec, 'keyless' | 'standardAuth' | 'jwt' | 'credential' | 'stripAuthData'>;

/**
 * `server.authentication`: off (or absent) = keyless. On: JWT when `authentication.jwt` is
 * there or an enabled scheme is the OpenAPI JWT scheme (type http, scheme bearer, bearerFormat
 * jwt); otherwise a key (the standard auth token). The scheme's header/query/cookie say where
 * the credential is.
 */
function authentication(root: Fields, server: Fields): Auth {
  const auth = server.obj('authentication');
  const none: Auth = { keyless: true, standardAuth: false, credential: { header: 'Authorization', query: '', cookie: '' }, stripAuthData: false };
  if (!auth || !auth.bool('enabled')) return { ...none, stripAuthData: auth?.bool('stripAuthorizationData') ?? false };
  const declared = root.obj('components')?.obj('securitySchemes');
  const schemes = auth.objects('securitySchemes').filter(([, s]) => s.bool('enabled'));
  const isJwtScheme = (name: string): boolean => {
    const s = declared?.raw(name);
    if (!isObject(s)) return false;
    return (
      s['type'] === 'http' &&
      typeof s['scheme'] === 'string' &&
      s['scheme'].toLowerCase() === 'bearer' &&
      typeof s['bearerFormat'] === 'string' &&
      s['bearerFormat'].toLowerCase() === 'jwt'
    );
  };
  const jwtScheme = schemes.find(([name]) => isJwtScheme(name));
  const jwtBlock = auth.obj('jwt');
  const jwtOn = jwtBlock ? jwtBlock.bool('enabled', true) : jwtScheme !== undefined;
  const chosen = jwtOn ? (jwtScheme ?? schemes[0]) : (schemes.find(([name]) => !isJwtScheme(name)) ?? schemes[0]);
  const jwt = jwtOn ? jwtSettings(jwtBlock ?? chosen?.[1] ?? auth) : undefined;
  return {
    keyless: false,
    standardAuth: !jwtOn,
    ...(jwt ? { jwt } : {}),
    credential: credentialSource(chosen?.[1], chosen ? declared?.obj(chosen[0]) : undefined),
    stripAuthData: auth.bool('stripAuthorizationData'),
  };
}

/**
 * Where the credential is: the OpenAPI apiKey scheme's `in`/`name` first, then the extension's
 * `header`, `query`, `cookie` ({enabled, name}); an enabled location without a name takes the
 * header's name, as Tyk does.
 */
function credentialSource(scheme: Fields | undefined, declared: Fields | undefined): CredentialSource {
  const out: CredentialSource = { header: 'Authorization', query: '', cookie: '' };
  if (declared?.str('type') === 'apiKey') {
    const name = declared.str('name');
    const where = declared.str('in');
    if (name && where === 'header') out.header = name;
    if (name && where === 'query') out.query = name;
    if (name && where === 'cookie') out.cookie = name;
  }
  if (!scheme) return out;
  const header = scheme.obj('header');
  if (header) out.header = header.bool('enabled') ? header.str('name') || 'Authorization' : '';
  const defaultName = out.header || 'Authorization';
  const query = scheme.obj('query');
  if (query) out.query = query.bool('enabled') ? query.str('name') || defaultName : '';
  const cookie = scheme.obj('cookie');
  if (cookie) out.cookie = cookie.bool('enabled') ? cookie.str('name') || defaultName : '';
  return out;
}

function jwtSettings(f: Fields): JwtSettings {
  const signingMethod = signingMethodOf(f, 'signingMethod');
  const scopes = f.obj('scopes');
  const scopeToPolicy: [string, string][] = (scopes?.list('scopeToPolicyMapping') ?? []).map((m) => [m.str('scope'), m.str('policyId')]);
  return {
    signingMethod,
    source: f.str('source'),
    identityBaseField: f.str('identityBaseField') || 'sub',
    policyFieldName: f.str('policyFieldName') || 'pol',
    defaultPolicies: f.strings('defaultPolicies'),
    scopeClaimName: scopes?.str('claimName') || 'scope',
    scopeToPolicy: Object.fromEntries(scopeToPolicy),
    issuedAtSkew: f.count('issuedAtValidationSkew'),
    expiresAtSkew: f.count('expiresAtValidationSkew'),
    notBeforeSkew: f.count('notBeforeValidationSkew'),
  };
}

/** Every operation of the OpenAPI `paths`, in their order (Tyk: endpoint limits follow it). */
function pathOperations(root: Fields): Operation[] {
  const out: Operation[] = [];
  const paths = root.obj('paths');
  if (!paths) return out;
  for (const path of Object.keys(paths.value)) {
    const item = paths.obj(path);
    if (!item) continue;
    for (const method of METHODS) {
      const op = item.obj(method);
      const id = op?.str('operationId');
      if (id) out.push({ id, path, method: method.toUpperCase() });
    }
  }
  return out;
}

interface Operations extends Pick<
  ApiSpec,
  | 'headerTransforms'
  | 'responseHeaderTransforms'
  | 'methodTransforms'
  | 'requestValidations'
  | 'oasMocks'
  | 'bodyTransforms'
  | 'responseBodyTransforms'
  | 'hardTimeouts'
  | 'circuitBreakers'
  | 'cachePaths'
> {
  endpointRateLimits: EndpointRateLimit[];
  urlRewrites: UrlRewriteRule[];
  splitToken: SplitTokenEndpoint[];
  endpointLists: EndpointListEntry[];
  endpointSizeLimits: EndpointSizeLimit[];
}

/** The operation fields that are endpoint list entries, in the order Tyk compiles the lists. */
const LISTS: Array<[EndpointListEntry['kind'], string]> = [
  ['ignored', 'ignoreAuthentication'],
  ['black', 'block'],
  ['white', 'allow'],
  ['internal', 'internal'],
];

/** Operation fields Tyk compiles between the white list and the internal one, in its order (see EndpointListEntry). */
/** The operation fields Tyk extracts into lists compiled between the white list and the internal one, in its order. */
const OTHER_FIELDS = [
  'cache',
  'transformRequestBody',
  'transformResponseBody',
  'transformRequestHeaders',
  'transformResponseHeaders',
  'urlRewrite',
  'requestSizeLimit',
  'transformRequestMethod',
  'trackEndpoint',
  'doNotTrackEndpoint',
];

/** OAS `transformRequestHeaders` / `transformResponseHeaders` (`enabled`, `add: [{name, value}]`, `remove`), as Tyk extracts them. */
function headerEdit(f: Fields | undefined): HeaderEdit | undefined {
  if (f === undefined || !f.bool('enabled')) return undefined;
  const add = f.list('add').map((h): [string, string] => [h.str('name'), h.str('value')]);
  const remove = f.strings('remove');
  return add.length > 0 || remove.length > 0 ? { remove, add } : undefined;
}

function operations(root: Fields, ext: Fields, ignoreCase: boolean): Operations {
  const out: Operations = { endpointRateLimits: [], urlRewrites: [], splitToken: [], endpointLists: [], endpointSizeLimits: [] };
  const configured = ext.obj('middleware')?.obj('operations');
  if (!configured) return out;
  const known = pathOperations(root);
  const ids = new Set(known.map((op) => op.id));
  for (const id of Object.keys(configured.value)) {
    if (configured.raw(id) !== undefined && !ids.has(id)) configured.fail(id, 'no operation with this operationId in paths');
  }
  for (const op of known) {
    const mw = configured.obj(op.id);
    if (!mw) continue;
    const path = endpointPattern(op.path);
    const rate = mw.obj('rateLimit');
    if (rate?.bool('enabled'))
      out.endpointRateLimits.push({
        path: checkedEndpointPattern(mw, op.id, op.path),
        method: op.method,
        rate: rate.count('rate'),
        per: durationSeconds(rate, 'per'),
      });
    const rewrite = mw.obj('urlRewrite');
    if (rewrite?.bool('enabled')) out.urlRewrites.push(oasRewrite(rewrite, path, op.method));
    const split = mw.obj('splitToken');
    if (split?.bool('enabled')) out.splitToken.push({ path, method: op.method, tokenUrl: targetUrlOf(split, 'tokenUrl') });
    const size = mw.obj('requestSizeLimit');
    if (size?.bool('enabled'))
      out.endpointSizeLimits.push({ path: checkedListPattern(configured, op.id, op.path), method: op.method, limit: size.count('value') });
    const request = headerEdit(mw.obj('transformRequestHeaders'));
    if (request) (out.headerTransforms ??= []).push({ path: checkedListPattern(configured, op.id, op.path), method: op.method, ...request });
    const response = headerEdit(mw.obj('transformResponseHeaders'));
    if (response) (out.responseHeaderTransforms ??= []).push({ path: checkedListPattern(configured, op.id, op.path), method: op.method, ...response });
    for (const [field, list] of [
      ['transformRequestBody', 'bodyTransforms'],
      ['transformResponseBody', 'responseBodyTransforms'],
    ] as const) {
      const t = mw.obj(field);
      if (!t?.bool('enabled')) continue;
      if (t.str('format') !== 'json')
        t.fail('format', `not supported: ${JSON.stringify(t.str('format'))} (svc's body transforms read JSON bodies only): remove the field or turn it off`);
      (out[list] ??= []).push({
        path: checkedListPattern(configured, op.id, op.path),
        method: op.method,
        // Tyk: the base64 `body` when set, else the file at `path`; the session's metadata always offered.
        template: t.str('body') !== '' ? templateSource(t, 'blob', 'body') : templateSource(t, 'file', 'path'),
        enableSession: true,
      });
    }
    const validate = mw.obj('validateRequest');
    if (validate?.bool('enabled'))
      (out.requestValidations ??= []).push({
        path: checkedListPattern(configured, op.id, op.path),
        method: op.method,
        parameters: parametersOf(root, op, mw),
        body: requestBodyOf(root, op, mw),
        errorCode: validate.count('errorResponseCode'),
      });
    const mock = mw.obj('mockResponse');
    if (mock?.bool('enabled')) {
      // Tyk answers the mock after its URL rewrite, on the rewritten path; svc answers it before.
      if (
        mw.obj('urlRewrite')?.bool('enabled') === true ||
        Object.keys(configured.value).some((id) => configured.obj(id)?.obj('urlRewrite')?.bool('enabled') === true)
      )
        mw.fail('mockResponse', 'a mock response in an API with URL rewrites is not supported (Tyk matches the mock on the rewritten path)');
      const headers: Record<string, string> = {};
      for (const h of mock.list('headers')) headers[h.str('name')] = h.str('value');
      (out.oasMocks ??= []).push({
        path: checkedListPattern(configured, op.id, op.path),
        method: op.method,
        reply: { code: mock.count('code') || 200, body: mock.str('body'), headers },
      });
    }
    const method = mw.obj('transformRequestMethod');
    if (method?.bool('enabled'))
      (out.methodTransforms ??= []).push({ path: checkedListPattern(configured, op.id, op.path), method: op.method, toMethod: method.str('toMethod') });
  }
  // The traffic entries in Tyk's order: its extraction walks the paths sorted as oasutil.PathLess
  // sorts them, and the proxy takes the first entry that matches.
  for (const op of [...known].sort((a, b) => (tykPathLess(a.path, b.path) ? -1 : tykPathLess(b.path, a.path) ? 1 : 0))) {
    const mw = configured.obj(op.id);
    if (!mw) continue;
    const timeout = mw.obj('enforceTimeout');
    if (timeout?.bool('enabled'))
      (out.hardTimeouts ??= []).push({
        path: checkedListPattern(configured, op.id, op.path),
        method: op.method,
        // Tyk's EnforceTimeout.ExtractTo: `duration` when set, else `value` seconds.
        ms: goDurationMs(timeout, 'duration') || timeout.count('value') * 1000,
      });
    const breaker = mw.obj('circuitBreaker');
    if (breaker?.bool('enabled'))
      (out.circuitBreakers ??= []).push({
        path: checkedListPattern(configured, op.id, op.path),
        method: op.method,
        thresholdPercent: breaker.count('threshold'),
        samples: breaker.count('sampleSize'),
        returnToServiceAfter: breaker.count('coolDownPeriod'),
        disableHalfOpenState: !breaker.bool('halfOpenStateEnabled'),
      });
    const cache = mw.obj('cache');
    if (cache?.bool('enabled'))
      (out.cachePaths ??= []).push(
        endpointCacheOf(cache, checkedListPattern(configured, op.id, op.path), op.method, {
          regex: 'cacheByRegex',
          codes: 'cacheResponseCodes',
          timeout: 'timeout',
        }),
      );
  }
  // Tyk extracts each operation's allowance into the classic lists, then compiles list by list.
  for (const [kind, field] of LISTS) {
    if (kind === 'internal' && out.endpointLists.some((e) => e.kind === 'white')) {
      for (const other of OTHER_FIELDS) {
        for (const op of known) {
          if (configured.obj(op.id)?.obj(other)?.bool('enabled') === true)
            out.endpointLists.push({ kind: 'other', path: checkedListPattern(configured, op.id, op.path), method: '', ignoreCase: false });
        }
      }
    }
    for (const op of known) {
      const mw = configured.obj(op.id);
      const allowance = mw?.obj(field);
      if (!mw || !allowance?.bool('enabled')) continue;
      out.endpointLists.push({
        kind,
        path: checkedListPattern(configured, op.id, op.path),
        method: op.method,
        ignoreCase: kind !== 'internal' && (allowance.bool('ignoreCase') || ignoreCase),
      });
    }
  }
  return out;
}

/**
 * Tyk's oasutil.PathLess: path parameters taken out, more segments first, then longer first, then
 * alphabetical; a literal path before the same path with a parameter.
 */
export function tykPathLess(pathA: string, pathB: string): boolean {
  let a = pathA.replace(/\{[^}]+\}/g, '');
  let b = pathB.replace(/\{[^}]+\}/g, '');
  if (a === b) [a, b] = [pathB, pathA];
  const ka = a.split('/').length;
  const kb = b.split('/').length;
  if (ka !== kb) return ka > kb;
  if (a.length === b.length) return a < b;
  return a.length > b.length;
}

/** The value a local `$ref` (`#/components/...`) points at in the document, or undefined. */
function resolveRef(root: Fields, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let at: unknown = root.value;
  for (const part of ref.slice(2).split('/')) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObject(at) || !Object.hasOwn(at, key)) return undefined;
    at = at[key];
  }
  return at;
}

/** Parameter fields read past (annotations), besides those checked. */
const PARAMETER_ANNOTATIONS = new Set(['description', 'deprecated', 'example', 'examples']);

/**
 * An operation's parameters for `validateRequest` (kin-openapi's order: the path item's that the
 * operation does not override by `in` + `name`, then the operation's). Served: `in` path, query,
 * header or cookie, the default style/explode, a `schema` of one primitive type or an array of
 * one (not in a cookie: kin-openapi refuses form+explode arrays there); the rest is refused.
 */
function parametersOf(root: Fields, op: Operation, mw: Fields): OasParameter[] {
  const item = root.obj('paths')?.obj(op.path);
  const refuse = (problem: string): never => mw.fail('validateRequest', `operation ${op.id}: ${problem}`);
  const read = (list: Fields[], where: string): Array<Record<string, unknown>> =>
    list.map(({ value: raw }, i) => {
      const p = isObject(raw) && typeof raw['$ref'] === 'string' ? resolveRef(root, raw['$ref']) : raw;
      if (!isObject(p) || typeof p['name'] !== 'string' || typeof p['in'] !== 'string') return refuse(`${where}[${i}]: expected a parameter with name and in`);
      return p;
    });
  const own = read(item?.obj(op.method.toLowerCase())?.list('parameters') ?? [], 'parameters');
  const inherited = read(item?.list('parameters') ?? [], 'path parameters').filter((p) => !own.some((o) => o['name'] === p['name'] && o['in'] === p['in']));
  const segments = op.path.replace(/^\/+|\/+$/g, '').split('/');
  return [...inherited, ...own].map((p) => {
    const name = p['name'] as string;
    const where = `parameter ${JSON.stringify(name)} in ${String(p['in'])}`;
    const place = p['in'];
    if (place !== 'path' && place !== 'query' && place !== 'header' && place !== 'cookie') return refuse(`${where}: in must be path, query, header or cookie`);
    const form = place === 'query' || place === 'cookie';
    const defaultStyle = form ? 'form' : 'simple';
    for (const [k, v] of Object.entries(p)) {
      if (k === 'name' || k === 'in' || k === 'required' || k === 'schema' || PARAMETER_ANNOTATIONS.has(k)) continue;
      if ((k === 'style' && v === defaultStyle) || (k === 'explode' && v === form) || ((k === 'allowEmptyValue' || k === 'allowReserved') && v === false))
        continue;
      refuse(
        `${where}: ${k} is not supported by svc's validateRequest (only name, in, required, schema and the default style/explode): remove validateRequest or the field`,
      );
    }
    let schema: JsonSchemaNode;
    try {
      schema = compileJsonSchema(p['schema'], `${where}.schema`, { resolve: (r) => resolveRef(root, r) });
    } catch (err) {
      return refuse(errorMessage(err));
    }
    const primitive = (node: JsonSchemaNode | undefined): 'string' | 'integer' | 'number' | 'boolean' | undefined => {
      const t = node?.types?.length === 1 ? node.types[0] : undefined;
      return t === 'string' || t === 'integer' || t === 'number' || t === 'boolean' ? t : undefined;
    };
    const array = schema.types?.length === 1 && schema.types[0] === 'array';
    const type = array ? 'array' : primitive(schema);
    const items = array ? primitive(schema.items) : undefined;
    if (type === undefined || (array && (items === undefined || place === 'cookie')))
      return refuse(
        `${where}.schema: svc's validateRequest checks parameters of one type string, integer, number or boolean, or (not in a cookie) an array of one: remove validateRequest or change the schema`,
      );
    const out: OasParameter = { name, in: place, required: p['required'] === true, type, schema, ...(items ? { items } : {}) };
    if (place === 'path') {
      const segment = segments.indexOf(`{${name}}`);
      if (segment < 0) return refuse(`${where}: the path ${op.path} has no {${name}} segment`);
      out.segment = segment;
    }
    return out;
  });
}

/**
 * An operation's `requestBody` for `validateRequest`, its schemas compiled (json-schema.ts refuses
 * a keyword it does not check).
 */
function requestBodyOf(root: Fields, op: Operation, mw: Fields): OasRequestBody {
  const doc = root.obj('paths')?.obj(op.path)?.obj(op.method.toLowerCase());
  const refuse = (problem: string): never => mw.fail('validateRequest', problem);
  let body: unknown = doc?.raw('requestBody');
  if (isObject(body) && typeof body['$ref'] === 'string') body = resolveRef(root, body['$ref']);
  if (body === undefined) return { required: false, content: {} };
  if (!isObject(body)) return refuse(`operation ${op.id}: requestBody is not an object`);
  const content: OasRequestBody['content'] = {};
  const media = isObject(body['content']) ? body['content'] : {};
  for (const [type, m] of Object.entries(media)) {
    const schema = isObject(m) ? m['schema'] : undefined;
    if (schema === undefined) {
      content[type] = null;
      continue;
    }
    if (type.split(';')[0]!.trim().toLowerCase() !== 'application/json')
      refuse(`operation ${op.id}: requestBody content ${type}: only application/json bodies are checked by svc's validateRequest`);
    const ref = isObject(schema) && typeof schema['$ref'] === 'string' ? schema['$ref'].trim() : '';
    let compiled: JsonSchemaNode;
    try {
      compiled = compileJsonSchema(schema, `requestBody.content.${type}.schema`, { resolve: (r) => resolveRef(root, r) });
    } catch (err) {
      return refuse(`operation ${op.id}: ${errorMessage(err)}`);
    }
    const title = !ref && isObject(schema) && typeof schema['title'] === 'string' ? schema['title'].trim() : '';
    content[type] = { schema: compiled, id: ref || title };
  }
  return { required: body['required'] === true, content };
}

function anySizeLimit(ext: Fields): boolean {
  const ops = ext.obj('middleware')?.obj('operations');
  return ops !== undefined && Object.keys(ops.value).some((id) => ops.obj(id)?.obj('requestSizeLimit') !== undefined);
}
