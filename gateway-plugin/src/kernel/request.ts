/**
 * What a gateway request carries through the pipeline. The `api_gateway` input makes one
 * message per request and sets two ctx values on it:
 *
 * - {@link GATEWAY_REQUEST} (crosses to worker threads): what processors read and change — the
 *   API, method, path, headers, query, the session found by `gateway_auth`. A processor that
 *   changes it sets it again (`msg.ctx.set(GATEWAY_REQUEST, req)`) so the change crosses back.
 * - {@link LIVE_EXCHANGE} (main thread only): the live request and response, which
 *   `gateway_proxy` streams to and from the upstream.
 *
 * The message's content is the request body only when a rule of the API needs the body (split
 * token, a body trigger); otherwise it is empty and the proxy streams the body from the live
 * request. A processor that refuses a request answers it with `answerMessage(msg, answer)`
 * (see `errors.ts` for Tyk's bodies).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { contextKey } from '@svc/engine';
import type { ApiSpec } from '../apis/api-spec.js';
import type { SessionState } from '../sessions/session.js';

export interface GatewayRequest {
  /** The gateway (state) this request belongs to: see `kernel/state.ts`. */
  gateway: string;
  apiId: string;
  method: string;
  /** The path as received (undecoded), without the query. */
  path: string;
  /** The path the upstream gets (listen path stripped when `strip_listen_path`; rewrites change it). */
  upstreamPath: string;
  /** The query string without `?` ('' when none). */
  query: string;
  /** Request headers, names lower-cased, as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** The client's address. */
  remoteAddress: string;
  /** True when the client connection is TLS. */
  tls: boolean;
  /** A full URL replacing the API's target for this request (a rewrite to another host). */
  upstreamUrl?: string;
  /**
   * Set by the input for an endpoint of the API's ignored list (Tyk's StatusOkAndIgnore): served
   * without authentication and key-level limits; `gateway_auth` passes it without a session.
   */
  authIgnored?: boolean;
  /**
   * A versioned API: the versions a key's access rights may list to reach this request's version
   * (Tyk's AccessRightsCheck); absent for a not-versioned API.
   */
  accessVersions?: string[];
  /** The version (its key in `version_data.versions`) that serves the request, on a versioned API. */
  apiVersion?: string;
  /**
   * Set by `gateway_auth`: the key (or JWT identity) as stored (`keyId`, hashed with `hash_keys`),
   * as the client sent it (`token`, Tyk's auth token), and its session after policies applied.
   */
  session?: { keyId: string; token?: string; state: SessionState };
  /**
   * Set by `gateway_rate_limit` when svc.conf has `rate_limit_response_headers: rate_limits`: the
   * limit the request met, sent as X-RateLimit-* (else they carry the session's quota, Tyk's default).
   */
  rateLimit?: { limit: number; remaining: number; resetAt: number };
  /**
   * Set by `gateway_url_rewrite` for a rewrite to `svc://{api id or name}/path`: instead of
   * proxying, the gateway runs the request again for that API (its whole chain), with no network
   * call. `limit` is the request's `loop_limit`, `checkLimits` its `check_limits`.
   */
  loop?: { target: string; path: string; query: string; method: string; limit: number; checkLimits: boolean };
  /** Set by `gateway_transform` (a method transform): the method the upstream gets. */
  upstreamMethod?: string;
  /**
   * Set by `gateway_transform`: the edits of the upstream's answer headers (names lower-case, values
   * filled in), applied by `gateway_proxy` in order: `remove`, then `set`.
   */
  responseHeaders?: { remove: string[]; set: Array<[string, string]> };
  /** Set by `gateway_transform` (a body transform): the message's content is the upstream's body, even when empty. */
  bodyReplaced?: boolean;
  /**
   * Set by `gateway_transform` (a `transform_response` entry): the template `gateway_proxy` runs on
   * the upstream's answer body, with what it adds to the body's fields.
   */
  responseTransform?: { template: string; context?: Record<string, unknown>; meta?: Record<string, unknown> };
  /** How many loops brought this request here (0 or absent: it came from a client). */
  loopLevel?: number;
  /** A looped request's `loop_limit` (0: Tyk's default, 5). */
  loopLimit?: number;
  /** False on a looped request unless it asked for `check_limits=true`: Tyk skips rate limits and quotas then. */
  checkLimits?: boolean;
}

export const GATEWAY_REQUEST = contextKey<GatewayRequest>('svc.gateway.request', { crossesThreads: true });

/** The live exchange: only the main thread has it; `gateway_proxy` answers through it. */
export interface LiveExchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** Start time (process.hrtime.bigint()) for latency metrics. */
  started: bigint;
  /**
   * The API the request was routed to. A reload may replace or remove it in the state meanwhile;
   * a request already routed finishes on this one (the proxy reads its target here).
   */
  api?: ApiSpec;
  /**
   * Set by `gateway_proxy` instead of proxying a request that loops (`req.loop`): the request as
   * the chain left it and its body. The input acts on it when the message is acked, running the
   * request again for its target API on this exchange: only the input starts requests and writes
   * their answers.
   */
  looped?: { req: GatewayRequest; body: Buffer };
}

export const LIVE_EXCHANGE = contextKey<LiveExchange>('svc.gateway.exchange');
