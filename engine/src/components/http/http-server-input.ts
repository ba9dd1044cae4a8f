/**
 * The `http_server` input: every request to `path` (with an allowed verb) becomes one
 * transaction (a multipart body: one message per part), and every websocket payload on
 * `ws_path` a batch of one. The request is answered when its transaction is acked: with the
 * responses stored by `sync_response` (else an empty 200), 502 on a nack, 408 when delivery
 * takes longer than `timeout` (the connection is closed; the message may still be delivered)
 * and 503 once the input is closing. Bodies are bounded (`max_body_size`, 413) and must arrive
 * within `timeout` (408).
 *
 * With an empty `address` it mounts on the service-wide HTTP server; with one it runs its own
 * server (TLS with `cert_file`/`key_file`, then HTTP/2 too, and `cors`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import {
  ErrorCode,
  Message,
  SvcError,
  errorMessage,
  extractTraceHeaders,
  f,
  parseDuration,
  registerInput,
  setTraceParent,
  type Batch,
  type ComponentContext,
  type Infer,
  type Logger,
  type RateLimit,
} from '@svc/engine';
import {
  BodyError,
  Cors,
  Deadline,
  PushInput,
  RoutePattern,
  Router,
  readBody,
  type MethodNotAllowed,
  type RouteMatch,
  type HttpListener,
} from '@svc/engine/kit';
import { isMultipart, parseMultipart } from './multipart.js';
import { requestMetadata, splitTarget, type RequestInfo } from './request-metadata.js';
import { ownServerOptions } from './own-server.js';
import { ResponseRenderer, syncResponseSpec, type RenderedResponse } from './sync-response.js';
import { loadWs } from './lazy-deps.js';
import { WebsocketEndpoint } from './websocket-endpoint.js';

/** The default limit of a request body. */
export const DEFAULT_MAX_BODY = 16 * 1024 * 1024;

const pathField = (dflt: string, what: string) =>
  f
    .string()
    .default(dflt)
    .validate((p) => {
      if (p === '') return undefined;
      try {
        new RoutePattern(p);
        return undefined;
      } catch (err) {
        return errorMessage(err);
      }
    })
    .describe(what);

export const httpServerSpec = f.object({
  address: f.string().default('').describe('An address (host:port) to serve on instead of the service-wide HTTP server.'),
  path: pathField('/post', 'The path of the endpoint; `{name}` segments become metadata; a path ending in "/" matches every path under it.'),
  ws_path: pathField('/post/ws', 'The path of the websocket endpoint; each payload is a batch of one message.'),
  ws_welcome_message: f.string().default('').advanced().describe('A message sent to every new websocket connection.'),
  ws_rate_limit_message: f.string().default('').advanced().describe('A message sent to a websocket connection whose payload was dropped by the rate limit.'),
  allowed_verbs: f
    .array(f.string())
    .default(['POST'])
    .validate((v) => (v.length === 0 ? 'allowed_verbs must list at least one verb' : undefined))
    .describe('The verbs `path` accepts; others get 405.'),
  timeout: f
    .duration()
    .default('5s')
    .describe('How long a request may take to arrive and be delivered; then it gets 408 and its connection is closed (the message may still be delivered).'),
  rate_limit: f.string().default('').describe('A rate limit resource each request (and websocket payload) waits on; when it is exhausted requests get 429.'),
  cert_file: f
    .string()
    .default('')
    .advanced()
    .describe('A certificate file: with `key_file` the server speaks TLS (and HTTP/2). Only with a custom `address`.'),
  key_file: f.string().default('').advanced().describe('The private key file of `cert_file`.'),
  cors: f
    .object({
      enabled: f.bool().default(false).describe('Whether to answer CORS requests. Only with a custom `address`.'),
      allowed_origins: f.array(f.string()).default([]).describe('The origins allowed (`*` for any).'),
    })
    .advanced()
    .describe('CORS for a custom `address`.'),
  sync_response: syncResponseSpec,
  processes: f
    .int()
    .default(1)
    .validate((n) => (n >= 0 ? undefined : 'processes must be 0 (one per core) or more'))
    .advanced()
    .svcOnly()
    .describe(
      'How many processes serve the stream under `engine -c`, sharing the listening socket (0: one per core). Each runs the whole pipeline, so in-memory state (caches, rate limits, dedupe) is per process and ordering holds only within one; hence 1 by default, as Benthos runs.',
    ),
  max_body_size: f
    .int()
    .default(DEFAULT_MAX_BODY)
    .validate((n) => (n > 0 ? undefined : 'max_body_size must be positive'))
    .advanced()
    .svcOnly()
    .describe('The largest request body (and websocket payload) accepted, in bytes; larger ones get 413.'),
});

export type HttpServerConfig = Infer<typeof httpServerSpec>;

type Req = IncomingMessage | Http2ServerRequest;
type Res = ServerResponse | Http2ServerResponse;

/** Writes a plain-text answer (and closes the connection when asked; HTTP/2 has no such header). */
export function answer(req: Req, res: Res, status: number, text: string, close = false, extra: Record<string, string> = {}): void {
  if (res.headersSent || (res as { writableEnded?: boolean }).writableEnded) return;
  const headers: Record<string, string | number> = { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...extra };
  if (close && req.httpVersionMajor < 2) headers['Connection'] = 'close';
  res.writeHead(status, headers);
  res.end(text);
}

/** Verbs whose requests carry a body. */
const BODY_VERBS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * An HTTP/1.0 request that carries a body without a Content-Length: HTTP/1.0 has no chunked
 * encoding, so its body would run to the end of the connection, which Node's parser does not
 * read (it takes the body for the next request). Answered 411 instead of taking it as empty.
 */
function lengthRequired(req: Req): boolean {
  if (req.httpVersionMajor !== 1 || req.httpVersionMinor !== 0) return false;
  const h = req.headers;
  return BODY_VERBS.has((req.method ?? '').toUpperCase()) && h['content-length'] === undefined && h['transfer-encoding'] === undefined;
}

function sendRendered(req: Req, res: Res, r: RenderedResponse, close: boolean): void {
  if (res.headersSent || (res as { writableEnded?: boolean }).writableEnded) return;
  const headers: Record<string, string | string[] | number> = {};
  for (const k in r.headers) {
    const v = r.headers[k]!;
    const lk = k.toLowerCase();
    // Connection-level headers are HTTP/1 only (HTTP/2 refuses them).
    if (req.httpVersionMajor >= 2 && (lk === 'connection' || lk === 'keep-alive' || lk === 'transfer-encoding')) continue;
    headers[k] = v;
  }
  headers['Content-Length'] = r.body.length;
  if (close && req.httpVersionMajor < 2) headers['Connection'] = 'close';
  res.writeHead(r.status, headers);
  endWith(res, r.body);
}

/** Bodies up to this size are sent as a latin1 string, in one write with the head. */
const ONE_WRITE_MAX = 16 * 1024;

/**
 * Ends a response with `body`. node:http writes a string body together with the head in one
 * write; a Buffer body goes out as a second chunk (a writev), which costs about 15% of the
 * requests/s of small answers. latin1 maps every byte to one char and back, so the bytes sent
 * are the same.
 */
function endWith(res: Res, body: Buffer): void {
  if (body.length === 0) res.end();
  else if (body.length <= ONE_WRITE_MAX) res.end(body.toString('latin1'), 'latin1');
  else res.end(body);
}

export class HttpServerInput extends PushInput {
  private readonly log: Logger;
  private readonly path: RoutePattern | undefined;
  /** `path` with its verbs (undefined without a `path`). */
  private readonly routes: Router<true> | undefined;
  private readonly timeoutMs: number;
  private readonly renderer: ResponseRenderer;
  private readonly rateLimit: RateLimit | undefined;
  private readonly cors: Cors | undefined;
  private readonly ws: WebsocketEndpoint | undefined;
  private server: HttpListener | undefined;
  private mounted: string[] = [];

  constructor(
    readonly conf: HttpServerConfig,
    private readonly ctx: ComponentContext,
  ) {
    super();
    this.log = ctx.logger;
    this.path = conf.path ? new RoutePattern(conf.path) : undefined;
    this.routes = conf.path ? new Router<true>().add([...new Set(conf.allowed_verbs.map((v) => v.toUpperCase()))], conf.path, true) : undefined;
    this.timeoutMs = parseDuration(conf.timeout) || 5000;
    this.renderer = new ResponseRenderer(conf.sync_response);
    this.rateLimit = conf.rate_limit ? ctx.resources.rateLimit(conf.rate_limit) : undefined;
    if (!conf.address) {
      if (conf.cert_file || conf.key_file)
        throw new SvcError(
          ErrorCode.ConfigLint,
          'http_server: cert_file and key_file need a custom address (the service-wide server has its own http.cert_file)',
        );
      if (conf.cors.enabled)
        throw new SvcError(ErrorCode.ConfigLint, 'http_server: cors needs a custom address (the service-wide server has its own http.cors)');
    } else if (Boolean(conf.cert_file) !== Boolean(conf.key_file)) {
      throw new SvcError(ErrorCode.ConfigLint, 'http_server: cert_file and key_file must be set together to serve TLS');
    }
    this.cors = conf.address && conf.cors.enabled ? new Cors(conf.cors.allowed_origins, 'http_server.cors') : undefined;
    if (conf.ws_path) {
      this.ws = new WebsocketEndpoint(new RoutePattern(conf.ws_path), {
        welcome: conf.ws_welcome_message,
        rateLimitMessage: conf.ws_rate_limit_message,
        maxPayload: conf.max_body_size,
        rateLimit: this.rateLimit,
        log: this.log,
        submit: (tx) => void this.push({ tx, dropped: () => tx.ack(new Error('the input closed')) }),
        isClosing: () => this.closing,
      });
    }
  }

  async connect(): Promise<void> {
    if (this.server || this.mounted.length) return;
    if (this.conf.address) {
      const options = await ownServerOptions(
        this.conf,
        this.timeoutMs,
        (req, res) => this.dispatch(req, res),
        this.ws ? (req, socket, head) => this.ws!.upgrade(req, socket, head) : undefined,
        this.log,
      );
      this.server = await this.startListener(options);
      const a = this.server.address();
      const s = options.tls ? 's' : '';
      this.log.info(`Receiving HTTP${s.toUpperCase()} messages at: http${s}://${a.host}:${a.port}`);
      return;
    }
    const service = this.ctx.service;
    if (!service) {
      throw new SvcError(
        ErrorCode.ConfigLint,
        'http_server: the service-wide HTTP server is disabled (http.enabled: false): enable it, or give this input an address',
      );
    }
    const pathRoute = this.path ? routeOf(this.path) : undefined;
    const wsRoute = this.ws ? routeOf(this.ws.pattern) : undefined;
    if (pathRoute !== undefined && pathRoute === wsRoute) {
      service.mount(
        pathRoute,
        (req, res) => this.dispatch(req, res),
        'Post messages (and websockets) into the stream.',
        (req, socket, head) => this.ws!.upgrade(req, socket, head),
      );
      this.mounted.push(pathRoute);
      return;
    }
    if (pathRoute !== undefined) {
      service.mount(pathRoute, (req, res) => this.dispatch(req, res), 'Post a message into the stream.');
      this.mounted.push(pathRoute);
    }
    if (wsRoute !== undefined) {
      service.mount(
        wsRoute,
        (req, res) => answer(req, res, 400, 'websocket upgrade required\n'),
        'Post messages via websocket into the stream.',
        (req, socket, head) => this.ws!.upgrade(req, socket, head),
      );
      this.mounted.push(wsRoute);
    }
  }

  /** Where the own server listens (tests, logs). */
  address(): { host: string; port: number } | undefined {
    return this.server?.address();
  }

  /** Routes a request of the own server or of a mount: `path`, else 404. */
  dispatch(req: Req, res: Res): void {
    const { path, query } = splitTarget(req.url);
    if (this.cors?.handle(req, res)) return;
    // node:http and node:http2 give the method as sent, and accept upper-case methods only.
    const method = req.method ?? 'GET';
    const route = this.routes?.find(method, path);
    if (!route) {
      if (this.ws?.pattern.match(path)) return answer(req, res, 400, 'websocket upgrade required\n');
      return answer(req, res, 404, 'not found\n');
    }
    void this.handle(req, res, { method, path, query, headers: req.headers, remoteAddress: req.socket?.remoteAddress, socket: req.socket }, route);
  }

  private async handle(req: Req, res: Res, info: RequestInfo, route: RouteMatch<true> | MethodNotAllowed): Promise<void> {
    if (this.closing) return answer(req, res, 503, 'Server closing\n', true);
    if (!route.found) return answer(req, res, 405, 'Method not allowed\n', false, { Allow: route.allowed.join(', ') });
    const params = route.params;
    if (lengthRequired(req)) return answer(req, res, 411, 'Length Required: send the body with a Content-Length header\n', true);
    if (this.rateLimit) {
      const wait = await this.rateLimit.access();
      if (wait > 0) return answer(req, res, 429, 'Too Many Requests\n', false, { 'Retry-After': String(Math.max(1, Math.ceil(wait / 1000))) });
    }
    const deadline = new Deadline(this.timeoutMs);
    let body: Buffer;
    try {
      body = await readBody(req as Req & { headers: Record<string, unknown> }, this.conf.max_body_size, deadline);
    } catch (err) {
      deadline.clear();
      const status = err instanceof BodyError ? err.status : 400;
      this.log.debug(`Request refused (${status}): ${errorMessage(err)}`);
      return answer(req, res, status, status === 413 ? 'Request body too large\n' : status === 408 ? 'Request timed out\n' : 'Bad request\n', true);
    }
    let batch: Batch;
    try {
      batch = this.messages(req, body, info, params);
    } catch (err) {
      deadline.clear();
      this.log.warn(`Request read failed: ${errorMessage(err)}`);
      return answer(req, res, 400, 'Bad request\n');
    }
    // A caller's `traceparent` / `uber-trace-id` becomes the parent of each message's root span.
    const parent = extractTraceHeaders(req.headers, true);
    if (parent) for (const m of batch) setTraceParent(m, parent);
    this.deliver(req, res, batch, deadline);
  }

  private messages(req: Req, body: Buffer, info: RequestInfo, params: Readonly<Record<string, string>>): Batch {
    const meta = requestMetadata(info, params, true);
    const type = req.headers['content-type'];
    const contents = isMultipart(type) ? parseMultipart(body, type!).map((p) => p.body) : [body];
    const batch: Batch = new Array(contents.length);
    for (let i = 0; i < contents.length; i++) batch[i] = Message.sharingMeta(contents[i]!, meta);
    return batch;
  }

  private deliver(req: Req, res: Res, batch: Batch, deadline: Deadline): void {
    if (deadline.expired) return answer(req, res, 408, 'Request timed out\n', true);
    const request = this.pushRequest(batch, {
      acked: (err, results) => {
        deadline.clear();
        if (err) {
          this.log.debug(`Request nacked: ${errorMessage(err)}`);
          return answer(req, res, 502, 'Bad Gateway: the message was not delivered\n', this.closing);
        }
        let rendered: RenderedResponse;
        try {
          rendered = this.renderer.render(results());
        } catch (e) {
          this.log.error(`Cannot build the synchronous response: ${errorMessage(e)}`);
          return answer(req, res, 502, 'Bad Gateway: the response could not be built\n');
        }
        sendRendered(req, res, rendered, this.closing);
      },
      dropped: () => {
        deadline.clear();
        answer(req, res, 503, 'Server closing\n', true);
      },
    });
    // Unread, it never enters the stream; read, it may still be delivered.
    deadline.on(() => request.expire() && answer(req, res, 408, 'Request timed out\n', true));
  }

  /**
   * Closing: queued requests get 503 (the base drops them), the websockets close, the mounts are
   * released, and the own server stops accepting and cuts what is left after a grace. Requests
   * in flight are still answered as their transactions are acked (the stream drains meanwhile).
   */
  protected override onClose(): void {
    this.ws?.close();
    // Released on the service-wide server: new requests still get 503 from here until a
    // replacement stream mounts the same paths.
    const service = this.ctx.service;
    for (const path of this.mounted.splice(0)) {
      if (service?.release) service.release(path);
      else service?.unmount(path);
    }
  }
}

/** The route a pattern mounts at on the service-wide server: itself, or its static prefix. */
function routeOf(p: RoutePattern): string {
  return p.names.length === 0 ? p.path : p.staticPrefix;
}

registerInput('http_server', {
  summary: 'Receives messages over HTTP(S) and websockets; can answer each request synchronously.',
  description: [
    'With an empty `address` the endpoints mount on the service-wide HTTP server (`http.address`); with one,',
    'the input serves on its own (TLS and HTTP/2 with `cert_file` and `key_file`, CORS with `cors`).',
    '',
    '`path` takes `allowed_verbs` (405 otherwise): the whole body is one message, or, with a multipart',
    'Content-Type (RFC 1341), each part is a message of one batch. `{name}` path segments, the headers',
    '(first values), query parameters and cookies become metadata, with `http_server_user_agent`,',
    '`http_server_request_path`, `http_server_verb`, `http_server_remote_ip`, and over TLS',
    '`http_server_tls_version`, `http_server_tls_cipher_suite` (and `http_server_tls_subject` for a verified client certificate).',
    '',
    'The request is answered once its transaction is acked: with the response stored by a `sync_response`',
    'output or processor (status and headers from `sync_response`, which may interpolate the response), else',
    'an empty 200; 502 when the message could not be delivered; 408 after `timeout` (the connection is closed;',
    'the message may still be delivered); 503 while shutting down; 413 for a body over `max_body_size`; 429',
    'when `rate_limit` is exhausted; 411 for an HTTP/1.0 POST, PUT or PATCH without a Content-Length (its body',
    'could only end with the connection), which creates no message.',
    '',
    '`ws_path` takes websockets: each payload is a batch of one, answered with its sync responses as text frames.',
  ].join('\n'),
  config: httpServerSpec,
  examples: [
    `input:
  http_server:
    path: /post
    allowed_verbs: [ POST, PUT ]
output:
  sync_response: {}`,
    `input:
  http_server:
    address: 0.0.0.0:8443
    path: /orders/{id}
    cert_file: ./server.crt
    key_file: ./server.key
    sync_response:
      status: '\${! meta("status") | "200" }'
      headers:
        Content-Type: application/json`,
  ],
  factory: async (conf, ctx) => {
    if (conf.ws_path) await loadWs();
    return new HttpServerInput(conf, ctx);
  },
});
