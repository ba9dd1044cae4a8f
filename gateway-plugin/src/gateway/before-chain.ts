/**
 * What Tyk v5.14.0 checks of a request before any stage svc's chain has (its `api_loader.go`
 * order: VersionCheck — the version, its expiry, the endpoint lists — then the IP allow list, the
 * IP deny list and the request size limit, all before authentication and every rate limit). The `api_gateway` input
 * runs these itself for every request it routes (and every request a `svc://` loop brings to an
 * API), so no pipeline can serve an API without them: a definition that sets them is never
 * answered with less than it asks for.
 */
import type { IncomingMessage } from 'node:http';
import type { Answer } from '@svc/engine';
import type { ApiSpec } from '../apis/api-spec.js';
import { upstreamPathOf } from './api-router.js';
import { clientIp, firstHeader, headerLines, ipListed } from './client-ip.js';
import { corsOutcome, skipsEndpointLists } from './cors.js';
import { ENDPOINT_FORBIDDEN, endpointStatus } from './endpoint-lists.js';
import { tykError } from './errors.js';
import type { GatewayRequest } from './request.js';
import { mockAnswer } from './mock-reply.js';
import { sizeRefusal } from './size-limits.js';
import { chooseVersion, type VersionChoice } from './version-check.js';

const FORBIDDEN_ENDPOINT = tykError(403, ENDPOINT_FORBIDDEN);
const FORBIDDEN_IP = tykError(403, 'access from this IP has been disallowed');

/** A request as the checks see it: the live one, and its target (a loop's own). */
export interface CheckedRequest {
  /** The live request (client address, Content-Length). */
  req: IncomingMessage;
  method: string;
  /** The path, decoded, with the listen path. */
  path: string;
  /** The path as received. */
  rawPath: string;
  query: string;
  /** The request's headers (names lower-case), as the pipeline will see them. */
  headers: Record<string, string | string[] | undefined>;
  /** It came through a `svc://` loop. */
  looped: boolean;
}

export interface BeforeChain extends VersionChoice {
  /** The answer (`refusal`) is not a refusal (a mock reply, a CORS preflight): the connection stays open. */
  keepAlive?: boolean;
  /** CORS headers for the request's answer, whatever answers it. */
  corsHeaders?: Record<string, string>;
  /** An ignored endpoint: served without authentication (and without key-level limits), as Tyk does. */
  authIgnored: boolean;
}

/** The first value of a header: the live request's first line (Go's Header.Get), else the headers given. */
function headerOf(r: CheckedRequest): (name: string) => string | undefined {
  return (name) => {
    if (!r.looped) return firstHeader(r.req, name);
    const v = r.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
}

/** Every line of a header (Go's Header[name]). */
function linesOf(r: CheckedRequest): (name: string) => string[] {
  return (name) => {
    if (!r.looped) return headerLines(r.req, name);
    const v = r.headers[name];
    return v === undefined ? [] : Array.isArray(v) ? v : [v];
  };
}

/** Tyk's checks of `r` for `api` (the API it was routed to): which version serves it, and whether it may go on. */
export function checkBeforeChain(api: ApiSpec, r: CheckedRequest, xffDepth: number): BeforeChain {
  const version = chooseVersion(api, { path: r.path, rawPath: r.rawPath, query: r.query, header: headerOf(r) });
  let corsHeaders: Record<string, string> | undefined;
  const refused = (refusal: Answer): BeforeChain => ({ api: version.api, refusal, authIgnored: false, ...(corsHeaders ? { corsHeaders } : {}) });
  if (version.refusal) return refused(version.refusal);
  const served = version.api;
  // With options_passthrough Tyk's every middleware steps aside for OPTIONS (middleware.go):
  // no lists, no IP check, no size limit, no authentication; the upstream answers.
  if (served.cors?.optionsPassthrough === true && r.method === 'OPTIONS') return { ...version, authIgnored: true };
  const path = version.path ?? r.path;
  const header = headerOf(r);
  // A CORS preflight the gateway answers is not held to the endpoint lists (Tyk's URLAllowedAndIgnored).
  const preflight = skipsEndpointLists(served.cors, r.method, header('access-control-request-method') ?? '');
  const status = preflight ? 'ok' : endpointStatus(served, r.method, path, r.looped);
  if (status === 'forbidden') return refused(FORBIDDEN_ENDPOINT);
  // A mock reply answers here, before authentication, as Tyk's VersionCheck does.
  if (typeof status === 'object') return { ...refused(mockAnswer(status.reply)), keepAlive: true };
  if (served.cors !== undefined) {
    const cors = corsOutcome(served.cors, { method: r.method, lines: linesOf(r) });
    if (cors.answer) return { ...refused(cors.answer), keepAlive: true };
    corsHeaders = cors.headers;
  }
  const allow = served.ipAllow ?? [];
  const block = served.ipBlock ?? [];
  if (allow.length > 0 || block.length > 0) {
    const ip = clientIp(r.req, xffDepth);
    if (allow.length > 0 && !ipListed(ip, allow)) return refused(FORBIDDEN_IP);
    if (block.length > 0 && ipListed(ip, block)) return refused(FORBIDDEN_IP);
  }
  const tooLarge = sizeRefusal(served, r.method, path, r.req.headers['content-length']);
  if (tooLarge) return refused(tooLarge);
  return { ...version, authIgnored: status === 'ignored', ...(corsHeaders ? { corsHeaders } : {}) };
}

/** What a request that passed the checks carries into the pipeline: its path, query and headers after the version was stripped, and the version. */
export function passedRequest(
  checked: BeforeChain,
  r: CheckedRequest,
): Pick<GatewayRequest, 'path' | 'upstreamPath' | 'query' | 'headers' | 'accessVersions' | 'apiVersion' | 'authIgnored'> & { decodedPath: string } {
  const rawPath = checked.rawPath ?? r.rawPath;
  const decodedPath = checked.path ?? r.path;
  let headers = r.headers;
  if (checked.dropHeader !== undefined && headers[checked.dropHeader] !== undefined) {
    headers = { ...headers };
    delete headers[checked.dropHeader];
  }
  return {
    path: rawPath,
    decodedPath,
    upstreamPath: upstreamPathOf(checked.api, rawPath, decodedPath),
    query: checked.query ?? r.query,
    headers,
    ...(checked.accessVersions ? { accessVersions: checked.accessVersions } : {}),
    ...(checked.api.versionName !== undefined ? { apiVersion: checked.api.versionName } : {}),
    ...(checked.authIgnored ? { authIgnored: true } : {}),
  };
}
