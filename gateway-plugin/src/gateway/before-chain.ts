/**
 * What Tyk v5.14.0 checks of a request before any stage svc's chain has (its `api_loader.go`
 * order: VersionCheck with the endpoint lists, then the IP allow list, the IP deny list and the
 * request size limit, all before authentication and every rate limit). The `api_gateway` input
 * runs these itself for every request it routes (and every request a `svc://` loop brings to an
 * API), so no pipeline can serve an API without them: a definition that sets them is never
 * answered with less than it asks for.
 */
import type { IncomingMessage } from 'node:http';
import type { Answer } from '@svc/engine';
import type { ApiSpec } from '../apis/api-spec.js';
import { clientIp, ipListed } from './client-ip.js';
import { ENDPOINT_FORBIDDEN, endpointStatus } from './endpoint-lists.js';
import { tykError } from './errors.js';
import { sizeRefusal } from './size-limits.js';

const FORBIDDEN_ENDPOINT = tykError(403, ENDPOINT_FORBIDDEN);
const FORBIDDEN_IP = tykError(403, 'access from this IP has been disallowed');

export interface BeforeChain {
  /** Tyk's answer when the request is refused here (it never reaches the pipeline). */
  refusal?: Answer;
  /** An ignored endpoint: served without authentication (and without key-level limits), as Tyk does. */
  authIgnored: boolean;
}

const PASS: BeforeChain = { authIgnored: false };
const IGNORED: BeforeChain = { authIgnored: true };

/** Tyk's checks of `method` `path` (decoded, with the listen path) for `api`, on the live request `req`. */
export function checkBeforeChain(api: ApiSpec, req: IncomingMessage, method: string, path: string, looped: boolean, xffDepth: number): BeforeChain {
  const status = endpointStatus(api, method, path, looped);
  if (status === 'forbidden') return { refusal: FORBIDDEN_ENDPOINT, authIgnored: false };
  const allow = api.ipAllow ?? [];
  const block = api.ipBlock ?? [];
  if (allow.length > 0 || block.length > 0) {
    const ip = clientIp(req, xffDepth);
    if (allow.length > 0 && !ipListed(ip, allow)) return { refusal: FORBIDDEN_IP, authIgnored: false };
    if (block.length > 0 && ipListed(ip, block)) return { refusal: FORBIDDEN_IP, authIgnored: false };
  }
  const tooLarge = sizeRefusal(api, method, path, req.headers['content-length']);
  if (tooLarge) return { refusal: tooLarge, authIgnored: false };
  return status === 'ignored' ? IGNORED : PASS;
}
