/**
 * The `gateway_url_rewrite` processor: the URL rewrite middleware of Tyk for each gateway
 * request (after `gateway_auth`, as Tyk's chain runs it): the first rule of the API whose
 * endpoint (method and path) the request is for is applied (see rewrite-url.ts). The result is a
 * new path and query for the upstream, a full URL (another host), or `svc://{api}/path`: a loop
 * to another API of the gateway, run there with no network call (the proxy hands it back to the
 * gateway's front door).
 */
import { answerMessage, type Logger } from '@svc/engine';
import type { ApiSpec, UrlRewriteRule } from '../apis/api-spec.js';
import { endpointMatches, endpointPath, pathMatchingOf } from '../apis/endpoints.js';
import { tykError } from '../kernel/errors.js';
import { GatewayMiddleware, type MiddlewareCall } from '../kernel/middleware.js';
import { GATEWAY_REQUEST, type GatewayRequest } from '../kernel/request.js';
import { markStage } from '../kernel/stages.js';
import { resolverFor } from '../refs/resolver.js';
import { contextData, type ContextData } from '../kernel/context-data.js';
import { rewriteUrl, unsafeRewrite } from './rewrite-url.js';

const LOOP_SCHEME = 'svc://';

function ruleFor(api: ApiSpec, req: GatewayRequest): UrlRewriteRule | undefined {
  if (api.urlRewrites.length === 0) return undefined;
  const path = endpointPath(api, req.path);
  return api.urlRewrites.find((r) => endpointMatches(r, req.method, path, pathMatchingOf(api)));
}

/** The path after the listen path, when the API strips it (Tyk's SanitizeProxyPaths on the rewritten URL). */
function stripped(api: ApiSpec, path: string): string {
  if (!api.stripListenPath || api.listenPath === '/' || !path.startsWith(api.listenPath)) return path;
  const rest = path.slice(api.listenPath.length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** Applies a rewrite result to the request. */
export function applyRewrite(api: ApiSpec, req: GatewayRequest, result: string): void {
  if (result.startsWith(LOOP_SCHEME)) {
    // The host names an API by id or by name (Tyk's: non-alphanumerics as `-`); `self` is this one.
    const rest = result.slice(LOOP_SCHEME.length);
    const end = rest.search(/[/?]/);
    const host = end < 0 ? rest : rest.slice(0, end);
    const u = new URL(`http://loop${end < 0 ? '/' : rest.slice(end)}`);
    const params = u.searchParams;
    const method = (params.get('method') ?? '').toUpperCase();
    const limit = Number.parseInt(params.get('loop_limit') ?? '', 10);
    const checkLimits = params.get('check_limits') === 'true';
    for (const control of ['method', 'loop_limit', 'check_limits']) params.delete(control);
    let target = host;
    try {
      target = decodeURIComponent(host);
    } catch {
      // Kept as written.
    }
    req.loop = { target, path: u.pathname, query: params.toString(), method, limit: Number.isFinite(limit) && limit > 0 ? limit : 0, checkLimits };
    return;
  }
  if (/^https?:\/\//i.test(result)) {
    req.upstreamUrl = result;
    return;
  }
  const q = result.indexOf('?');
  const path = q < 0 ? result : result.slice(0, q);
  req.upstreamPath = stripped(api, path.startsWith('/') ? path : `/${path}`);
  req.query = q < 0 ? '' : result.slice(q + 1);
}

export class GatewayUrlRewrite extends GatewayMiddleware {
  constructor(log: Logger) {
    super('gateway_url_rewrite', log);
  }

  protected async handle({ msg, req, state, api }: MiddlewareCall): Promise<void> {
    const rule = ruleFor(api, req);
    if (rule === undefined) return markStage(msg, 'rewrite');
    const url = req.query === '' ? req.path : `${req.path}?${req.query}`;
    let context: ContextData | undefined;
    const input = {
      context: () => (context ??= contextData(req, api.enableContextVars === true)),
      headers: req.headers,
      query: new URLSearchParams(req.query),
      path: req.path,
      sessionMeta: req.session?.state.meta_data,
      body: msg.content.length > 0 ? msg.content.toString('utf8') : undefined,
    };
    // A rewrite it cannot make throws: Tyk answers it with 500, as the base does.
    const result = await rewriteUrl(rule, url, input, {}, resolverFor(state.config, this.logger));
    if (result === undefined) return markStage(msg, 'rewrite');
    const unsafe = unsafeRewrite(result);
    if (unsafe !== undefined) {
      this.logger.debug(`URL rewrite of API ${api.id} refused: ${unsafe}`);
      answerMessage(msg, tykError(400, 'The rewritten URL has a dot segment or a fragment: the request is refused'));
      return;
    }
    applyRewrite(api, req, result);
    msg.ctx.set(GATEWAY_REQUEST, req);
    markStage(msg, 'rewrite');
  }
}
