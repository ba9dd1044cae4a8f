/**
 * The `api_gateway` input: a Tyk-compatible gateway's front door. It loads svc.conf, the API
 * definitions of `app_path` and the policies into a {@link GatewayState} (registered under the
 * gateway's name for the processors, which run on the main thread), listens on `listen_address:listen_port`, and
 * makes every request for an API a one-message transaction:
 *
 * - `GATEWAY_REQUEST` in ctx (crosses threads): what processors read; `LIVE_EXCHANGE` (main
 *   thread): the live request and response the proxy streams through.
 * - The content is empty unless a rule of the API reads the body (split token): then the body is
 *   read, bounded in size (413) and time (408).
 * - On ack: a request the proxy found looping (`svc://`, its `looped` result) runs again for its
 *   target API; else a processor's answer (the result store) is written; an answer the output wrote
 *   already (the proxy) is left alone; otherwise an empty 200. A nack is Tyk's 500 (its answer when proxying fails).
 *
 * Before a request becomes a transaction, the input runs what Tyk checks before its chain
 * (`before-chain.ts`: endpoint lists, IP allow and deny lists, size limits) and answers Tyk's
 * refusal itself, so no pipeline can serve an API without them.
 *
 * Routing is Tyk's: the longest listen path, a clean path (else a 301), Tyk's 404 for no API. The
 * management API (`/hello`, `/svc/...`) is served on the same port, or on `control_api_port`.
 * Closing stops accepting and answers what is in flight as its transactions are acked; queued,
 * unread requests get 503.
 *
 * With `processes`, every process runs this input over the one listening socket: sessions kept
 * in memory are a copy in each process written through the primary (`sessions/process-store.ts`),
 * and a reload through the management API reloads every process before it answers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import {
  Message,
  REQUESTER,
  errorMessage,
  extractTraceHeaders,
  parseDuration,
  setTraceParent,
  type Answer,
  type ComponentContext,
  type Logger,
} from '@svc/engine';
import { BodyError, PushInput, processLink, readBody, type ProcessLink, type HttpListener } from '@svc/engine/kit';
import type { ApiSpec } from '../apis/api-spec.js';
import type { GatewayConfig } from '../conf/gateway-config.js';
import { ApiRouter, upstreamPathOf, type HostRouting } from './api-router.js';
import { BAD_REQUEST, NOT_FOUND, TOO_MANY_HOSTS, answered, duplicateHost, redirect, writeAnswer } from '../kernel/answers.js';
import { checkServed, passedRequest, type CheckedRequest } from './before-chain.js';
import { ClientPresence } from './client-presence.js';
import { needsBody } from './body-rules.js';
import { tykError } from '../kernel/errors.js';
import { bindOverrides } from '../kernel/error-override.js';
import { MAX_FORM_BYTES, type OAuthEndpoint, answerOAuth, oauthEndpoint } from './oauth-endpoints.js';
import { headerLines } from './client-ip.js';
import { BATCH_HOP, NESTED, NOT_POSTED, answerBatch, batchPath } from './batch-requests.js';
import { GatewayMetrics } from './gateway-metrics.js';
import type { GatewaySource } from '../kernel/gateway-source.js';
import { ManagementApi, isManagementPath } from '../management/management-api.js';
import { parseTarget, type Target } from '../kernel/request-target.js';
import type { ApiGatewayConfig } from './api-gateway-spec.js';
import { DEFAULT_LOOP_LIMIT, findLoopTarget, joinListenPath } from './loop-target.js';
import { GATEWAY_REQUEST, LIVE_EXCHANGE, type GatewayRequest, type LiveExchange } from '../kernel/request.js';
import { chainProblem, chainStages, type ChainStage } from './chain.js';
import { StageGuard } from '../kernel/stage-guard.js';
import { EXPIRES_HEADER } from './version-check.js';
import { GATEWAY_STAGES, answeredByStage } from '../kernel/stages.js';
import { GatewayState, registerGatewayState, unregisterGatewayState } from '../kernel/state.js';
import { gatewayTls } from './gateway-tls.js';
import { closeGatewayServices, startGatewayServices, type GatewayService } from '../kernel/gateway-services.js';
import { keepingPrevious } from '../sessions/load-policies.js';
import { ProcessPolicies } from '../sessions/process-policies.js';
import type { Policy } from '../sessions/session.js';
import { CachedSessionStore } from '../sessions/cached-store.js';
import { ProcessSessionStore } from '../sessions/process-store.js';
import type { SessionStore } from '../sessions/session-store.js';

/** Tyk's answer when a transaction was not delivered (the proxy failed it). */
/** svc.conf's routing by Host. */
function hostRouting(config: GatewayConfig): HostRouting {
  return { customDomains: config.enable_custom_domains, hostname: config.hostname, strictRoutes: config.http_server_options?.enable_strict_routes === true };
}

const NOT_DELIVERED = tykError(500, 'There was a problem proxying the request');
const SHUTTING_DOWN = tykError(503, 'Gateway is shutting down');
const TOO_LARGE = tykError(413, 'Request is too large');
const TIMED_OUT = tykError(408, 'Request timed out');
const BODY_UNREADABLE = tykError(400, 'Request body could not be read');
/** What Tyk records for a request whose client left before the status went out. */
const CLIENT_CLOSED = 499;
/**
 * The most header fields a request may have (431 past it). Go's server counts none, bounding the
 * head's bytes only (as `max_header_size` does here); node's own count limit drops the fields past
 * about the 1,000th silently, which a gateway must not do.
 */
const MAX_HEADER_FIELDS = 1000;

/** `listen_address:listen_port` as the engine's listener takes it (all interfaces when empty). */
function addressOf(host: string, port: number): string {
  if (!host) return `:${port}`;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export class ApiGatewayInput extends PushInput {
  /**
   * Requests are independent: up to this many go through the processors at once, so a
   * processor waiting on Redis or an identity provider does not hold up the others.
   */
  readonly concurrency = 1024;
  private readonly log: Logger;
  private readonly metrics: GatewayMetrics;
  private readonly guard: StageGuard;
  private listener: HttpListener | undefined;
  /** With `processes`: stops reloading when another process's management API reloads. */
  private unlinkReload: (() => void) | undefined;
  /** With `processes`: the one set of policies every process serves. */
  private sharedPolicies: ProcessPolicies | undefined;
  private management: ManagementApi | undefined;
  private readonly ctx: ComponentContext;
  /** What the stage families start with this gateway (rate limiting's heartbeat). */
  private services: GatewayService[] | undefined;
  /** The gateway stages of the stream this input feeds (absent when built outside a stream). */
  private readonly chain: ChainStage[] | undefined;
  /** Swapped whole on reload; a request keeps the API it was routed to. */
  private router = new ApiRouter([]);
  state: GatewayState | undefined;
  readonly confPath: string;
  readonly name: string;

  constructor(
    readonly conf: ApiGatewayConfig,
    ctx: ComponentContext,
    private readonly source: GatewaySource,
  ) {
    super();
    this.log = ctx.logger;
    this.metrics = new GatewayMetrics(ctx);
    this.guard = new StageGuard(ctx.logger);
    this.chain = ctx.stream === undefined ? undefined : chainStages(ctx.stream);
    this.ctx = ctx;
    this.confPath = resolve(conf.conf);
    // Unique per input and config file: processors on any thread find the state by it.
    this.name = `${ctx.label}@${this.confPath}`;
  }

  async connect(): Promise<void> {
    if (this.closing) return;
    if (!this.state) await this.load();
    if (!this.listener) await this.listen();
  }

  private async load(): Promise<void> {
    const { config, warnings } = await this.source.loadConfig(this.confPath);
    for (const w of warnings) this.log.warn(`svc.conf: ${w}`);
    this.services ??= await startGatewayServices(config, this.ctx, this.log);
    // With processes, sessions in memory are one set for every process (kept by the primary).
    const link = processLink();
    const [apis, policies, sessions] = await Promise.all([
      this.loadApis(config),
      this.startingPolicies(config, link),
      link !== undefined && config.storage === undefined ? ProcessSessionStore.open(link, this.name) : this.sharedSessions(config, link),
    ]);
    const state = new GatewayState({ name: this.name, config, apis, policies, sessions });
    state.onChange((c) => {
      if (c.kind === 'apis') this.router = new ApiRouter(state.allApis(), hostRouting(state.config));
    });
    this.router = new ApiRouter(state.allApis(), hostRouting(state.config));
    this.management = new ManagementApi(state, this.checkedSource(), () => this.reloadEverywhere(), this.log);
    this.unlinkReload = link?.on(this.reloadTopic(), () => this.reload(true));
    registerGatewayState(state);
    this.state = state;
    this.log.info(`Gateway ${this.name}: ${this.router.size} API(s) serving, ${policies.length} polic(ies)`);
  }

  /** The source's session store; one shared beyond this engine (Redis) read through Tyk's local session cache unless svc.conf turns it off. */
  private async sharedSessions(config: GatewayConfig, link: ProcessLink | undefined): Promise<SessionStore> {
    const store = await this.source.createSessions(config);
    return store.shared && config.local_session_cache?.disable_cached_session_state !== true ? new CachedSessionStore(store, link, this.name) : store;
  }

  /** The APIs of `app_path` the chain can serve; each one refused is logged and added to `refused`. */
  private async loadApis(config: GatewayConfig, refused: string[] = []): Promise<ApiSpec[]> {
    const { apis, errors, warnings } = await this.source.loadApis(config);
    for (const w of warnings ?? []) this.log.warn(w);
    const refuse = (message: string) => {
      this.log.error(`${message} (not loaded; the other APIs are)`);
      refused.push(message);
    };
    for (const e of errors) refuse(`API definition ${e.file}: ${e.message}`);
    return apis.filter((api) => {
      const problem = this.chainProblem(api);
      if (problem !== undefined) refuse(problem);
      return problem === undefined;
    });
  }

  /** Why the stream's chain cannot serve `api` (a stage it needs is missing or misplaced), or undefined. */
  private chainProblem(api: ApiSpec): string | undefined {
    return this.chain === undefined ? undefined : chainProblem(api, this.chain)?.message;
  }

  /** The source the management API checks a posted definition with: also against the chain (a 400 naming the stage). */
  private checkedSource(): GatewaySource {
    const source = this.source;
    return {
      loadConfig: (file) => source.loadConfig(file),
      loadApis: (config) => source.loadApis(config),
      loadPolicies: (config) => source.loadPolicies(config),
      createSessions: (config) => source.createSessions(config),
      parseApi: async (definition, format) => {
        const api = await source.parseApi(definition, format);
        const problem = this.chainProblem(api);
        if (problem !== undefined) throw new Error(problem);
        return api;
      },
    };
  }

  private async loadPolicies(config: GatewayConfig) {
    const { policies, errors } = await this.source.loadPolicies(config);
    for (const e of errors) this.log.error(`policy ${e.file}: ${e.message} (not loaded; the other policies are)`);
    return policies;
  }

  /** The policies to start with: with processes, the set the others serve if one of them loaded first. */
  private async startingPolicies(config: GatewayConfig, link: ProcessLink | undefined): Promise<Policy[]> {
    if (link === undefined) return this.loadPolicies(config);
    const shared = (this.sharedPolicies = await ProcessPolicies.open(link, this.name));
    return shared.current() ?? shared.first(await this.loadPolicies(config));
  }

  private reloadTopic(): string {
    return `svc.gateway.reload:${this.name}`;
  }

  /** A reload asked of this process's management API: every process of the gateway reloads before it answers. */
  private async reloadEverywhere(): Promise<string[]> {
    const refused = await this.reload();
    await processLink()?.broadcast(this.reloadTopic(), null);
    return refused;
  }

  /**
   * Re-reads `app_path` and the policies and swaps them in (requests in flight keep their API);
   * resolves with what it refused (the rest is served). A policy file that does not load keeps
   * the policies it held before (as Tyk keeps its previous set); its error is logged once, here.
   * With processes, the policies are read by the process that took the reload and published to
   * every process; the others (`peer`) take that set instead of reading the files again.
   */
  async reload(peer = false): Promise<string[]> {
    const state = this.state;
    if (!state) return [];
    const refused: string[] = [];
    const shared = this.sharedPolicies;
    const [apis, { policies, kept }] = await Promise.all([
      this.loadApis(state.config, refused),
      peer && shared !== undefined ? { policies: shared.current() ?? state.allPolicies(), kept: 0 } : this.reloadPolicies(state, refused),
    ]);
    state.replaceApis(apis);
    state.replacePolicies(policies);
    this.log.info(
      `Gateway ${this.name} reloaded: ${this.router.size} API(s) serving, ${policies.length} polic(ies)${kept > 0 ? ` (${kept} kept from before)` : ''}`,
    );
    return refused;
  }

  /** The policy files read again, over what `state` serves (see keepingPrevious), and published to every process. */
  private async reloadPolicies(state: GatewayState, refused: string[]): Promise<{ policies: Policy[]; kept: number }> {
    const loaded = await this.source.loadPolicies(state.config);
    const result = keepingPrevious(state.allPolicies(), loaded.policies, loaded.errors);
    for (const e of loaded.errors) {
      const problem = `policy ${e.message.startsWith(e.file) ? e.message : `${e.file}: ${e.message}`}`;
      this.log.error(`${problem} (what it held before is kept; the other policies are reloaded)`);
      refused.push(`${problem} (its previous policies are kept)`);
    }
    await this.sharedPolicies?.publish(result.policies);
    return result;
  }

  private async listen(): Promise<void> {
    const config = this.state!.config;
    const c = this.conf;
    const common = {
      logger: this.log,
      headersTimeoutMs: parseDuration(c.headers_timeout),
      requestTimeoutMs: parseDuration(c.request_timeout),
      writeTimeoutMs: parseDuration(c.write_timeout),
      maxHeaderSize: c.max_header_size,
      closeGraceMs: parseDuration(c.close_grace),
      maxHeaders: MAX_HEADER_FIELDS,
      tls: await gatewayTls(config.http_server_options),
    };
    const separate = config.control_api_port > 0 && config.control_api_port !== config.listen_port;
    const listener = await this.startListener({
      ...common,
      name: 'api_gateway',
      address: addressOf(config.listen_address, config.listen_port),
      addressField: 'svc.conf listen_address/listen_port',
      handler: (req, res) => this.dispatch(req, res, !separate),
    });
    this.listener = listener;
    const a = listener.address();
    this.log.info(`Gateway listening at ${listener.tls ? 'https' : 'http'}://${a.host}:${a.port}`);
    if (separate) {
      const control = await this.startListener({
        ...common,
        name: 'api_gateway control API',
        address: addressOf(config.listen_address, config.control_api_port),
        addressField: 'svc.conf control_api_port',
        handler: (req, res) => this.control(req, res),
      });
      this.log.info(`Gateway control API at ${control.tls ? 'https' : 'http'}://${control.address().host}:${control.address().port}`);
    }
  }

  /** Where the gateway listens (tests, logs). */
  address(): { host: string; port: number } | undefined {
    return this.listener?.address();
  }

  /** The control listener's own requests: the management API only, 404 elsewhere. */
  private control(req: IncomingMessage, res: ServerResponse): void {
    const started = process.hrtime.bigint();
    if (duplicateHost(req.rawHeaders)) return this.answerSelf(req, res, TOO_MANY_HOSTS, started, '', true);
    const t = parseTarget(req.url);
    if (t.kind === 'ok' && isManagementPath(t.path)) return this.manage(req, res, t, started);
    this.answerSelf(req, res, t.kind === 'redirect' ? redirect(t.location) : t.kind === 'bad' ? BAD_REQUEST : NOT_FOUND, started);
  }

  private manage(req: IncomingMessage, res: ServerResponse, t: Extract<Target, { kind: 'ok' }>, started: bigint): void {
    this.management!.handle(req, t).then(
      (a) => this.answerSelf(req, res, a, started),
      (err) => {
        this.log.error(`management API ${req.method} ${t.path}: ${errorMessage(err)}`);
        this.answerSelf(req, res, tykError(500, 'Internal server error'), started);
      },
    );
  }

  private answerSelf(req: IncomingMessage, res: ServerResponse, a: Answer, started: bigint, api = '', close = false): void {
    writeAnswer(req, res, a, close);
    this.metrics.answered(api, a.status, started);
  }

  /** Every request on the gateway's port. */
  private dispatch(req: IncomingMessage, res: ServerResponse, withManagement: boolean): void {
    const started = process.hrtime.bigint();
    if (duplicateHost(req.rawHeaders)) return this.answerSelf(req, res, TOO_MANY_HOSTS, started, '', true);
    const t = parseTarget(req.url);
    if (t.kind === 'bad') return this.answerSelf(req, res, BAD_REQUEST, started, '', true);
    if (t.kind === 'redirect') return this.answerSelf(req, res, redirect(t.location), started);
    if (withManagement && isManagementPath(t.path)) return this.manage(req, res, t, started);
    const api = this.router.route(t.path, req.headers.host ?? '');
    if (api === undefined) return this.answerSelf(req, res, NOT_FOUND, started);
    if (this.closing) return this.answerSelf(req, res, SHUTTING_DOWN, started, api.id, true);
    const fromBatch = req.headers[BATCH_HOP] !== undefined;
    if (fromBatch) delete req.headers[BATCH_HOP];
    if (api.batchRequests === true && t.path === batchPath(api)) {
      if (fromBatch) return this.answerSelf(req, res, NESTED, started, api.id);
      return void this.batch(req, res, api, started);
    }
    const oauth = oauthEndpoint(api, t.path);
    if (oauth !== undefined) return void this.oauth(req, res, api, oauth, t.query, started);
    const method = (req.method ?? 'GET').toUpperCase();
    const state = this.state!;
    const routed: CheckedRequest = { req, method, path: t.path, rawPath: t.rawPath, query: t.query, headers: req.headers, looped: false };
    // The API routed to, or the one it hands the request over to (a base API's version).
    const served = checkServed(api, routed, state.config.http_server_options?.xff_depth ?? 0, (id) => findLoopTarget(state.allApis(), id));
    const { checked, target } = served;
    bindOverrides(res, checked.api.errorOverrides);
    if (checked.corsHeaders !== undefined) for (const [k, v] of Object.entries(checked.corsHeaders)) res.setHeader(k, v);
    if (checked.refusal) return this.answerSelf(req, res, checked.refusal, started, api.id, checked.refusal.status !== 403 && checked.keepAlive !== true);
    if (checked.expires !== undefined) res.setHeader(EXPIRES_HEADER, checked.expires);
    const { decodedPath, ...passed } = passedRequest(checked, target);
    const gr: GatewayRequest = {
      gateway: this.name,
      apiId: served.api.id,
      method,
      ...passed,
      ...(served.upstreamPath !== undefined ? { upstreamPath: served.upstreamPath } : {}),
      remoteAddress: req.socket.remoteAddress ?? '',
      tls: (req.socket as { encrypted?: boolean }).encrypted === true,
    };
    const msg = new Message(Buffer.alloc(0));
    msg.ctx.set(GATEWAY_REQUEST, gr);
    msg.ctx.set(LIVE_EXCHANGE, { req, res, started, api: checked.api });
    msg.ctx.set(REQUESTER, new ClientPresence(res));
    // A caller's `traceparent` / `uber-trace-id` becomes the parent of the message's root span.
    const parent = extractTraceHeaders(req.headers, true);
    if (parent) setTraceParent(msg, parent);
    // Counted once, here, whoever answers (the proxy, a processor, a loop); a client gone before
    // the status went out is Tyk's 499.
    res.once('close', () => this.metrics.answered(served.api.id, res.headersSent ? res.statusCode : CLIENT_CLOSED, started));
    if (
      (checked.api.splitToken.length > 0 ||
        checked.api.urlRewrites.length > 0 ||
        checked.api.jsonValidations !== undefined ||
        checked.api.requestValidations !== undefined ||
        checked.api.bodyTransforms !== undefined ||
        checked.api.cachePaths !== undefined ||
        checked.api.basicAuth?.fromBody !== undefined) &&
      needsBody(checked.api, method, upstreamPathOf({ ...checked.api, stripListenPath: true }, decodedPath, decodedPath))
    ) {
      void this.withBody(req, res, msg);
      return;
    }
    this.deliver(req, res, msg);
  }

  /**
   * A request rewritten to `svc://{api}/path` (the proxy's `looped` result, acted on at its ack) runs
   * again for that API on the same exchange, as Tyk's looping does: the target found by id or by
   * name (`self`: the same API), the loop level counted against `loop_limit` (default 5), Tyk's 500s
   * when it is too deep or has no target.
   */
  private loop(from: LiveExchange, req: GatewayRequest, body: Buffer): void {
    const l = req.loop!;
    const level = req.loopLevel ?? 0;
    const limit = req.loopLimit || l.limit || DEFAULT_LOOP_LIMIT;
    const state = this.state!;
    if (level > limit)
      return writeAnswer(from.req, from.res, tykError(500, `Loop level too deep. Found more than ${limit} loops in single request`), this.closing);
    const api = l.target === 'self' ? from.api : findLoopTarget(state.allApis(), l.target);
    if (api === undefined) return writeAnswer(from.req, from.res, tykError(500, "Can't detect loop target"), this.closing);
    const path = joinListenPath(api.listenPath, l.path);
    const method = l.method || req.method;
    // The target API's own checks, as Tyk runs its whole chain for a looped request (internal endpoints open to it).
    const looped0: CheckedRequest = { req: from.req, method, path, rawPath: path, query: l.query, headers: req.headers, looped: true };
    const served = checkServed(api, looped0, state.config.http_server_options?.xff_depth ?? 0, (id) => findLoopTarget(state.allApis(), id));
    const { checked, target } = served;
    bindOverrides(from.res, checked.api.errorOverrides);
    if (checked.corsHeaders !== undefined) for (const [k, v] of Object.entries(checked.corsHeaders)) from.res.setHeader(k, v);
    if (checked.refusal) return writeAnswer(from.req, from.res, checked.refusal, this.closing);
    if (checked.expires !== undefined) from.res.setHeader(EXPIRES_HEADER, checked.expires);
    const { decodedPath: _decoded, ...passed } = passedRequest(checked, target);
    const looped: GatewayRequest = {
      gateway: req.gateway,
      apiId: served.api.id,
      method,
      ...passed,
      // A loop's target path is the rewrite's, without the listen path.
      upstreamPath: served.upstreamPath ?? (checked.path === undefined ? l.path : passed.upstreamPath),
      remoteAddress: req.remoteAddress,
      tls: req.tls,
      loopLevel: level + 1,
      loopLimit: limit,
      checkLimits: l.checkLimits,
    };
    const msg = new Message(body);
    msg.ctx.set(GATEWAY_REQUEST, looped);
    msg.ctx.set(LIVE_EXCHANGE, { req: from.req, res: from.res, started: from.started, api: checked.api });
    msg.ctx.set(REQUESTER, new ClientPresence(from.res));
    this.deliver(from.req, from.res, msg);
  }

  /** A batch for `api` (Tyk's batch endpoint, beside its chain): its requests come back to this listener. */
  private async batch(req: IncomingMessage, res: ServerResponse, api: ApiSpec, started: bigint): Promise<void> {
    if (req.method !== 'POST') return this.answerSelf(req, res, NOT_POSTED, started, api.id);
    let body: Buffer;
    try {
      body = await readBody(req, this.conf.max_body_size, parseDuration(this.conf.body_timeout));
    } catch (err) {
      const status = err instanceof BodyError ? err.status : 400;
      return writeAnswer(req, res, status === 413 ? TOO_LARGE : status === 408 ? TIMED_OUT : BODY_UNREADABLE, true);
    }
    const a = await answerBatch(api, this.listener!.address().port, body);
    this.answerSelf(req, res, a, started, api.id);
  }

  /** One of a `use_oauth2` API's OAuth endpoints (Tyk's, beside its chain). */
  private async oauth(req: IncomingMessage, res: ServerResponse, api: ApiSpec, endpoint: OAuthEndpoint, query: string, started: bigint): Promise<void> {
    let body: Buffer;
    try {
      body = await readBody(req, MAX_FORM_BYTES, parseDuration(this.conf.body_timeout));
    } catch (err) {
      const status = err instanceof BodyError ? err.status : 400;
      return writeAnswer(req, res, status === 413 ? TOO_LARGE : status === 408 ? TIMED_OUT : BODY_UNREADABLE, true);
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const a = await answerOAuth(this.state!, { ...api, oauth2: api.oauth2! }, endpoint, {
      method,
      headers: req.headers,
      query,
      body,
      lines: (name) => headerLines(req, name),
    }).catch((err: unknown) => {
      this.log.error(`OAuth endpoint ${endpoint} of API ${api.id}: ${errorMessage(err)}`);
      return tykError(500, 'Internal server error');
    });
    this.answerSelf(req, res, a, started, api.id);
  }

  private async withBody(req: IncomingMessage, res: ServerResponse, msg: Message): Promise<void> {
    try {
      msg.content = await readBody(req, this.conf.max_body_size, parseDuration(this.conf.body_timeout));
    } catch (err) {
      const status = err instanceof BodyError ? err.status : 400;
      this.log.debug(`Request refused (${status}): ${errorMessage(err)}`);
      return writeAnswer(req, res, status === 413 ? TOO_LARGE : status === 408 ? TIMED_OUT : BODY_UNREADABLE, true);
    }
    if (this.closing) return writeAnswer(req, res, SHUTTING_DOWN, true);
    this.deliver(req, res, msg);
  }

  private deliver(req: IncomingMessage, res: ServerResponse, msg: Message): void {
    const exchange = msg.ctx.get(LIVE_EXCHANGE);
    this.pushRequest([msg], {
      acked: (err, results) => {
        // Looped (to another API or its own): the request runs again, and that run answers.
        if (exchange?.looped !== undefined) return this.loop(exchange, exchange.looped.req, exchange.looped.body);
        if (err) {
          this.log.debug(`Request nacked: ${errorMessage(err)}`);
          // The proxy may have started answering before it failed: then the connection is cut.
          if (answered(res)) return void (res.writableEnded || res.destroy());
          return writeAnswer(req, res, NOT_DELIVERED, this.closing);
        }
        const answers = results();
        const a = answers[answers.length - 1];
        const stored = a !== undefined && typeof a === 'object' && typeof a.status === 'number';
        if (!stored && answered(res)) return;
        // A success answered here (a processor's, or the empty 200) answers for the API: it
        // must have had every stage its API needs, as the proxy's answer must.
        if ((!stored || a.status < 400) && this.unprotected(msg)) return writeAnswer(req, res, NOT_DELIVERED, this.closing);
        writeAnswer(req, res, stored ? a : { status: 200 }, this.closing);
      },
      dropped: () => writeAnswer(req, res, SHUTTING_DOWN, true),
    });
  }

  /** True (logged) when `msg`'s request missed a stage its API needs and no stage answered it itself. */
  private unprotected(msg: Message): boolean {
    const api = msg.ctx.get(LIVE_EXCHANGE)?.api;
    const gr = msg.ctx.get(GATEWAY_REQUEST);
    if (api === undefined || gr === undefined) return false;
    const stages = msg.ctx.get(GATEWAY_STAGES);
    return !answeredByStage(stages) && this.guard.refuses(api, gr, stages);
  }

  /**
   * Once the listeners closed every connection (requests in flight are answered as their
   * transactions are acked; the listeners cut what is left after the grace): the state stays
   * registered until then, as processors of requests in flight read it.
   */
  protected override async onDrained(): Promise<void> {
    this.unlinkReload?.();
    this.sharedPolicies?.close();
    if (this.services) await closeGatewayServices(this.services);
    if (this.state) {
      unregisterGatewayState(this.state);
      await this.state.sessions.close().catch((err: unknown) => this.log.warn(`closing the session store: ${errorMessage(err)}`));
    }
  }
}
