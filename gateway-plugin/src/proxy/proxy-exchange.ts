/**
 * One proxied request: the undici dispatch handler that writes the upstream's answer straight
 * into the client's response. Invariant: {@link ProxyExchange.done} resolves exactly once, when
 * the client's response has closed — the answer sent whole, or the client gone — never before,
 * and never with an error: a failed upstream is an answer (500, 504 with Tyk's bodies), not a
 * failed write, because a nack would make the runtime send a possibly non-idempotent request
 * again.
 *
 * - Status and headers (hop-by-hop ones removed) go out as they arrive; body chunks are written
 *   as undici reads them, and when the client reads slower than the upstream sends, the upstream
 *   is paused until the response drains (back-pressure, nothing buffered here).
 * - The client goes away: the upstream request is aborted (counted as Tyk's 499).
 * - The upstream fails before its headers: 504 on a header timeout, else 500 (as Tyk v5.14.0: reverse_proxy.go answers StatusInternalServerError). After its headers
 *   (it stopped mid-body): the client's connection is ended, as the answer cannot change now.
 * - A deadline (`timeout`, Tyk's `proxy_default_timeout`) runs from the dispatch to the response
 *   headers: the wait for a pooled connection, the connect, the request body (a client or an
 *   upstream that trickles or stalls it) and the wait for the answer. Past it the client gets
 *   Tyk's 504 and the upstream request is aborted, freeing its connection; a client whose body
 *   was not read whole is then disconnected after the answer, so its trickle stops too.
 * - A client that reads none of the answer for `timeout` (the upstream paused for it) is cut.
 * - An endpoint's hard timeout (`hard_timeouts`, `global_enforce_timeout`) is Tyk's request
 *   context deadline: it runs from the dispatch to the end of the answer. Before the headers it
 *   answers the 504 above; after them (the body still coming) the client's connection is cut.
 * - The outcome (a failure: no answer, or a 5xx) is told once to `onOutcome` (a circuit breaker).
 */
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { detectContentType } from '../kernel/content-sniff.js';
import { tykError } from '../kernel/errors.js';
import { MATCH_BYTES, overrideAnswer, overrideUpstream, upstreamOverrides } from '../kernel/error-override.js';
import type { ErrorOverrides } from '../apis/error-overrides.js';
import { connectionNamed, isHopHeader } from './hop-headers.js';
import { MAX_ENTRY_BYTES, type CachedAnswer } from './response-cache.js';

/** Tyk's wording (gateway/reverse_proxy.go, v5.14.0). */
export const PROXY_FAILED = 'There was a problem proxying the request';
export const UPSTREAM_TIMEOUT = 'Upstream service reached hard timeout.';
/** CORS headers the gateway set win over the upstream's (Tyk's removeDuplicateCORSHeader). */
const CORS_HEADERS = new Set([
  'access-control-allow-origin',
  'access-control-expose-headers',
  'access-control-max-age',
  'access-control-allow-credentials',
  'access-control-allow-methods',
  'access-control-allow-headers',
]);

/**
 * The upstream's headers onto those the gateway set on the answer already (CORS, X-Svc-Api-Expires),
 * as Tyk's copyHeader: a CORS header the gateway set drops the upstream's; any other is added to.
 */
function ontoPreset(res: ServerResponse, headers: Record<string, string | string[] | undefined>): void {
  for (const name of res.getHeaderNames()) {
    const theirs = headers[name];
    if (theirs === undefined) continue;
    if (CORS_HEADERS.has(name)) delete headers[name];
    else {
      const ours = res.getHeader(name);
      headers[name] = [...(Array.isArray(ours) ? ours : [String(ours)]), ...(Array.isArray(theirs) ? theirs : [theirs])];
    }
  }
}

/** What an exchange may add: Tyk's per-endpoint deadline and a circuit breaker's count. */
export interface ExchangeExtras {
  /** Milliseconds from the dispatch to the end of the answer (0: none). */
  hardTimeoutMs?: number;
  /** Told once whether the upstream failed (no answer, or a 5xx), as Tyk's breaker counts it. */
  onOutcome?: (failed: boolean) => void;
  /**
   * Given the whole answer as the client got it (its body up to {@link MAX_ENTRY_BYTES}): the
   * response cache. The answer ends once what it returns settles, so a repeat sent after it is
   * served from the cache whichever process takes it.
   */
  record?: (status: number, headers: Record<string, string | string[]>, body: Buffer) => Promise<void> | undefined;
  /**
   * A response body transform (Tyk's ResponseTransformMiddleware): the whole answer body is held
   * (up to {@link MAX_TRANSFORMED_BYTES}: more is Tyk's 500 "Response body too large"), given with
   * its Content-Encoding, and what it returns is sent with its length.
   */
  transformBody?: (body: Buffer, encoding: string) => Buffer;
}

/** The most of an answer body a response transform holds. */
const MAX_TRANSFORMED_BYTES = 16 * 1024 * 1024;

/**
 * A cached answer (response-cache.ts) for the client, as Tyk's RedisCacheMiddleware sends one:
 * the quota headers of this request, `X-Svc-Cached-Response: 1`, and 304 without a body when
 * `If-None-Match` holds its ETag. Returns the status sent.
 */
export function answerCached(res: ServerResponse, hit: CachedAnswer, limits: Record<string, string> | undefined): number {
  const headers: Record<string, string | string[]> = { ...hit.headers };
  if (limits !== undefined) Object.assign(headers, limits);
  headers['x-svc-cached-response'] = '1';
  if (res.getHeaderNames().length > 0) ontoPreset(res, headers);
  let status = hit.status;
  const inm = res.req.headers['if-none-match'];
  const etag = headers['etag'];
  const tag = Array.isArray(etag) ? etag[0] : etag;
  if (inm !== undefined && inm !== '' && tag !== undefined && tag !== '' && inm.includes(tag)) {
    status = 304;
    // Go's server sends none of these with a 304 (suppressedHeaders).
    for (const name of ['content-type', 'content-length', 'transfer-encoding']) delete headers[name];
  }
  res.writeHead(status, headers);
  res.end(status === 304 || res.req.method === 'HEAD' ? undefined : hit.body);
  return status;
}

/** Tyk's status for a request its client abandoned ("Client closed request"). */
const CLIENT_CLOSED = 499;

/** What an exchange reports when its upstream failed (for a throttled log line). */
export type UpstreamFailure = (apiId: string, origin: string, err: Error) => void;

class ClientGoneError extends Error {
  constructor() {
    super('the client closed its connection');
    this.name = 'ClientGoneError';
  }
}
const CLIENT_GONE = new ClientGoneError();

class DeadlineError extends Error {
  constructor(ms: number, hard = false) {
    super(
      hard
        ? `the endpoint's hard timeout (${ms} ms) passed before the answer was sent whole`
        : `no response headers within the proxy timeout (${ms} ms, the wait for a connection and the request body included)`,
    );
    this.name = 'DeadlineError';
  }
}

export class ProxyExchange implements Dispatcher.DispatchHandler {
  /** Resolves once the client's response has closed. */
  readonly done: Promise<void>;
  private resolve!: () => void;
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private closed = false;
  /** The deadline passed and the client got its 504: nothing of the upstream is relayed now. */
  private expired = false;
  private deadline: NodeJS.Timeout | undefined;
  private stalled: NodeJS.Timeout | undefined;
  private hard: NodeJS.Timeout | undefined;
  private onOutcome: ((failed: boolean) => void) | undefined;
  /** The answer's head and body so far, for `extras.record` (undefined: not recorded, or too large). */
  private recording: { headers: Record<string, string | string[]>; chunks: Buffer[]; bytes: number } | undefined;
  /**
   * While an answer is recorded for the cache, its newest chunk waits here: with a Content-Length
   * the client's answer is complete at its last byte, and it must not be before the entry is kept
   * (a repeat sent at once, to another process, would miss).
   */
  private lastChunk: Buffer | undefined;
  /**
   * An answer without Content-Type waits for its first body bytes: Go's server (Tyk) names the
   * type from them (`content-sniff.ts`) before the head goes out.
   */
  private pendingHead: Record<string, string | string[]> | undefined;
  /** The answer held for a response transform: its head, and its body so far. */
  private held: { headers: Record<string, string | string[]>; chunks: Buffer[]; bytes: number } | undefined;
  /** An upstream error answer held (up to its first MATCH_BYTES) until the API's error overrides decide on it. */
  private errorHold: { overrides: ErrorOverrides; headers: Record<string, string | string[]>; chunks: Buffer[]; bytes: number } | undefined;
  /** An error override replaced the upstream's answer: the rest of it is not relayed. */
  private replaced = false;
  private readonly onClose = (): void => this.closeNow();
  private onDrain: (() => void) | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly apiId: string,
    private readonly origin: string,
    private readonly failed: UpstreamFailure,
    /** X-RateLimit-* as the gateway sends them (see limit-headers.ts): they replace the upstream's. */
    private readonly limits?: Record<string, string>,
    /** The deadline to the response headers, and the longest a client may read nothing (0: none). */
    private readonly timeoutMs = 0,
    /** `gateway_transform`'s edits of the answer's headers (Tyk's ResponseHeaderInjector). */
    private readonly edits?: { remove: string[]; set: Array<[string, string]> },
    private readonly extras?: ExchangeExtras,
  ) {
    this.onOutcome = extras?.onOutcome;
    this.done = new Promise<void>((r) => (this.resolve = r));
    res.once('close', this.onClose);
  }

  /** Starts the deadline: call as the request is handed to the pool. */
  dispatched(): void {
    if (this.timeoutMs > 0 && !this.closed) this.deadline = setTimeout(() => this.expire(), this.timeoutMs);
    const hardMs = this.extras?.hardTimeoutMs ?? 0;
    if (hardMs > 0 && !this.closed) this.hard = setTimeout(() => this.hardExpire(hardMs), hardMs);
  }

  /** Tells the outcome once. */
  private outcome(failed: boolean): void {
    const tell = this.onOutcome;
    if (tell === undefined) return;
    this.onOutcome = undefined;
    tell(failed);
  }

  /** The endpoint's hard timeout: 504 before the answer's headers, a cut connection after. */
  private hardExpire(ms: number): void {
    this.hard = undefined;
    if (this.closed) return;
    if (!this.res.headersSent && !this.expired) {
      clearTimeout(this.deadline);
      this.deadline = undefined;
      this.expireWith(new DeadlineError(ms, true));
      return;
    }
    const err = new DeadlineError(ms, true);
    this.failed(this.apiId, this.origin, err);
    this.outcome(true);
    this.controller?.abort(err);
    this.res.destroy();
  }

  private expire(): void {
    this.deadline = undefined;
    this.expireWith(new DeadlineError(this.timeoutMs));
  }

  private expireWith(err: DeadlineError): void {
    if (this.closed || this.res.headersSent) return;
    this.expired = true;
    this.outcome(true);
    this.failed(this.apiId, this.origin, err);
    // The client may still be sending its body: the connection ends after the answer.
    if (!this.res.req.complete) this.res.shouldKeepAlive = false;
    this.answer(504, UPSTREAM_TIMEOUT);
    this.controller?.abort(err);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // The client left, or the deadline passed, while the request waited for a connection.
    if (this.closed || this.expired) controller.abort(CLIENT_GONE);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200 || this.closed || this.expired) return;
    clearTimeout(this.deadline);
    this.outcome(statusCode >= 500);
    const named = connectionNamed(headers.connection);
    for (const name in headers) {
      if (isHopHeader(name, headers[name]) || (named !== undefined && named.has(name)) || name.startsWith('x-ratelimit-')) delete headers[name];
    }
    if (this.limits !== undefined) Object.assign(headers, this.limits);
    if (this.edits !== undefined) {
      for (const name of this.edits.remove) delete headers[name];
      for (const [name, value] of this.edits.set) headers[name] = value;
    }
    if (this.res.getHeaderNames().length > 0) ontoPreset(this.res, headers);
    this.status = statusCode;
    const overrides = upstreamOverrides(this.res, statusCode);
    if (overrides !== undefined) {
      this.errorHold = { overrides, headers: headers as Record<string, string | string[]>, chunks: [], bytes: 0 };
      return;
    }
    this.startAnswer(controller, headers as Record<string, string | string[]>);
  }

  /** The upstream's head goes on: held for a cache entry or a transform, for sniffing, or written. */
  private startAnswer(controller: Dispatcher.DispatchController, headers: Record<string, string | string[]>): void {
    const statusCode = this.status;
    if (this.extras?.record !== undefined) this.recording = { headers, chunks: [], bytes: 0 };
    if (this.extras?.transformBody !== undefined && this.res.req.method !== 'HEAD') {
      this.held = { headers, chunks: [], bytes: 0 };
      return;
    }
    if (headers['content-type'] === undefined && statusCode !== 204 && statusCode !== 304 && this.res.req.method !== 'HEAD') {
      this.pendingHead = headers;
      return;
    }
    this.writeHead(controller, headers);
  }

  /**
   * The API's error overrides decide on the held upstream error (Tyk's ResponseErrorOverrideMiddleware):
   * a new body replaces the answer (the upstream's is dropped); else the status and headers change
   * and the upstream's body follows as it would have.
   */
  private decideError(controller: Dispatcher.DispatchController): void {
    const hold = this.errorHold!;
    this.errorHold = undefined;
    const held = Buffer.concat(hold.chunks);
    const o = overrideUpstream(this.res, hold.overrides, this.status, held.subarray(0, MATCH_BYTES));
    if (o !== undefined) {
      this.status = o.status;
      if (o.body !== undefined) {
        const body = Buffer.from(o.body.text);
        for (const name of ['content-length', 'transfer-encoding', 'content-encoding']) delete hold.headers[name];
        hold.headers['content-type'] = o.body.type;
        for (const [k, v] of o.headers) hold.headers[k.toLowerCase()] = v;
        hold.headers['content-length'] = String(body.length);
        this.replaced = true;
        if (this.writeHead(controller, hold.headers)) this.res.end(this.res.req.method === 'HEAD' ? undefined : body);
        controller.abort(new Error('the upstream answer was replaced by an error override'));
        return;
      }
      for (const [k, v] of o.headers) hold.headers[k.toLowerCase()] = v;
    }
    this.startAnswer(controller, hold.headers);
    if (held.length > 0) this.onResponseData(controller, held);
  }

  private writeHead(controller: Dispatcher.DispatchController, headers: Record<string, string | string[]>): boolean {
    try {
      this.res.writeHead(this.status, headers);
      return true;
    } catch (err) {
      // A header Node refuses to send (a control character): the upstream's answer cannot be relayed.
      this.status = 0;
      controller.abort(err as Error);
      return false;
    }
  }

  /** The head held for sniffing goes out, typed by `chunk` when there is one. */
  private flushHead(controller: Dispatcher.DispatchController, chunk?: Buffer): boolean {
    const head = this.pendingHead!;
    this.pendingHead = undefined;
    if (chunk !== undefined && chunk.length > 0) head['content-type'] = detectContentType(chunk);
    return this.writeHead(controller, head);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.closed || this.expired || this.replaced) return;
    const hold = this.errorHold;
    if (hold !== undefined) {
      hold.chunks.push(chunk);
      hold.bytes += chunk.length;
      if (hold.bytes >= MATCH_BYTES) this.decideError(controller);
      return;
    }
    const held = this.held;
    if (held !== undefined) {
      held.bytes += chunk.length;
      if (held.bytes > MAX_TRANSFORMED_BYTES) {
        this.held = undefined;
        this.answer(500, 'Response body too large');
        controller.abort(new Error('the answer is larger than a response transform holds'));
        return;
      }
      held.chunks.push(chunk);
      return;
    }
    if (this.pendingHead !== undefined && !this.flushHead(controller, chunk)) return;
    const rec = this.recording;
    if (rec !== undefined) {
      rec.bytes += chunk.length;
      if (rec.bytes > MAX_ENTRY_BYTES) this.recording = undefined;
      else {
        rec.chunks.push(chunk);
        const before = this.lastChunk;
        this.lastChunk = chunk;
        if (before === undefined) return;
        chunk = before;
      }
    }
    if (this.recording === undefined && this.lastChunk !== undefined) {
      // Too large to keep: what waited goes first, and the rest streams.
      this.res.write(this.lastChunk);
      this.lastChunk = undefined;
    }
    if (!this.res.write(chunk)) {
      controller.pause();
      this.res.once(
        'drain',
        (this.onDrain ??= () => {
          clearTimeout(this.stalled);
          controller.resume();
        }),
      );
      // A client that reads nothing for the timeout holds an upstream connection: cut it.
      if (this.timeoutMs > 0) this.stalled = setTimeout(() => this.res.destroy(), this.timeoutMs);
    }
  }

  onResponseEnd(controller: Dispatcher.DispatchController): void {
    if (this.closed || this.expired || this.replaced) return;
    if (this.errorHold !== undefined) {
      this.decideError(controller);
      if (this.replaced || this.closed) return;
    }
    const held = this.held;
    if (held !== undefined) {
      this.held = undefined;
      const encoding = held.headers['content-encoding'];
      const body = this.extras!.transformBody!(Buffer.concat(held.chunks), (Array.isArray(encoding) ? encoding[0] : encoding) ?? '');
      const headers = held.headers;
      delete headers['transfer-encoding'];
      headers['content-length'] = String(body.length);
      if (headers['content-type'] === undefined && body.length > 0) headers['content-type'] = detectContentType(body);
      if (!this.writeHead(controller, headers)) return;
      this.res.end(body);
      return;
    }
    if (this.pendingHead !== undefined && !this.flushHead(controller)) return;
    const rec = this.recording;
    this.recording = undefined;
    let kept: Promise<void> | undefined;
    if (rec !== undefined && this.extras?.record !== undefined) {
      const headers: Record<string, string | string[]> = {};
      for (const name in rec.headers) if (!name.startsWith('x-ratelimit-')) headers[name] = rec.headers[name]!;
      kept = this.extras.record(this.status, headers, Buffer.concat(rec.chunks));
    }
    const tail = this.lastChunk;
    this.lastChunk = undefined;
    if (kept === undefined) this.res.end(tail);
    else {
      const end = (): void => void this.res.end(tail);
      kept.then(end, end);
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    clearTimeout(this.deadline);
    if (this.closed || this.expired || this.replaced || err === CLIENT_GONE) return;
    if (this.res.headersSent) {
      // Mid-body: the status is out, so the only honest signal left is a cut connection.
      this.res.destroy();
      return;
    }
    this.failed(this.apiId, this.origin, err);
    this.outcome(true);
    const code = (err as { code?: string }).code;
    this.answer(code === 'UND_ERR_HEADERS_TIMEOUT' ? 504 : 500, code === 'UND_ERR_HEADERS_TIMEOUT' ? UPSTREAM_TIMEOUT : PROXY_FAILED);
  }

  /** Answers without the upstream (it failed, or the request could not be sent). */
  answer(status: number, message: string): void {
    // The API's error overrides apply to the gateway's own errors (Tyk's HandleError).
    const a = overrideAnswer(this.res, tykError(status, message));
    this.status = a.status;
    const res = this.res;
    res.statusCode = a.status;
    for (const name in a.headers) res.setHeader(name, a.headers[name]!);
    // end() with the whole body sets Content-Length.
    res.end(a.body);
  }

  private closeNow(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.deadline);
    clearTimeout(this.stalled);
    clearTimeout(this.hard);
    // Tyk counts a request its client cancelled as a failure ("context canceled").
    this.outcome(true);
    if (!this.res.writableFinished) {
      // Gone before the status went out: Tyk's 499; after, the status sent stands.
      if (!this.res.headersSent) this.status = CLIENT_CLOSED;
      this.controller?.abort(CLIENT_GONE);
    }
    if (this.onDrain) this.res.off('drain', this.onDrain);
    this.resolve();
  }
}
