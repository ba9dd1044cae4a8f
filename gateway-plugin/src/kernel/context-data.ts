/**
 * The request's context variables, as Tyk v5.14.0's MiddlewareContextVars captures them
 * (`gateway/mw_context_vars.go`) when the API has `enable_context_vars` (without it a request has
 * none, and `$svc_context.*` reads as empty, as in Tyk): `request_data` (the query's values),
 * `headers_Host`, `path_parts` (the decoded path split at `/`), `path`, `remote_addr`,
 * `request_id`, `headers_<Name>` (each header's first value, its canonical name with `-` as `_`),
 * `cookies_<name>`, `request_data_<key>`; and `token`, the key that authenticated the request as the
 * client sent it (Tyk's auth token: not its hash, whatever `hash_keys` says).
 * What `request_context_matches` rules read and what `$svc_context.<name>` stands for. Trigger
 * matches are added to it as the rewriter runs (`trigger-{n}-{name}-{i}`).
 */
import { randomUUID } from 'node:crypto';
import type { GatewayRequest } from './request.js';

/** Go's textproto.CanonicalMIMEHeaderKey for plain names: each hyphen-separated word capitalised. */
export function canonicalHeader(name: string): string {
  return name
    .toLowerCase()
    .split('-')
    .map((w) => (w.length > 0 ? w[0]!.toUpperCase() + w.slice(1) : w))
    .join('-');
}

export type ContextData = Record<string, string | string[]>;

function decoded(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** The query as Go's url.Values, in the order written (Tyk's Form). */
function queryValues(query: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decoded(eq < 0 ? pair : pair.slice(0, eq));
    const value = decoded(eq < 0 ? '' : pair.slice(eq + 1));
    const list = out.get(key);
    if (list) list.push(value);
    else out.set(key, [value]);
  }
  return out;
}

/** The client address Tyk's RealIP gives: X-Real-IP, else X-Forwarded-For's first entry, else the connection's. */
function realIp(req: GatewayRequest): string {
  const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
  const real = first(req.headers['x-real-ip'])?.trim();
  if (real) return real;
  const xff = first(req.headers['x-forwarded-for'])?.split(',')[0]?.trim();
  if (xff) return xff;
  const a = req.remoteAddress;
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}

/** The request's context variables; `enabled` false (no `enable_context_vars`): none but `token`. */
export function contextData(req: GatewayRequest, enabled = true): ContextData {
  const data: ContextData = {};
  if (enabled) {
    const values = queryValues(req.query);
    const path = decoded(req.path.replaceAll('+', '%2B'));
    // Go's valToStr of url.Values: `key:v1,v2` joined with `;`.
    data.request_data = [...values].map(([k, v]) => `${k}:${v.join(',')}`).join(';');
    data.path_parts = path.split('/');
    data.path = path;
    data.remote_addr = realIp(req);
    data.request_id = randomUUID();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      if (name === 'host') data.headers_Host = Array.isArray(value) ? value[0]! : value;
      else data[`headers_${canonicalHeader(name).replaceAll('-', '_')}`] = Array.isArray(value) ? value[0]! : value;
    }
    const cookie = req.headers.cookie;
    if (typeof cookie === 'string') {
      for (const part of cookie.split(';')) {
        const eq = part.indexOf('=');
        if (eq > 0) data[`cookies_${part.slice(0, eq).trim().replaceAll('-', '_')}`] = part.slice(eq + 1).trim();
      }
    }
    for (const [key, v] of values) if (v.length > 0) data[`request_data_${key.replaceAll('-', '_')}`] = v[0]!;
  }
  if (req.session !== undefined) data.token = req.session.token ?? req.session.keyId;
  return data;
}
