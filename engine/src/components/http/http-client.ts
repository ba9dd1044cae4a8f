/**
 * The client both `http_client` components use: builds a request from the config and a
 * reference message (interpolating `url` and `headers`), signs it, sends it through an undici
 * dispatcher (a keep-alive pool per origin, optionally through `proxy_url`), and applies the
 * retry rules (`backoff_on`, `drop_on`, `successful_on`, `retries`, `retry_period`,
 * `max_retry_backoff`) and `timeout`. Redirects are followed, as Go's client does.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { undici } from './lazy-deps.js';
import {
  Message,
  REDACTED,
  compileInterpolation,
  errorMessage,
  injectTraceHeaders,
  parseDuration,
  redactUrl,
  type Batch,
  type ComponentContext,
  type Infer,
  type Interpolation,
  type Logger,
  type RateLimit,
} from '@svc/engine';
import { Sleeps } from '@svc/engine/kit';
import { BasicAuth } from './basic-auth.js';
import { dispatchBuffered, type BufferedResponse } from './buffered-response.js';
import type { clientFields } from './client-spec.js';
import { RequestFailedError, ResponseTooLargeError, UnexpectedStatusError } from './errors.js';
import { JwtAuth } from './jwt-auth.js';
import { MetadataFilter } from './metadata-filter.js';
import { OAuth1 } from './oauth1.js';
import { OAuth2 } from './oauth2.js';
import type { OutgoingRequest, RequestAuth } from './outgoing-request.js';
import { RetryRules, backoffWait } from './retry-rules.js';
import { tlsConnectOptions } from '../tls/tls-options.js';

type Fields = ReturnType<typeof clientFields>;
export type ClientConfig = { [K in keyof Fields]: Infer<Fields[K]> };

/** Responses larger than this are refused (they become one message). */
export const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;
/** Idle keep-alive connections are kept this long. */
const KEEP_ALIVE_MS = 30_000;

export type ClientResponse = BufferedResponse;

export interface StreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

/** A body to send, and its Content-Type when the client decides it (multipart). */
export interface RequestBody {
  body?: Buffer;
  contentType?: string;
  /** The message whose trace the request continues (`traceparent` and `uber-trace-id` are injected). */
  trace?: Message;
}

const EMPTY_BATCH: Batch = [new Message()];

export class HttpClient {
  readonly dispatcher: Dispatcher;
  private readonly url: Interpolation;
  private readonly staticUrl: string | undefined;
  /** The static url parsed once (shared by requests without auth). */
  private readonly staticParsed: URL | undefined;
  private readonly headers: Array<[string, Interpolation]>;
  private readonly metadata: MetadataFilter;
  private readonly auth: RequestAuth[] = [];
  private readonly rules: RetryRules;
  private readonly timeoutMs: number;
  private readonly retryMs: number;
  private readonly maxBackoffMs: number;
  private readonly rateLimit: RateLimit | undefined;
  private readonly log: Logger;
  private readonly dump: ((msg: string) => void) | undefined;
  private readonly closing = new AbortController();
  /** Retry and rate-limit waits, ended by close(): one per request in flight (no listener each). */
  private readonly waits = new Sleeps();

  constructor(
    readonly conf: ClientConfig,
    ctx: ComponentContext,
    opts: { timeoutMs?: number } = {},
  ) {
    this.log = ctx.logger;
    this.url = compileInterpolation(conf.url);
    this.staticParsed = this.url.isStatic ? new URL(this.url.value(EMPTY_BATCH[0]!, { batch: EMPTY_BATCH, index: 0 })) : undefined;
    this.staticUrl = this.staticParsed?.href;
    this.headers = Object.entries(conf.headers).map(([k, v]) => [k.toLowerCase(), compileInterpolation(v)]);
    this.metadata = new MetadataFilter(conf.metadata);
    this.rules = new RetryRules(conf);
    this.timeoutMs = opts.timeoutMs ?? parseDuration(conf.timeout);
    this.retryMs = parseDuration(conf.retry_period);
    this.maxBackoffMs = parseDuration(conf.max_retry_backoff);
    this.rateLimit = conf.rate_limit ? ctx.resources.rateLimit(conf.rate_limit) : undefined;
    const tls = tlsConnectOptions(conf.tls);
    const base: Dispatcher = conf.proxy_url
      ? // As Go's net/http: a request to an http:// target goes to the proxy whole (absolute-form), an https:// one through a CONNECT tunnel.
        new (undici().ProxyAgent)({ uri: conf.proxy_url, requestTls: tls, proxyTunnel: false, keepAliveTimeout: KEEP_ALIVE_MS })
      : new (undici().Agent)({ keepAliveTimeout: KEEP_ALIVE_MS, connect: tls });
    this.dispatcher = base.compose(undici().interceptors.redirect({ maxRedirections: 10 }));
    if (conf.basic_auth.enabled) this.auth.push(new BasicAuth(conf.basic_auth));
    if (conf.oauth.enabled) this.auth.push(new OAuth1(conf.oauth));
    if (conf.oauth2.enabled) this.auth.push(new OAuth2(conf.oauth2, this.dispatcher, this.timeoutMs || 30_000));
    if (conf.jwt.enabled) this.auth.push(new JwtAuth(conf.jwt));
    if (conf.dump_request_log_level) {
      const level = conf.dump_request_log_level.toLowerCase() as 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
      this.dump = (msg) => this.log[level](msg);
    }
  }

  /** Builds the request for a reference batch (interpolations see its first message). */
  async build(ref: Batch | undefined, body: RequestBody, method = this.conf.verb): Promise<OutgoingRequest> {
    const batch = ref && ref.length ? ref : EMPTY_BATCH;
    const ctx = { batch, index: 0 };
    const msg = batch[0]!;
    // A static url (the common case) is parsed once; with auth each request gets its own copy to
    // sign, without it every request shares the parsed one (nothing writes to it).
    const url = this.staticUrl ? (this.auth.length === 0 ? this.staticParsed! : new URL(this.staticUrl)) : new URL(this.url.value(msg, ctx));
    const headers: Record<string, string> = {};
    for (const [k, v] of this.metadata.walk(msg)) headers[k.toLowerCase()] = v;
    for (const [k, v] of this.headers) headers[k] = v.value(msg, ctx);
    if (body.contentType) headers['content-type'] = body.contentType;
    if (body.trace) injectTraceHeaders(body.trace, headers);
    const req: OutgoingRequest = { method: method.toUpperCase(), url, headers, body: body.body };
    for (const a of this.auth) await a.apply(req);
    return req;
  }

  /**
   * Sends a request built from `ref` with the retry rules; resolves with a successful response
   * (status per the rules) and rejects after the retries with the last failure.
   */
  async send(ref: Batch | undefined, body: RequestBody): Promise<ClientResponse> {
    let attempt = 0;
    let backoffs = 0;
    for (;;) {
      let failure: Error;
      let verdict: 'drop' | 'backoff' | 'retry';
      try {
        await this.waitForAccess();
        const req = await this.build(ref, body);
        const res = await this.exchange(req);
        const v = this.rules.verdict(res.status);
        if (v === 'success') return res;
        verdict = v;
        failure = new UnexpectedStatusError(redactUrl(req.url.href), res.status, res.headers, res.body);
      } catch (err) {
        if (this.closing.signal.aborted) throw err;
        failure = err instanceof Error ? err : new Error(String(err));
        verdict = 'retry';
      }
      if (verdict === 'drop' || attempt >= this.conf.retries) throw failure;
      attempt++;
      const wait = verdict === 'backoff' ? backoffWait(this.retryMs, this.maxBackoffMs, ++backoffs) : this.retryMs;
      this.log.debug(`HTTP request failed, retry ${attempt} of ${this.conf.retries} in ${wait}ms: ${failure.message}`);
      if (!(await this.waits.sleep(wait))) throw failure;
    }
  }

  /**
   * One request and its whole (bounded) response. `timeout` bounds the wait for the response
   * headers and for the body (undici's own timers: no per-request AbortController or timer on
   * this hot path), and the whole exchange is refused when it took longer than `timeout`.
   */
  async exchange(req: OutgoingRequest): Promise<ClientResponse> {
    // Only failures name the target: not redacted (and serialised) for every request that succeeds.
    const target = (): string => redactUrl(req.url.href);
    this.dump?.(dumpRequest(req));
    const started = this.timeoutMs > 0 ? Date.now() : 0;
    try {
      const res = await dispatchBuffered(
        this.dispatcher,
        {
          origin: req.url.origin,
          path: req.url.pathname + req.url.search,
          method: req.method as Dispatcher.HttpMethod,
          headers: req.headers,
          body: req.body,
          headersTimeout: this.timeoutMs || undefined,
          bodyTimeout: this.timeoutMs || undefined,
        },
        MAX_RESPONSE_BYTES,
        () => new ResponseTooLargeError(target(), MAX_RESPONSE_BYTES),
      );
      if (started && Date.now() - started > this.timeoutMs) throw new Error(`timed out after ${this.timeoutMs}ms`);
      this.dump?.(dumpResponse(res));
      return res;
    } catch (err) {
      if (err instanceof ResponseTooLargeError) throw err;
      const code = (err as { code?: string }).code;
      const reason = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' ? `timed out after ${this.timeoutMs}ms` : errorMessage(err);
      throw new RequestFailedError(target(), `HTTP request failed: ${reason}`, { cause: err });
    }
  }

  /**
   * Opens a request whose body is read as a stream (the input's `stream` mode): no timeout
   * once the headers arrived. Rejects when the status is not a success.
   */
  async open(ref: Batch | undefined, body: RequestBody): Promise<StreamResponse> {
    await this.waitForAccess();
    const req = await this.build(ref, body);
    const target = redactUrl(req.url.href);
    this.dump?.(dumpRequest(req));
    let res: Dispatcher.ResponseData;
    try {
      res = await this.dispatcher.request({
        origin: req.url.origin,
        path: req.url.pathname + req.url.search,
        method: req.method as Dispatcher.HttpMethod,
        headers: req.headers,
        body: req.body,
        signal: this.closing.signal,
        headersTimeout: this.timeoutMs || undefined,
        bodyTimeout: 0,
      });
    } catch (err) {
      throw new RequestFailedError(target, `HTTP request failed: ${errorMessage(err)}`, { cause: err });
    }
    if (this.rules.verdict(res.statusCode) !== 'success') {
      const text = await res.body.text().catch(() => '');
      throw new UnexpectedStatusError(target, res.statusCode, res.headers as IncomingHttpHeaders, Buffer.from(text));
    }
    return { status: res.statusCode, headers: res.headers as IncomingHttpHeaders, body: res.body };
  }

  private async waitForAccess(): Promise<void> {
    if (!this.rateLimit) return;
    for (;;) {
      const wait = await this.rateLimit.access();
      if (wait <= 0) return;
      if (!(await this.waits.sleep(wait))) throw new Error('the client is closing');
    }
  }

  async close(): Promise<void> {
    this.closing.abort();
    this.waits.stop();
    await (this.dispatcher as Dispatcher).destroy().catch(() => undefined);
  }
}

const CREDENTIAL_HEADER_RE = /^(?:proxy-)?authorization$/i;

function dumpRequest(req: OutgoingRequest): string {
  // A credential (basic auth, an OAuth bearer token) is shown as redacted: a dump is a log line.
  const head = Object.entries(req.headers)
    .map(([k, v]) => `${k}: ${CREDENTIAL_HEADER_RE.test(k) ? REDACTED : v}`)
    .join('\r\n');
  return `${req.method} ${req.url.pathname}${req.url.search} HTTP/1.1\r\nhost: ${req.url.host}\r\n${head}\r\n\r\n${req.body?.toString('utf8') ?? ''}`;
}

function dumpResponse(res: ClientResponse): string {
  const head = Object.entries(res.headers)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : v}`)
    .join('\r\n');
  return `HTTP/1.1 ${res.status}\r\n${head}\r\n\r\n${res.body.toString('utf8')}`;
}

/** The response headers that `extract_headers` selects, as metadata (lower-cased keys). */
export function responseMeta(msg: Message, status: number, headers: IncomingHttpHeaders, filter: MetadataFilter): void {
  msg.setMeta('http_status_code', status);
  if (filter.isEmpty) return;
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || !filter.matches(k)) continue;
    msg.setMeta(k, Array.isArray(v) ? (v.length === 1 ? v[0]! : v) : v);
  }
}
