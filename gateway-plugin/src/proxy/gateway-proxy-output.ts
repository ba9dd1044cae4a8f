/**
 * The `gateway_proxy` output: sends each gateway request to its API's upstream and streams the
 * upstream's answer back to the client, as Tyk's reverse proxy does. A write resolves once every
 * message's answer is sent (or its client left); it rejects only for a message that did not come
 * from the `api_gateway` input (no live exchange to answer). An upstream that is down, hangs or
 * speaks garbage gets the client Tyk's 500 / 504 answer, which is a delivered answer, not a nack:
 * a resend could repeat a non-idempotent request.
 *
 * The hot path: one undici Pool per upstream origin (kept while used, see upstream-pools.ts), targets parsed once per API, one
 * headers object and one dispatch handler per request, bodies streamed both ways.
 */
import { limitHeaders } from '../ratelimit/limit-headers.js';
import type * as Undici from 'undici';
import {
  ErrorCode,
  SvcError,
  errorMessage,
  f,
  injectTraceHeaders,
  maxInFlightField,
  metricsFor,
  parseDuration,
  registerOutput,
  type Batch,
  type ComponentContext,
  type Infer,
  type Message,
  type Output,
} from '@svc/engine';
import type { ApiSpec, EndpointCircuitBreaker } from '../apis/api-spec.js';
import { transformAnswer } from '../transform/body-transform.js';
import { firstEndpointFor } from '../kernel/endpoint-lists.js';
import { GATEWAY_REQUEST, LIVE_EXCHANGE, type GatewayRequest, type LiveExchange } from '../kernel/request.js';
import { StageGuard } from '../kernel/stage-guard.js';
import { GATEWAY_STAGES } from '../kernel/stages.js';
import { gatewayState } from '../kernel/state.js';
import type { GatewayConfig, StorageConfig } from '../conf/gateway-config.js';
import { RedisConnection } from '../sessions/redis-connection.js';
import { connectionNamed, isHopHeader } from './hop-headers.js';
import { ThrottledLog, processLink, type ProcessLink } from '@svc/engine/kit';
import { endpointBreaker, type EndpointBreaker } from './circuit-breaker.js';
import { NodeResponseCache } from './node-response-cache.js';
import { PROXY_FAILED, ProxyExchange, answerCached, type ExchangeExtras, type UpstreamFailure } from './proxy-exchange.js';
import { RedisResponseCache } from './redis-response-cache.js';
import { cachePlan, cacheStorageOf, keepFor, memoryResponseCache, type CachePlan } from './response-cache.js';
import { certificateIdForHost, certificatePem } from './upstream-certificates.js';
import { UpstreamPools, type UpstreamTls } from './upstream-pools.js';
import { Targets } from './upstream-url.js';

export const gatewayProxySpec = f.object({
  timeout: f
    .duration()
    .default('30s')
    .describe(
      "The longest a request may take from reaching the proxy to the upstream's response headers (Tyk's `proxy_default_timeout`, 30 s; svc.conf's `proxy_default_timeout`, when set, wins): the wait for a pooled connection, the connect, sending the request body and the wait for the answer. Past it the client gets Tyk's 504 (500 when the upstream refused the connection) and the upstream request is aborted. Also the longest a client may read nothing of an answer before it is cut. `0s`: no limit.",
    ),
  max_connections: f
    .int()
    .default(0)
    .validate((n) => (n >= 0 ? undefined : 'max_connections must be 0 (no cap) or more'))
    .describe(
      "The most connections open to one upstream origin at once; further requests wait for a free one, within `timeout`. 0 (the default): no cap, as Tyk's transport, so slow clients of one API cannot queue every other API of the same origin behind them.",
    ),
  max_upstreams: f
    .int()
    .default(1024)
    .validate((n) => (n >= 1 ? undefined : 'max_upstreams must be at least 1'))
    .advanced()
    .describe(
      'The most upstream origins with a connection pool at once; past it the least recently used pool is closed (its requests in flight finish). A pool unused for `keep_alive_timeout` is closed too.',
    ),
  max_in_flight: maxInFlightField(
    4096,
    'How many requests may be proxied at once; further ones wait (each one is a client waiting on its answer, so this bounds the gateway, not a batch).',
  ).advanced(),
  keep_alive_timeout: f
    .duration()
    .default('30s')
    .describe('How long an idle upstream connection is kept for the next request, when the upstream does not say (its `Keep-Alive: timeout=N` hint wins).'),
});

export type GatewayProxyConfig = Infer<typeof gatewayProxySpec>;

/** Request headers the proxy sets itself, or must not pass on (undici refuses `expect`; Node answered `100-continue`). */
/** Tyk's answer while a circuit breaker is open (reverse_proxy.go). */
const BREAKER_OPEN = 'Service temporarily unavailable.';

const SET_HERE = new Set(['host', 'x-forwarded-for', 'expect', 'content-length']);

export class GatewayProxyOutput implements Output {
  private readonly pools: UpstreamPools;
  private readonly targets = new Targets();
  private readonly log: ThrottledLog;
  private readonly failed: UpstreamFailure;
  private readonly timeoutMs: number;
  private readonly guard: StageGuard;
  /** Round robin position per load-balanced API (Tyk's spec.RoundRobin: a reload starts it over); the primary's with processes. */
  private readonly turns = new WeakMap<ApiSpec, { pos: number }>();
  private readonly breakers = new WeakMap<EndpointCircuitBreaker, EndpointBreaker>();
  private readonly logger: ComponentContext['logger'];
  /** With processes: the line to the primary, which keeps the node's turns, breakers and memory cache. */
  private readonly link: ProcessLink | undefined = processLink();
  /** With processes (and no `storage`), the memory cache the primary keeps, per gateway. */
  private readonly nodeCaches = new Map<string, NodeResponseCache>();
  /** The response cache in Redis, per gateway, while its config has `storage`. */
  private readonly redisCaches = new Map<string, { config: GatewayConfig; cache: RedisResponseCache }>();

  constructor(undici: typeof Undici, conf: GatewayProxyConfig, ctx: ComponentContext) {
    this.timeoutMs = parseDuration(conf.timeout);
    const open = metricsFor(ctx).gauge('gateway_upstream_pools', { help: 'Upstream origins with an open connection pool.' });
    this.pools = new UpstreamPools(undici, {
      connections: conf.max_connections,
      timeoutMs: this.timeoutMs,
      keepAliveMs: parseDuration(conf.keep_alive_timeout),
      maxPools: conf.max_upstreams,
      onCount: (n) => open.set(n),
    });
    this.log = new ThrottledLog(ctx.logger, 10_000, 5);
    this.guard = new StageGuard(ctx.logger);
    this.logger = ctx.logger;
    // The origin, never the full target: a target URL may carry credentials.
    this.failed = (apiId, origin, err) => this.log.warn(`proxy error: API ${apiId}, upstream ${origin}: ${errorMessage(err)}`);
  }

  async write(batch: Batch): Promise<void> {
    if (batch.length === 1) {
      const p = this.proxy(batch[0]!);
      if (p !== undefined) await p;
      return;
    }
    const running: Promise<void>[] = [];
    let missing = 0;
    for (const msg of batch) {
      try {
        const p = this.proxy(msg);
        if (p !== undefined) running.push(p);
      } catch {
        missing++;
      }
    }
    await Promise.all(running);
    if (missing > 0) throw notFromGateway(missing);
  }

  /** Proxies one message; undefined when there is nothing to wait for (already answered). */
  private proxy(msg: Message): Promise<void> | undefined {
    const exchange = msg.hasCtx() ? msg.ctx.get(LIVE_EXCHANGE) : undefined;
    const req = exchange && msg.ctx.get(GATEWAY_REQUEST);
    if (!exchange || !req) throw notFromGateway(1);
    const res = exchange.res;
    // Answered already (a processor refused it, the input timed it out) or its client is gone.
    if (res.headersSent || res.destroyed) return undefined;
    // The API the request was routed to: a reload meanwhile does not change a request in flight.
    const api = exchange.api ?? gatewayState(req.gateway)?.requestApi(req);
    // Fail closed: a request that missed a stage its API needs is neither proxied nor looped.
    if (api !== undefined && this.guard.refuses(api, req, msg.ctx.get(GATEWAY_STAGES))) {
      const refused = new ProxyExchange(res, req.apiId, '(none)', this.failed);
      refused.answer(500, PROXY_FAILED);
      return refused.done;
    }
    // A rewrite to svc://: no network call; the input runs the request again for the target API once this one is acked.
    if (req.loop !== undefined) {
      exchange.looped = { req, body: msg.content };
      return undefined;
    }

    try {
      if (api === undefined) throw new Error(`API ${req.apiId} is not loaded in gateway ${req.gateway} (removed by a reload?)`);
      const config = gatewayState(req.gateway)?.config;
      const limits = limitHeaders(req, config?.rate_limit_response_headers ?? 'quotas');
      const method = (req.upstreamMethod ?? req.method) as Undici.Dispatcher.HttpMethod;
      // Tyk's cache middleware runs before the proxy: a hit neither takes a turn of the load
      // balancer nor asks a circuit breaker.
      const plan =
        api.cache === undefined
          ? undefined
          : cachePlan(api, req, method, req.upstreamUrl ?? `${req.upstreamPath}?${req.query}`, knownBody(msg.content, exchange));
      if (plan === undefined) return this.forward(msg, exchange, req, api, config, limits, method, undefined);
      // Tyk's cache connection: cache_storage when enable_separate_cache_store, else storage.
      const cacheStore = cacheStorageOf(config);
      const redis = cacheStore === undefined ? this.nodeCache(req.gateway) : this.redisCache(req.gateway, config!, cacheStore);
      if (redis === undefined) {
        const hit = memoryResponseCache(req.gateway).get(plan.key);
        if (hit === undefined) return this.forward(msg, exchange, req, api, config, limits, method, plan);
        answerCached(res, hit, limits);
        return undefined;
      }
      return redis.get(plan.key).then((hit) => {
        // The client left while Redis answered: nothing to send (a handler would wait for a close that came).
        if (res.headersSent || res.destroyed) return undefined;
        if (hit === undefined) return this.forward(msg, exchange, req, api, config, limits, method, plan, redis);
        try {
          answerCached(res, hit, limits);
        } catch (err) {
          return this.failedBefore(res, req.apiId, '(none)', err);
        }
        return undefined;
      });
    } catch (err) {
      // No upstream to send to (a bad URL, an API gone): Tyk's proxy error.
      return this.failedBefore(res, req.apiId, '(none)', err);
    }
  }

  private failedBefore(res: LiveExchange['res'], apiId: string, origin: string, err: unknown, handler?: ProxyExchange): Promise<void> {
    this.failed(apiId, origin, err as Error);
    handler ??= new ProxyExchange(res, apiId, origin, this.failed);
    if (!res.headersSent) handler.answer(500, PROXY_FAILED);
    return handler.done;
  }

  /** With processes and no `storage`: the memory cache the primary keeps for gateway `name`. */
  private nodeCache(name: string): NodeResponseCache | undefined {
    if (this.link === undefined) return undefined;
    let c = this.nodeCaches.get(name);
    if (c === undefined) this.nodeCaches.set(name, (c = new NodeResponseCache(this.link, name)));
    return c;
  }

  /** The response cache in Redis of gateway `name` (`storage`), made once per config. */
  private redisCache(name: string, config: GatewayConfig, storage: StorageConfig): RedisResponseCache {
    let c = this.redisCaches.get(name);
    if (c === undefined || c.config !== config) {
      if (c !== undefined) void c.cache.close();
      c = { config, cache: new RedisResponseCache(new RedisConnection(storage, 'the response cache'), this.log) };
      this.redisCaches.set(name, c);
    }
    return c.cache;
  }

  /** Sends one request upstream (load balancer, circuit breaker, deadlines), keeping its answer when `plan` says so. */
  private forward(
    msg: Message,
    exchange: LiveExchange,
    req: GatewayRequest,
    api: ApiSpec,
    config: GatewayConfig | undefined,
    limits: Record<string, string> | undefined,
    method: Undici.Dispatcher.HttpMethod,
    plan: CachePlan | undefined,
    redis?: RedisResponseCache | NodeResponseCache,
  ): Promise<void> | undefined {
    const res = exchange.res;
    let targetUrl: string | undefined | Promise<string | undefined>;
    try {
      targetUrl = api.loadBalancing === undefined ? api.targetUrl : this.nextTarget(req.gateway, api, api.loadBalancing.targets);
    } catch (err) {
      return this.failedBefore(res, req.apiId, '(none)', err);
    }
    if (!(targetUrl instanceof Promise)) return this.forwardTo(msg, exchange, req, api, config, limits, method, plan, redis, targetUrl);
    return targetUrl.then(
      (t) => (res.headersSent || res.destroyed ? undefined : this.forwardTo(msg, exchange, req, api, config, limits, method, plan, redis, t)),
      (err: unknown) => this.failedBefore(res, req.apiId, '(none)', err),
    );
  }

  /** `forward` once the target is known. */
  private forwardTo(
    msg: Message,
    exchange: LiveExchange,
    req: GatewayRequest,
    api: ApiSpec,
    config: GatewayConfig | undefined,
    limits: Record<string, string> | undefined,
    method: Undici.Dispatcher.HttpMethod,
    plan: CachePlan | undefined,
    redis: RedisResponseCache | NodeResponseCache | undefined,
    targetUrl: string | undefined,
  ): Promise<void> | undefined {
    const res = exchange.res;
    let origin = '(none)';
    try {
      const content = msg.content;
      if (targetUrl === undefined) {
        // Tyk sends the request to its "all hosts are down" server, which answers this.
        this.failed(req.apiId, '(none)', new Error('load balancing is on and proxy.target_list is empty: add the upstreams to it'));
        res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
        res.end('all hosts are down\n');
        return undefined;
      }
      const at = this.targets.locate(req, targetUrl);
      origin = at.target.origin;
      const pool = this.pools.get(origin, at.target.origin.startsWith('https:') ? upstreamTls(api, at.target.host) : undefined);
      const headers = this.headers(req, api, at.target.host, exchange);
      let body: LiveExchange['req'] | Buffer | undefined;
      if (content.length > 0 || req.bodyReplaced === true) {
        // The input read the body for a rule: it is the message now (a processor may have changed it).
        headers['content-length'] = String(content.length);
        body = content;
      } else {
        // Streamed from the client as it arrives, framed as the client framed it.
        const live = exchange.req.headers;
        if (live['transfer-encoding'] !== undefined) body = exchange.req;
        else if (live['content-length'] !== undefined) {
          headers['content-length'] = live['content-length'];
          if (live['content-length'] !== '0') body = exchange.req;
        }
      }
      injectTraceHeaders(msg, headers);
      // svc.conf's proxy_default_timeout, when set, wins over the output's `timeout` (as tyk.conf's does).
      const timeoutMs = config !== undefined && config.proxy_default_timeout > 0 ? Math.ceil(config.proxy_default_timeout * 1000) : this.timeoutMs;
      let extras = this.endpointExtras(req.gateway, api, method, req.upstreamPath);
      if (plan !== undefined) {
        const cache = memoryResponseCache(req.gateway);
        extras ??= {};
        extras.record = (status, answerHeaders, body) => {
          const ttl = keepFor(api, plan, status, answerHeaders);
          if (ttl === undefined) return undefined;
          if (redis !== undefined) {
            // The primary's cache is awaited before the answer ends; Redis is written as Tyk's goroutine does, not waited for.
            const kept = redis.set(plan.key, { status, headers: answerHeaders, body }, ttl);
            return kept instanceof Promise ? kept : undefined;
          }
          cache.set(plan.key, { status, headers: answerHeaders, body }, ttl);
          return undefined;
        };
      }
      const answerTransform = req.responseTransform;
      if (answerTransform !== undefined) {
        const accepts = exchange.req.headers['accept-encoding'] !== undefined;
        const { context, meta } = answerTransform;
        extras ??= {};
        extras.transformBody = (body, encoding) => {
          const out = transformAnswer(answerTransform, body, encoding, accepts, { ...(context ? { context } : {}), ...(meta ? { meta } : {}) });
          if (out.error !== undefined) this.logger.error(`Failed to apply template to request: ${out.error}`);
          return out.body;
        };
      }
      const dispatch: Undici.Dispatcher.DispatchOptions = { path: at.path, method, headers, body };
      if (timeoutMs !== this.timeoutMs) dispatch.headersTimeout = timeoutMs;
      const send = (ready: boolean): Promise<void> | undefined => {
        if (res.headersSent || res.destroyed) return undefined;
        if (!ready) {
          // Tyk's open breaker: refused before the upstream, not counted.
          const refused = new ProxyExchange(res, req.apiId, origin, this.failed);
          refused.answer(503, BREAKER_OPEN);
          return refused.done;
        }
        const h = new ProxyExchange(res, req.apiId, origin, this.failed, limits, timeoutMs, req.responseHeaders, extras);
        try {
          h.dispatched();
          // undici reports a request it refuses (a bad header value) through the handler: a 500, as any proxy failure.
          pool.dispatch(dispatch, h);
        } catch (err) {
          // The proxy closing: Tyk's proxy error.
          return this.failedBefore(res, req.apiId, origin, err, h);
        }
        return h.done;
      };
      const ready = extras?.breaker?.ready() ?? true;
      if (ready instanceof Promise) return ready.then(send);
      return send(ready);
    } catch (err) {
      // No upstream to send to (a bad URL, the proxy closing): Tyk's proxy error.
      return this.failedBefore(res, req.apiId, origin, err);
    }
  }

  /**
   * Tyk's nextTarget with load balancing: the API's targets in turn, from the first (uptime tests
   * are not run, so no target is skipped: `check_host_against_uptime_tests` is refused at load).
   * Undefined when the list is empty. With processes the turn is the primary's, one for the node.
   */
  private nextTarget(gateway: string, api: ApiSpec, targets: string[]): string | undefined | Promise<string | undefined> {
    if (targets.length === 0) return undefined;
    if (this.link !== undefined) return this.link.turn(`svc.gateway.round-robin:${gateway}\u0000${api.id}`).then((t) => targets[t % targets.length]);
    let turn = this.turns.get(api);
    if (turn === undefined) this.turns.set(api, (turn = { pos: 0 }));
    const at = turn.pos % targets.length;
    turn.pos = (turn.pos + 1) % 0x1_0000_0000;
    return targets[at];
  }

  /**
   * The endpoint's hard timeout (its `hard_timeouts` entry, else the version's
   * `global_enforce_timeout`) and circuit breaker, matched as Tyk matches them at the proxy: the
   * upstream method and the path the upstream gets, without the listen path.
   */
  private endpointExtras(gateway: string, api: ApiSpec, method: string, upstreamPath: string): (ExchangeExtras & { breaker?: EndpointBreaker }) | undefined {
    if (api.hardTimeouts === undefined && api.globalEnforceTimeoutMs === undefined && api.circuitBreakers === undefined) return undefined;
    const path = upstreamPath.charCodeAt(0) === 47 ? upstreamPath : `/${upstreamPath}`;
    const extras: ExchangeExtras & { breaker?: EndpointBreaker } = {};
    const hard = firstEndpointFor(api.hardTimeouts, api, method, path);
    const hardMs = hard !== undefined && hard.ms > 0 ? hard.ms : (api.globalEnforceTimeoutMs ?? 0);
    if (hardMs > 0) extras.hardTimeoutMs = hardMs;
    const conf = firstEndpointFor(api.circuitBreakers, api, method, path);
    if (conf !== undefined) {
      let breaker = this.breakers.get(conf);
      if (breaker === undefined) {
        const apiId = api.id;
        const name = `svc.gateway.breaker:${gateway}\u0000${apiId}\u0000${conf.method}\u0000${conf.path}`;
        breaker = endpointBreaker(conf, name, this.link, (event) => {
          if (event === 'tripped') this.logger.warn(`[PROXY] [CIRCUIT BREAKER] Breaker tripped for path: ${conf.path} (API ${apiId})`);
          else this.logger.info(`[PROXY] [CIRCUIT BREAKER] Breaker reset for path: ${conf.path} (API ${apiId})`);
        });
        this.breakers.set(conf, breaker);
      }
      const b = breaker;
      extras.breaker = b;
      extras.onOutcome = (failed) => (failed ? b.fail() : b.success());
    }
    return extras;
  }

  /**
   * The upstream request's headers: the request's (as processors left them) without hop-by-hop
   * ones, Host as Tyk sets it (the target's, or the client's with `preserve_host_header`), and
   * `X-Forwarded-For` (no `X-Forwarded-Proto` of its own, as Tyk v5.14.0).
   */
  private headers(req: GatewayRequest, api: ApiSpec, targetHost: string, exchange: LiveExchange): Record<string, string | string[]> {
    const src = req.headers;
    const named = connectionNamed(src.connection);
    const out: Record<string, string | string[]> = {};
    for (const name in src) {
      const v = src[name];
      if (v === undefined || SET_HERE.has(name) || isHopHeader(name, v) || (named !== undefined && named.has(name))) continue;
      out[name] = v;
    }
    const clientHost = src.host ?? exchange.req.headers.host;
    out.host = api.preserveHostHeader && typeof clientHost === 'string' ? clientHost : targetHost;
    // Tyk's requestIPHops: earlier hops kept, comma and space, then the client's address.
    const ip = clientIp(req.remoteAddress);
    const prior = src['x-forwarded-for'];
    if (prior === undefined) out['x-forwarded-for'] = ip;
    else out['x-forwarded-for'] = `${Array.isArray(prior) ? prior.join(', ') : prior}, ${ip}`;
    // No X-Forwarded-Proto of its own: Tyk v5.14.0 sets none (a client's is passed on as it came).
    return out;
  }

  async close(): Promise<void> {
    const caches = [...this.redisCaches.values()];
    this.redisCaches.clear();
    await Promise.all([this.pools.close(), ...caches.map((c) => c.cache.close())]);
  }
}

/** An API's TLS settings for an HTTPS upstream at `host`, with the client certificate Tyk would present there. */
function upstreamTls(api: ApiSpec, host: string): UpstreamTls | undefined {
  const id = api.upstreamCertificates === undefined ? '' : certificateIdForHost(host, api.upstreamCertificates);
  if (id === '') return api.upstreamTls;
  return { insecureSkipVerify: false, ...api.upstreamTls, clientCertificate: { id, pem: certificatePem(id) } };
}

/** The request's body when the proxy knows it: read into the message, or none; undefined while it streams. */
function knownBody(content: Buffer, exchange: LiveExchange): Buffer | undefined {
  if (content.length > 0) return content;
  const live = exchange.req.headers;
  if (live['transfer-encoding'] !== undefined || (live['content-length'] !== undefined && live['content-length'] !== '0')) return undefined;
  return content;
}

/** An IPv4 client seen on a dual-stack socket (`::ffff:10.0.0.1`) as Go reports it: `10.0.0.1`. */
function clientIp(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

function notFromGateway(count: number): SvcError {
  return new SvcError(
    ErrorCode.Write,
    `gateway_proxy: ${count === 1 ? 'a message has' : `${count} messages have`} no gateway request to answer: ` +
      'gateway_proxy proxies the requests of the api_gateway input; make api_gateway the input of this stream, or use another output',
  );
}

registerOutput('gateway_proxy', {
  summary: "Proxies gateway requests to their API's upstream and streams the answer back, as Tyk's reverse proxy.",
  description: [
    "Each request of the `api_gateway` input goes to its API's `target_url` (the request's path, listen path",
    "stripped when `strip_listen_path`, joined with one slash; the target's query, then the request's), or to",
    'the full URL a rewrite gave. Hop-by-hop headers are removed both ways, `X-Forwarded-For` gets the client',
    "address appended (no `X-Forwarded-Proto` is added, as Tyk v5.14.0), Host is the target's (the client's with",
    '`preserve_host_header`), and the trace context is forwarded. Bodies stream both ways with back-pressure;',
    'a body the input read for a rule is sent from the message.',
    '',
    'Connections are kept alive, one pool per upstream origin (`max_connections` each, no cap by default; at most',
    '`max_upstreams` pools, the least recently used closed first, an idle one after `keep_alive_timeout`). An upstream that',
    "refuses, resets or sends garbage before answering gets the client Tyk's 500 body (Tyk v5.14.0 answers 500 here, not 502)",
    '(`There was a problem proxying the request`); no response headers within `timeout` of reaching the proxy',
    '(the wait for a connection and the request body included): 504',
    '(`Upstream service reached hard timeout.`). An upstream that stops mid-body ends the client connection.',
    "A client that leaves aborts its upstream request (counted by the gateway input as Tyk's 499).",
    '',
    "The API's traffic settings apply here, as Tyk's: load balancing over `proxy.target_list` (round robin),",
    '`hard_timeouts` / `global_enforce_timeout`, `circuit_breakers`, the response cache (`cache_options`; in the Redis of',
    "svc.conf's `storage`, shared by every gateway on it, else in memory), one state for every process of the gateway",
    '(with `processes`, the primary keeps the breakers, the load-balancing turn and the memory cache),',
    'and for HTTPS upstreams `proxy.transport` and `upstream_certificates`.',
  ].join('\n'),
  config: gatewayProxySpec,
  examples: [
    `output:
  gateway_proxy:
    timeout: 30s
    max_connections: 0`,
  ],
  factory: async (conf, ctx) => {
    // undici loads when a gateway is built, not with every engine start.
    const undici = await import('undici');
    return new GatewayProxyOutput(undici, conf, ctx);
  },
});
