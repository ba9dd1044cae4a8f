/**
 * The request's context variables, as Tyk's MiddlewareContextVars captures them at the start of
 * the chain (docs/spec/gateway.md, URL rewriting, rule 7): what `request_context_matches` rules read and what
 * `$svc_context.<name>` stands for. Trigger matches are added to it as the rewriter runs
 * (`trigger-{n}-{name}-{i}`).
 */
import type { GatewayRequest } from '../gateway/request.js';

/** `X-Api-Key` → `X_Api_Key`: Tyk's canonical header name with `-` turned into `_`. */
function canonicalUnderscored(name: string): string {
  return canonicalHeader(name).replaceAll('-', '_');
}

/** Go's textproto.CanonicalMIMEHeaderKey for plain names: each hyphen-separated word capitalised. */
export function canonicalHeader(name: string): string {
  return name
    .toLowerCase()
    .split('-')
    .map((w) => (w.length > 0 ? w[0]!.toUpperCase() + w.slice(1) : w))
    .join('-');
}

export type ContextData = Record<string, string | string[]>;

export function contextData(req: GatewayRequest): ContextData {
  const data: ContextData = {
    remote_addr: req.remoteAddress,
    path: req.path,
    path_parts: req.path.split('/').filter((p) => p !== ''),
    request_data: req.query,
  };
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    data[`headers_${canonicalUnderscored(name)}`] = Array.isArray(value) ? value.join(',') : value;
  }
  const cookie = req.headers.cookie;
  if (typeof cookie === 'string') {
    for (const part of cookie.split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0) data[`cookies_${part.slice(0, eq).trim()}`] = part.slice(eq + 1).trim();
    }
  }
  if (req.session !== undefined) data.token = req.session.keyId;
  return data;
}
