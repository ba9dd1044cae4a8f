/**
 * Request size limits as Tyk v5.14.0's RequestSizeLimitMiddleware judges them
 * (`gateway/mw_request_size_limit.go`): by the stated Content-Length, before the body is read.
 * GET, DELETE, TRACE, OPTIONS and HEAD are never limited. The version's `global_size_limit` first,
 * then the first `size_limits` entry matching the method (exactly) and the path:
 *
 * - no Content-Length (a chunked body): 411 "Content length is required for this request";
 * - more than the limit: 400 "Request is too large".
 *
 * A body within its stated length cannot be longer (HTTP framing), so the streamed body is not
 * counted again.
 */
import type { Answer } from '@svc/engine';
import type { ApiSpec, EndpointSizeLimit } from '../apis/api-spec.js';
import { endpointPath, pathMatchingOf } from '../apis/endpoints.js';
import { matches, pathTest, type PathTest } from '../kernel/endpoint-lists.js';
import { tykError } from '../kernel/errors.js';

const UNLIMITED_METHODS = new Set(['GET', 'DELETE', 'TRACE', 'OPTIONS', 'HEAD']);

const LENGTH_REQUIRED = tykError(411, 'Content length is required for this request');
const TOO_LARGE = tykError(400, 'Request is too large');

const compiled = new WeakMap<ApiSpec, Array<{ limit: EndpointSizeLimit; test: PathTest }>>();

function limitsOf(api: ApiSpec): Array<{ limit: EndpointSizeLimit; test: PathTest }> {
  let c = compiled.get(api);
  if (c === undefined) {
    c = (api.endpointSizeLimits ?? []).map((limit) => ({ limit, test: pathTest(limit.path, false, pathMatchingOf(api)) }));
    compiled.set(api, c);
  }
  return c;
}

/** True when the API limits request sizes at all. */
export function limitsSize(api: ApiSpec): boolean {
  return (api.globalSizeLimit ?? 0) > 0 || (api.endpointSizeLimits?.length ?? 0) > 0;
}

function check(contentLength: string | undefined, limit: number): Answer | undefined {
  if (contentLength === undefined) return LENGTH_REQUIRED;
  // Node has checked the header's syntax (digits only) before the request got here.
  return Number(contentLength) > limit ? TOO_LARGE : undefined;
}

/** Tyk's refusal of `method` `path` (decoded, with the listen path) with this Content-Length, or undefined. */
export function sizeRefusal(api: ApiSpec, method: string, path: string, contentLength: string | undefined): Answer | undefined {
  if (!limitsSize(api) || UNLIMITED_METHODS.has(method)) return undefined;
  const global = api.globalSizeLimit ?? 0;
  if (global > 0) {
    const refused = check(contentLength, global);
    if (refused) return refused;
  }
  const stripped = endpointPath(api, path);
  for (const { limit, test } of limitsOf(api)) {
    if (limit.method !== method) continue;
    if (matches(test, stripped, path)) return check(contentLength, limit.limit);
  }
  return undefined;
}
