/**
 * The stages of Tyk's chain an API definition needs, and the record of those a request went
 * through. Invariant: nothing answers for an API with less protection than its definition asks
 * for. A definition needs a stage for a field it sets (keys: `gateway_auth`, then the key-level
 * `gateway_rate_limit` for the keys' limits and quotas; `global_rate_limit` or endpoint limits: the
 * API-level one; header or method transforms: `gateway_transform`; URL rewrites: `gateway_url_rewrite`); each stage records on the request's ctx that
 * it ran ({@link GATEWAY_STAGES}, which crosses to worker threads and back), and whatever answers
 * for the API (`gateway_proxy`, the input's own answer) refuses a request a needed stage did not
 * see. The chain is also checked before it runs (`chain.ts`); this is the guard for what a static
 * check cannot see (a stage inside a `switch` case that did not match).
 */
import { contextKey, type Message } from '@svc/engine';
import type { ApiSpec } from '../apis/api-spec.js';
import type { GatewayRequest } from './request.js';

/** A stage of Tyk's order: API-level limit, auth, key-level limit and quota, header and method transforms, rewrite. */
export type Stage = 'api_limit' | 'auth' | 'key_limit' | 'transform' | 'rewrite';

/** Tyk's order, with Tyk's TransformHeaders before its URLRewrite. */
export const STAGE_ORDER: readonly Stage[] = ['api_limit', 'auth', 'key_limit', 'transform', 'rewrite'];

const BIT: Record<Stage, number> = { api_limit: 1, auth: 2, key_limit: 4, rewrite: 8, transform: 32 };
/** A stage answered the request itself with a success (a split-token exchange): no later stage is owed. */
const ANSWERED_BY_STAGE = 16;

/** The stages a request went through, as bits: set by the stages, read by whatever answers. */
export const GATEWAY_STAGES = contextKey<number>('svc.gateway.stages', { crossesThreads: true });

/** How a stage is named in the config and in errors. */
export const STAGE_NAME: Record<Stage, string> = {
  api_limit: 'gateway_rate_limit with scope: api',
  auth: 'gateway_auth',
  key_limit: 'gateway_rate_limit with scope: key',
  transform: 'gateway_transform',
  rewrite: 'gateway_url_rewrite',
};

/** What to write in the pipeline to have the stage. */
export const STAGE_FIX: Record<Stage, string> = {
  api_limit: 'add `- gateway_rate_limit: { scope: api }` before gateway_auth (`gateway_rate_limit: {}` is scope key)',
  auth: 'add `- gateway_auth: {}` after the API-level gateway_rate_limit',
  key_limit: 'add `- gateway_rate_limit: { scope: key }` after gateway_auth',
  transform: 'add `- gateway_transform: {}` after the key-level gateway_rate_limit',
  rewrite: 'add `- gateway_url_rewrite: {}` after the key-level gateway_rate_limit (and gateway_transform)',
};

/** Records that `stage` ran for this request. */
export function markStage(msg: Message, stage: Stage): void {
  msg.ctx.set(GATEWAY_STAGES, (msg.ctx.get(GATEWAY_STAGES) ?? 0) | BIT[stage]);
}

/** Records that a stage answered the request itself with a success (split token). */
export function markAnsweredByStage(msg: Message): void {
  msg.ctx.set(GATEWAY_STAGES, (msg.ctx.get(GATEWAY_STAGES) ?? 0) | ANSWERED_BY_STAGE);
}

/** A stage an API needs and the definition field that needs it. */
export interface Need {
  stage: Stage;
  field: string;
}

function limited(r: { rate: number; per: number }): boolean {
  return r.rate > 0 && r.per > 0;
}

/** The definition field that makes an API need authentication. */
function authField(api: ApiSpec): string {
  if (api.format === 'oas') return 'x-svc-api-gateway.server.authentication.enabled';
  return api.jwt !== undefined ? 'enable_jwt' : 'use_keyless: false';
}

/** The stages `api` needs, in Tyk's order, each with the field that asks for it (a versioned API: what any of its versions needs). */
export function stagesNeeded(api: ApiSpec): Need[] {
  const oas = api.format === 'oas';
  const specs = api.versioning === undefined ? [api] : [...api.versioning.versions.values()];
  const any = (test: (s: ApiSpec) => boolean): boolean => specs.some(test);
  const out: Need[] = [];
  if (!api.disableRateLimit) {
    if (any((s) => s.endpointRateLimits.some(limited)))
      out.push({ stage: 'api_limit', field: oas ? 'x-svc-api-gateway.middleware.operations.*.rateLimit' : 'extended_paths.rate_limit' });
    else if (limited(api.globalRateLimit)) out.push({ stage: 'api_limit', field: oas ? 'x-svc-api-gateway.upstream.rateLimit' : 'global_rate_limit' });
  }
  if (!api.keyless) {
    out.push({ stage: 'auth', field: authField(api) });
    out.push({ stage: 'key_limit', field: `${authField(api)} (keys carry rate limits and quotas)` });
  }
  if (any(shapes))
    out.push({
      stage: 'transform',
      field: 'global_headers, transform_headers, transform_response_headers, method_transforms, validate_json, validateRequest, mockResponse or upstream_auth',
    });
  if (any((s) => s.urlRewrites.length > 0))
    out.push({ stage: 'rewrite', field: oas ? 'x-svc-api-gateway.middleware.operations.*.urlRewrite' : 'extended_paths.url_rewrites' });
  return out;
}

/** True when `api` shapes requests or answers in `gateway_transform` (its stage is needed). */
export function shapes(api: ApiSpec): boolean {
  return (
    api.globalHeaders !== undefined ||
    api.headerTransforms !== undefined ||
    api.globalResponseHeaders !== undefined ||
    api.responseHeaderTransforms !== undefined ||
    api.methodTransforms !== undefined ||
    api.jsonValidations !== undefined ||
    api.requestValidations !== undefined ||
    api.oasMocks !== undefined ||
    api.bodyTransforms !== undefined ||
    api.responseBodyTransforms !== undefined ||
    api.upstreamAuth !== undefined
  );
}

/** Each API's needs, worked out once (a request reads a few bits). */
const needed = new WeakMap<ApiSpec, Need[]>();

/**
 * The first stage `api` needs that this request did not go through, or undefined. Without an
 * authenticated session a non-keyless API's request is never served, whatever ran.
 */
export function unmetStage(api: ApiSpec, req: GatewayRequest, stages: number | undefined): Need | undefined {
  const ran = stages ?? 0;
  let needs = needed.get(api);
  if (needs === undefined) needed.set(api, (needs = stagesNeeded(api)));
  for (const need of needs) {
    if ((ran & BIT[need.stage]) === 0) return need;
    // An ignored endpoint (set by the input from the API's lists) is served without a session, as Tyk does.
    if (need.stage === 'auth' && req.session === undefined && req.authIgnored !== true) return need;
  }
  return undefined;
}

/** True when a stage answered the request itself (a split-token exchange): its answer stands. */
export function answeredByStage(stages: number | undefined): boolean {
  return ((stages ?? 0) & ANSWERED_BY_STAGE) !== 0;
}

/** The one ERROR line for a request refused because a stage did not run. */
export function unmetStageMessage(api: ApiSpec, need: Need): string {
  return (
    `API ${api.id}${api.name && api.name !== api.id ? ` (${api.name})` : ''}: request refused (500), it did not go through ${STAGE_NAME[need.stage]}, ` +
    `which ${need.field} needs: ${STAGE_FIX[need.stage]}, or use \`- gateway: {}\` (Tyk's whole chain)`
  );
}
