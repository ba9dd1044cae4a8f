import type * as http from 'node:http';
import type { HttpConfig } from '../config/root-spec.js';
import { errorMessage } from '../errors.js';
import { Cors } from '../http/cors.js';
import { ServiceBasicAuth } from './basic-auth.js';
import { HttpListener } from '../http/listener.js';
import { loadTlsFiles } from '../http/tls.js';
import type { Logger } from '../observability/logger.js';
import type { RouteHandler, ServiceRoutes, UpgradeHandler } from '../plugin/types.js';
import type { Duplex } from 'node:stream';
import type { StatusBoard } from '../runtime/status.js';
import { RouteTable, type Route } from './router.js';

/** A request may take this long in all; a stuck client must not hold a socket forever. */
const REQUEST_TIMEOUT_MS = 30_000;
/** Headers must arrive within this, which bounds slowloris-style clients. */
const HEADERS_TIMEOUT_MS = 10_000;
/** How long `close()` lets in-flight requests finish before it cuts every connection. */
const DEFAULT_CLOSE_GRACE_MS = 1_000;

export interface ServiceServerOptions {
  /** What `/ready` reports: a stream's status board, or every stream's in streams mode. */
  status: Pick<StatusBoard, 'notReady'>;
  logger: Logger;
  version: string;
  /** The build date shown by `/version`; `unknown` when not given. */
  built?: string;
  /** Overrides the grace `close()` gives to in-flight requests (tests shorten it). */
  closeGraceMs?: number;
}

/** The path of a request target, without its query: `/ready?x=1` → `/ready`. */
function requestPath(url: string | undefined): string {
  let target = url ?? '/';
  if (!target.startsWith('/')) {
    // Absolute-form (`GET http://host/ping`), which proxies send.
    try {
      target = new URL(target).pathname;
    } catch {
      return target;
    }
  }
  const end = target.search(/[?#]/);
  return end < 0 ? target : target.slice(0, end);
}

function send(res: http.ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(body);
}

function sendText(res: http.ServerResponse, status: number, body: string): void {
  send(res, status, 'text/plain; charset=utf-8', body);
}

function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json', JSON.stringify(value));
}

function isPromiseLike(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

/**
 * The service-wide HTTP server, as in Benthos: health (`/ping`, `/ready`), `/version`,
 * `/endpoints`, and whatever components mount (`/metrics`, an `http_server` input). Every route
 * is also served under `root_path`. It is one server per process so that operators have a single
 * port to probe and scrape.
 */
export class ServiceServer implements ServiceRoutes {
  private readonly routes: RouteTable;
  private readonly cors: Cors | undefined;
  private readonly basicAuth: ServiceBasicAuth | undefined;
  private readonly logger: Logger;
  private listener: HttpListener | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly conf: HttpConfig,
    private readonly opts: ServiceServerOptions,
  ) {
    this.logger = opts.logger;
    this.routes = new RouteTable(conf.root_path);
    this.cors = conf.cors.enabled ? new Cors(conf.cors.allowed_origins, 'http.cors') : undefined;
    this.basicAuth = conf.basic_auth?.enabled ? new ServiceBasicAuth(conf.basic_auth) : undefined;
    this.builtin('/ping', 'Responds 200 "pong": the process is alive.', (_req, res) => sendText(res, 200, 'pong'));
    this.builtin('/ready', 'Responds 200 when every input and output is connected, else 503 listing those that are not.', (_req, res) => this.ready(res));
    this.builtin('/version', 'The version and build date, as JSON.', (_req, res) =>
      sendJson(res, 200, { version: opts.version, built: opts.built ?? 'unknown' }),
    );
    this.builtin('/endpoints', 'Every endpoint of this server and what it does, as JSON.', (_req, res) =>
      sendJson(res, 200, Object.fromEntries(this.routes.list().map((r) => [r.path, r.description]))),
    );
  }

  mount(path: string, handler: RouteHandler, description = '', upgrade?: UpgradeHandler): void {
    this.routes.add({ path, handler, upgrade, description, builtin: false });
    this.listenUpgrades();
  }

  release(path: string): void {
    this.routes.release(path);
  }

  unmount(path: string): void {
    this.routes.remove(path);
    this.listenUpgrades();
  }

  /** The listener takes upgrades only while a route does: else such a request is served as an ordinary one. */
  private listenUpgrades(): void {
    this.listener?.setUpgradeListener(this.routes.hasUpgrades() ? this.onUpgrade : undefined);
  }

  private readonly onUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer): void => {
    const found = this.routes.match('GET', requestPath(req.url));
    const route = found?.found ? found.value : undefined;
    if (!route?.upgrade) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    try {
      route.upgrade(req, socket, head);
    } catch (err) {
      this.logger.error('service HTTP upgrade handler failed', { route: route.path, error: errorMessage(err) });
      socket.destroy();
    }
  };

  /** Binds `conf.address`; TLS when both `cert_file` and `key_file` are set. */
  async start(): Promise<void> {
    if (this.listener || this.closing) throw new Error('the service HTTP server was already started (or closed)');
    const tls = await loadTlsFiles(this.conf, 'http.');
    const listener = new HttpListener({
      name: 'the service HTTP server',
      address: this.conf.address,
      addressField: 'http.address',
      logger: this.logger,
      tls,
      handler: (req, res) => this.dispatch(req, res),
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      closeGraceMs: this.opts.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS,
    });
    this.listener = listener;
    this.listenUpgrades();
    try {
      await listener.start();
    } catch (err) {
      this.listener = undefined;
      throw err;
    }
    const bound = listener.address();
    this.logger.info('service HTTP server listening', { address: `${bound.host}:${bound.port}`, tls: Boolean(tls) });
  }

  /** Where the server listens (the real port when `address` asked for port 0). */
  address(): { host: string; port: number } {
    if (!this.listener) throw new Error('the service HTTP server is not listening');
    return this.listener.address();
  }

  /**
   * Stops listening, lets in-flight requests finish for a short grace, then cuts every
   * connection (idle keep-alive ones at once), so that shutdown never waits on a client.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    if (!this.listener) return;
    await this.listener.close();
    this.logger.debug('service HTTP server closed');
  }

  private builtin(path: string, description: string, handler: RouteHandler): void {
    this.routes.add({ path, handler, description, builtin: true });
  }

  private ready(res: http.ServerResponse): void {
    const waiting = this.opts.status.notReady();
    if (waiting.length === 0) return sendText(res, 200, 'OK');
    const lines = waiting.map((s) => `${s.kind} ${s.path} (${s.type}): ${s.reason ?? 'not connected'}`);
    sendText(res, 503, lines.join('\n') + '\n');
  }

  private dispatch(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.cors?.handle(req, res)) return;
    if (this.basicAuth !== undefined) {
      const auth = this.basicAuth;
      void auth.admit(req, res).then(
        (ok) => ok && this.route(req, res),
        () => res.destroy(),
      );
      return;
    }
    this.route(req, res);
  }

  private route(req: http.IncomingMessage, res: http.ServerResponse): void {
    const found = this.routes.match(req.method ?? 'GET', requestPath(req.url));
    if (!found) return sendText(res, 404, 'not found\n');
    if (!found.found) {
      res.setHeader('Allow', found.allowed.join(', '));
      return sendText(res, 405, 'method not allowed\n');
    }
    this.invoke(found.value, req, res);
  }

  /** Runs a handler; a throw (or a rejected promise, from an async handler) becomes a bare 500. */
  private invoke(route: Route, req: http.IncomingMessage, res: http.ServerResponse): void {
    const fail = (err: unknown): void => {
      // The message may hold internals: it goes to the log only, never to the client.
      this.logger.error('service HTTP handler failed', { route: route.path, method: req.method, error: errorMessage(err) });
      if (res.headersSent) {
        res.destroy();
        return;
      }
      for (const name of res.getHeaderNames()) {
        if (!name.startsWith('access-control-') && name !== 'vary') res.removeHeader(name);
      }
      sendText(res, 500, 'internal server error\n');
    };
    try {
      const result: unknown = route.handler(req, res);
      if (isPromiseLike(result)) result.then(undefined, fail);
    } catch (err) {
      fail(err);
    }
  }
}
