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
import { joinListenPath } from './loop-target.js';
import { clientIp, firstHeader, headerLines, ipListed } from './client-ip.js';
import { clientCertificateRefusal } from './client-certificate-check.js';
import { corsOutcome, skipsEndpointLists } from './cors.js';
import { ENDPOINT_FORBIDDEN, endpointStatus } from '../kernel/endpoint-lists.js';
import { tykError } from '../kernel/errors.js';
import type { GatewayRequest } from '../kernel/request.js';
import { mockAnswer } from '../kernel/mock-reply.js';
import { ownValue } from '../kernel/own-value.js';
import { sizeRefusal } from './size-limits.js';
import { chooseVersion, versionApi, type VersionChoice } from './version-check.js';

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
  /** A base API's version that is another API: the request goes on as that API's (its own checks), with the base's listen path stripped as the base strips it. */
  handOver?: ApiSpec;
}

/** The first value of a header: the live request's first line (Go's Header.Get), else the headers given. */
function headerOf(r: CheckedRequest): (name: string) => string | undefined {
  return (name) => {
    if (!r.looped) return firstHeader(r.req, name);
    const v = ownValue(r.headers, name);
    return Array.isArray(v) ? v[0] : v;
  };
}

/** Every line of a header (Go's Header[name]). */
function linesOf(r: CheckedRequest): (name: string) => string[] {
  return (name) => {
    if (!r.looped) return headerLines(r.req, name);
    const v = ownValue(r.headers, name);
    return v === undefined ? [] : Array.isArray(v) ? v : [v];
  };
}

/** Tyk's checks of `r` for `api` (the API it was routed to): which version serves it, and whether it may go on. */
export function checkBeforeChain(api: ApiSpec, r: CheckedRequest, xffDepth: number, findApi: (nameOrId: string) => ApiSpec | undefined): BeforeChain {
  const version = chooseVersion(api, { path: r.path, rawPath: r.rawPath, query: r.query, header: headerOf(r) });
  let corsHeaders: Record<string, string> | undefined;
  const refused = (refusal: Answer): BeforeChain => ({ api: version.api, refusal, authIgnored: false, ...(corsHeaders ? { corsHeaders } : {}) });
  if (version.refusal) return refused(version.refusal);
  if (version.childVersion !== undefined) {
    const routed = versionApi(api, version.childVersion, findApi);
    if ('refusal' in routed) return refused(routed.refusal);
    if ('api' in routed) return { ...version, authIgnored: false, handOver: routed.api };
  }
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
  // Tyk's CertificateCheckMW comes after the IP lists, before the size limit.
  const certificate = served.mutualTls === undefined ? undefined : clientCertificateRefusal(served.mutualTls, r.req.socket);
  if (certificate) return refused(certificate);
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
  if (checked.dropHeader !== undefined && ownValue(headers, checked.dropHeader) !== undefined) {
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

/** A request as it goes on after the checks: the API serving it, its target, what the checks said. */
export interface ServedRequest {
  api: ApiSpec;
  target: CheckedRequest;
  checked: BeforeChain;
  /** The upstream path when the request was handed over to another API (Tyk's handler gets the base's stripped path as it is). */
  upstreamPath?: string;
}

/** Versions handed over this many times in a row are Tyk's 500 (a base naming itself through another). */
const MAX_HAND_OVERS = 5;
const HAND_OVER_LOOP = tykError(500, 'Internal Server Error');

/**
 * {@link checkBeforeChain}, following a base API's hand-over to the API serving the version asked
 * for: that API's own checks then run on the request, whose path is what the base leaves of it
 * (its listen path stripped when it strips it, the version taken out when it strips that), as
 * Tyk's VersionCheck calls the version API's handler with the request.
 */
export function checkServed(api: ApiSpec, target: CheckedRequest, xffDepth: number, findApi: (nameOrId: string) => ApiSpec | undefined): ServedRequest {
  let served: ServedRequest = { api, target, checked: checkBeforeChain(api, target, xffDepth, findApi) };
  for (let hops = 0; served.checked.handOver !== undefined; hops++) {
    const { api: base, target: t, checked } = served;
    const next = checked.handOver!;
    if (hops >= MAX_HAND_OVERS) return { api: base, target: t, checked: { api: base, refusal: HAND_OVER_LOOP, authIgnored: false } };
    const decoded = checked.path ?? t.path;
    const raw = upstreamPathOf(base, checked.rawPath ?? t.rawPath, decoded);
    const rest = upstreamPathOf(base, decoded, decoded);
    let headers = t.headers;
    if (checked.dropHeader !== undefined && ownValue(headers, checked.dropHeader) !== undefined) {
      headers = { ...headers };
      delete headers[checked.dropHeader];
    }
    const handed: CheckedRequest = {
      ...t,
      path: joinListenPath(next.listenPath, rest),
      rawPath: joinListenPath(next.listenPath, raw),
      query: checked.query ?? t.query,
      headers,
    };
    served = { api: next, target: handed, checked: checkBeforeChain(next, handed, xffDepth, findApi), upstreamPath: raw };
  }
  // The served API's own version check changed the path: its upstream path is its own.
  if (served.checked.path !== undefined) delete served.upstreamPath;
  return served;
}
