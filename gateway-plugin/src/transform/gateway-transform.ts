/**
 * The `gateway_transform` processor: Tyk v5.14.0's request shaping for each gateway request, after
 * authentication and the key's limits (the session is known), before the URL rewrite:
 *
 * - request headers (TransformHeaders, `gateway/mw_modify_headers.go`): the version's
 *   `global_headers_remove` then `global_headers`, then the first `transform_headers` entry for the
 *   method (exactly) and path: its `delete_headers`, then its `add_headers`;
 * - the method the upstream gets (TransformMethod, `mw_method_transform.go`): the first
 *   `method_transforms` entry for the method and path; a `to_method` other than GET, POST, PUT,
 *   DELETE, OPTIONS or PATCH is Tyk's 405 "Method not allowed";
 * - response headers (ResponseHeaderInjector, `res_handler_header_injector.go`), worked out here
 *   for the proxy to apply to the upstream's answer: the first `transform_response_headers` entry,
 *   then the version's global response headers.
 *
 * Before those, the request body's JSON Schema check (ValidateJSON, `mw_validate_json.go`), which
 * Tyk runs just before TransformHeaders: the first `validate_json` entry for the method (exactly)
 * and path; a body that is not JSON is 400 "JSON parsing error: ...", one that fails the schema
 * gets the entry's `error_response_code` (422 by default) with gojsonschema's words (json-schema.ts);
 * then OAS `validateRequest` (ValidateRequest, next in Tyk's chain): the operation's request body
 * as kin-openapi checks it (oas-request-validation.ts).
 *
 * Then the body transform (TransformMiddleware, `mw_transform.go`; body-transform.ts): the first
 * `transform` entry (OAS `transformRequestBody`) for the method and path runs its Go template on
 * the JSON body; a `transform_response` entry's template is handed to the proxy for the answer.
 *
 * Last, an OAS `mockResponse` (MockResponseMiddleware, after Tyk's transforms): the operation's
 * `code` (200 when 0), `body` and `headers`, with X-RateLimit-* and the response header edits.
 *
 * For a request that goes upstream, `upstream_auth` (auth/upstream-auth.ts): the upstream's Basic
 * credentials or OAuth token in its header; a failed token request is Tyk's 500 `failed to get
 * OAuth token: ...`.
 *
 * Values may hold `$svc_context.*`, `$svc_meta.*` and `$secret_*` (see variables.ts). Header names
 * compare without case, as Go's Header.Del and Header.Set do.
 */
import { answerMessage, errorMessage, type Answer, type Logger } from '@svc/engine';
import { upstreamCredential } from '../auth/upstream-auth.js';
import type { ApiSpec, EndpointBodyTransform, EndpointHeaderEdit, HeaderEdit, MockReply } from '../apis/api-spec.js';
import { mockAnswer } from '../kernel/mock-reply.js';
import { limitHeaders } from '../ratelimit/limit-headers.js';
import { canonicalHeader } from '../kernel/context-data.js';
import { firstEndpointFor } from '../kernel/endpoint-lists.js';
import { jsEscape, tykError } from '../kernel/errors.js';
import { GatewayMiddleware, type MiddlewareCall } from '../kernel/middleware.js';
import { GATEWAY_REQUEST, type GatewayRequest } from '../kernel/request.js';
import { markAnsweredByStage, markStage, shapes } from '../kernel/stages.js';
import { resolverFor } from '../refs/resolver.js';
import { contextData, type ContextData } from '../kernel/context-data.js';
import { fillContext, fillVariables, type VariableSource } from './variables.js';
import { runBodyTransform, templateData, templateText } from './body-transform.js';
import { decodeBody } from '../languages/go-json-decode.js';
import { schemaFailures } from '../languages/json-schema.js';
import { requestBodyFailure } from '../languages/oas-request-validation.js';
import { parameterFailure } from '../languages/oas-parameters.js';
import { decodePath } from '../kernel/request-target.js';
import { parseQuery } from '../kernel/request-target.js';

const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);
const METHOD_NOT_ALLOWED = tykError(405, 'Method not allowed');

async function applyEdit(headers: GatewayRequest['headers'], edit: HeaderEdit, from: VariableSource): Promise<void> {
  for (const name of edit.remove) delete headers[name.toLowerCase()];
  for (const [name, value] of edit.add) headers[name.toLowerCase()] = await fillVariables(value, from);
}

/** The response edits in Tyk's order (the endpoint's, then the global ones), values filled in now. */
async function responseEdits(edits: Array<HeaderEdit | undefined>, from: VariableSource): Promise<GatewayRequest['responseHeaders']> {
  const remove: string[] = [];
  const set: Array<[string, string]> = [];
  for (const e of edits) {
    if (e === undefined) continue;
    for (const name of e.remove) remove.push(name.toLowerCase());
    for (const [name, value] of e.add) set.push([name.toLowerCase(), await fillVariables(value, from)]);
  }
  return remove.length > 0 || set.length > 0 ? { remove, set } : undefined;
}

/**
 * An OAS `mockResponse` as Tyk's MockResponseMiddleware answers it (`mw_mock_response.go`): the
 * operation's headers set, X-RateLimit-* from the session (SendQuotas), then the response header
 * edits (its response chain), the code and body; Go names an untyped body's type.
 */
function oasMockAnswer(reply: MockReply, req: GatewayRequest, edits: GatewayRequest['responseHeaders'], limitSource: string): Answer {
  const answer = mockAnswer(reply);
  const headers = { ...answer.headers };
  const set = (name: string, value: string): void => {
    for (const k of Object.keys(headers)) if (k.toLowerCase() === name) delete headers[k];
    headers[canonicalHeader(name)] = value;
  };
  for (const [name, value] of Object.entries(limitHeaders(req, limitSource) ?? {})) set(name, value);
  for (const name of edits?.remove ?? []) for (const k of Object.keys(headers)) if (k.toLowerCase() === name) delete headers[k];
  for (const [name, value] of edits?.set ?? []) set(name, value);
  return { ...answer, headers };
}

export class GatewayTransform extends GatewayMiddleware {
  constructor(log: Logger) {
    super('gateway_transform', log);
  }

  protected async handle({ msg, req, state, api }: MiddlewareCall): Promise<void> {
    if (!shapes(api)) return markStage(msg, 'transform');
    const validation = firstEndpointFor(api.jsonValidations, api, req.method, req.path);
    if (validation !== undefined) {
      const decoded = decodeBody(msg.content);
      if ('error' in decoded) return void answerMessage(msg, tykError(400, jsEscape(`JSON parsing error: ${decoded.error}`)));
      const failures = schemaFailures(validation.schema, decoded.value);
      if (failures.length > 0) return void answerMessage(msg, tykError(validation.errorCode || 422, jsEscape(failures.join('; '))));
    }
    const checked = firstEndpointFor(api.requestValidations, api, req.method, req.path);
    if (checked !== undefined && checked.parameters.length > 0) {
      const listen = api.listenPath.replace(/\/+$/, '');
      const rest = req.path.startsWith(listen) ? req.path.slice(listen.length) : req.path;
      const failure = parameterFailure(checked.parameters, { path: decodePath(rest) ?? rest, query: parseQuery(req.query), headers: req.headers });
      if (failure !== undefined) return void answerMessage(msg, tykError(checked.errorCode || 422, jsEscape(failure)));
    }
    if (checked !== undefined) {
      const type = req.headers['content-type'];
      const failure = requestBodyFailure(checked.body, (Array.isArray(type) ? type[0] : type) ?? '', msg.content);
      if (failure !== undefined) return void answerMessage(msg, tykError(checked.errorCode || 422, jsEscape(failure)));
    }
    let context: ContextData | undefined;
    const from: VariableSource = {
      context: () => (context ??= contextData(req, api.enableContextVars === true)),
      meta: req.session?.state.meta_data,
      refs: resolverFor(state.config, this.logger),
    };
    const method = req.method;
    // Tyk's TransformMiddleware, after the validations and before the header transforms.
    const transform = firstEndpointFor(api.bodyTransforms, api, method, req.path);
    if (transform !== undefined) await this.transformBody(msg, req, transform, from, api.enableContextVars === true);
    const answerTransform = firstEndpointFor(api.responseBodyTransforms, api, method, req.path);
    if (answerTransform !== undefined)
      req.responseTransform = {
        template: answerTransform.template,
        ...(api.enableContextVars === true ? { context: from.context() } : {}),
        ...(answerTransform.enableSession && req.session !== undefined ? { meta: req.session.state.meta_data ?? {} } : {}),
      };
    const moved = firstEndpointFor(api.methodTransforms, api, method, req.path);
    if (moved !== undefined) {
      const to = moved.toMethod.toUpperCase();
      if (!METHODS.has(to)) return void answerMessage(msg, METHOD_NOT_ALLOWED);
      req.upstreamMethod = to;
    }
    const endpoint: EndpointHeaderEdit | undefined = firstEndpointFor(api.headerTransforms, api, method, req.path);
    if (api.globalHeaders !== undefined || endpoint !== undefined) {
      req.headers = { ...req.headers };
      if (api.globalHeaders !== undefined) await applyEdit(req.headers, api.globalHeaders, from);
      if (endpoint !== undefined) await applyEdit(req.headers, endpoint, from);
    }
    const response = await responseEdits([firstEndpointFor(api.responseHeaderTransforms, api, method, req.path), api.globalResponseHeaders], from);
    if (response !== undefined) req.responseHeaders = response;
    const mock = firstEndpointFor(api.oasMocks, api, method, req.path);
    if (mock !== undefined) {
      // The mock is the request's answer (any code): no later stage is owed, as with a split-token exchange.
      markStage(msg, 'transform');
      markAnsweredByStage(msg);
      return void answerMessage(msg, oasMockAnswer(mock.reply, req, response, state.config.rate_limit_response_headers ?? 'quotas'));
    }
    if (api.upstreamAuth !== undefined) {
      // Tyk's upstream auth provider fills the header as the request leaves: it wins over the client's and the transforms'.
      let credential: { header: string; value: string };
      try {
        credential = await upstreamCredential(api.upstreamAuth);
      } catch (err) {
        this.logger.warn(`API ${api.id}: upstream OAuth token request to ${originOf(api.upstreamAuth)} failed: ${errorMessage(err)}`);
        return void answerMessage(msg, tykError(500, jsEscape(`failed to get OAuth token: ${errorMessage(err)}`)));
      }
      req.headers = { ...req.headers, [credential.header]: credential.value };
    }
    msg.ctx.set(GATEWAY_REQUEST, req);
    markStage(msg, 'transform');
  }

  /** The request body through its template; a body that is not JSON or a template that fails leaves it as it was (logged, as Tyk). */
  private async transformBody(
    msg: MiddlewareCall['msg'],
    req: GatewayRequest,
    t: EndpointBodyTransform,
    from: VariableSource,
    contextVars: boolean,
  ): Promise<void> {
    const data = templateData(msg.content);
    if (data === undefined) return void this.logger.error(`Body transform failure: the body of ${req.method} ${req.path} is not JSON`);
    const meta = t.enableSession ? req.session?.state.meta_data : undefined;
    // References resolve in the configured template, before the body is in it: client text is never a reference.
    const template = await from.refs.resolveInline(t.template, templateText);
    const r = runBodyTransform({ template }, data, { ...(contextVars ? { context: from.context() } : {}), ...(meta !== undefined ? { meta } : {}) });
    if (r.error !== undefined) return void this.logger.error(`Body transform failure: failed to apply template to request: ${r.error}`);
    msg.content = Buffer.from(fillContext(r.text, from, true));
    req.bodyReplaced = true;
  }
}

/** The OAuth server's origin, for a log line (never the path or query, which may carry credentials). */
function originOf(auth: NonNullable<ApiSpec['upstreamAuth']>): string {
  if (auth.kind !== 'oauth') return '';
  try {
    return new URL(auth.tokenUrl).origin;
  } catch {
    return '(bad token_url)';
  }
}
