import * as http from 'node:http';
import * as http2 from 'node:http2';
import * as https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ErrorCode, SvcError, errorMessage } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import { parseAddress, type ListenAddress } from './address.js';
import type { TlsFiles } from './tls.js';

/** A request of either protocol when HTTP/2 is on (node:http2's compat API mirrors node:http's). */
export type HttpRequest = http.IncomingMessage | http2.Http2ServerRequest;
export type HttpResponse = http.ServerResponse | http2.Http2ServerResponse;

/** Takes an HTTP/1.1 request with an `Upgrade` header (a websocket); owns `socket` from then on. */
export type UpgradeListener = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void;

/** Headers must arrive within this by default, which bounds slowloris-style clients. */
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** A whole request may take this long by default; a stuck client must not hold a socket forever. */
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** An idle keep-alive connection is closed after this by default (node's own default). */
const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** How long `close()` lets in-flight requests finish by default before it cuts every connection. */
const DEFAULT_CLOSE_GRACE_MS = 1_000;

interface ListenerOptionsBase {
  /** `host:port` (`:8080` every interface, `[::1]:8080` IPv6, port 0 an ephemeral port). */
  address: string;
  /** The config field of `address`, named in errors (`http.address`, `http_server.address`). */
  addressField?: string;
  /** Who listens, named in errors and logs: `the service HTTP server`, `http_server`. */
  name: string;
  logger: Logger;
  /** Serve TLS with this certificate and key (see `loadTlsFiles`); plain HTTP when unset. */
  tls?: TlsFiles;
  /** Takes upgrade requests (websockets); can be changed later with `setUpgradeListener`. */
  upgrade?: UpgradeListener;
  /**
   * Headers must arrive within this (default 10 s): a client that trickles them in (slowloris)
   * is cut. Over HTTP/2 (TLS) a connection idle for twice this (at least 10 s) is cut instead.
   */
  headersTimeoutMs?: number;
  /** A whole HTTP/1.1 request must arrive within this (default 30 s); 0 for no limit (the handler bounds it). */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this (default 5 s). */
  keepAliveTimeoutMs?: number;
  /** The largest request head accepted, in bytes (node's default, 16 KiB, when unset); larger get 431. */
  maxHeaderSize?: number;
  /** How long `close()` lets in-flight requests finish before it cuts every connection (default 1 s). */
  closeGraceMs?: number;
  /**
   * The most header fields an HTTP/1 request may have: past it the request gets 431 and its
   * connection is closed. Unset: node's own count limit, which drops the fields past it silently.
   */
  maxHeaders?: number;
  /**
   * An HTTP/1 exchange must end within this many ms of its request's arrival, its answer sent
   * whole (Go's `WriteTimeout`, which Tyk sets to 120 s): past it the connection is cut, checked
   * about once a second. Unset or 0: no limit.
   */
  writeTimeoutMs?: number;
}

/** HTTP/1.1 only (over TLS when `tls` is set): the handler sees node:http's request and response. */
export interface Http1ListenerOptions extends ListenerOptionsBase {
  http2?: false;
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;
}

/** With `tls`, HTTP/2 as well as HTTP/1.1 (negotiated by ALPN); without `tls`, HTTP/1.1 only. */
export interface Http2ListenerOptions extends ListenerOptionsBase {
  http2: true;
  handler: (req: HttpRequest, res: HttpResponse) => void;
}

export type HttpListenerOptions = Http1ListenerOptions | Http2ListenerOptions;

type AnyServer = http.Server | https.Server | http2.Http2SecureServer;

/**
 * One listening HTTP server, as the service-wide server, an `http_server` input with its own
 * `address`, and the gateway need it: address parsing, TLS (and HTTP/2), header and request
 * timeouts, bounded headers, keep-alive, upgrades, and a graceful close that tracks every socket.
 *
 * `close()` stops accepting, closes idle keep-alive connections at once, lets in-flight requests
 * finish for `closeGraceMs` (their responses carry `Connection: close`; HTTP/2 sessions get a
 * GOAWAY), then cuts whatever is left, so shutdown never waits on a client. CORS is not done here:
 * a handler calls `Cors.handle` first (routing decides what a preflight is answered for).
 */
export class HttpListener {
  private server: AnyServer | undefined;
  /** Raw and TLS sockets both, so that `close()` can cut even a connection still in its TLS handshake. */
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Set<http2.ServerHttp2Session>();
  /** HTTP/1 responses not yet finished (with when they began, in arrival order), told to close their connection when `close()` starts. */
  private readonly inFlight = new Map<http.ServerResponse, number>();
  private sweeper: NodeJS.Timeout | undefined;
  private upgrade: UpgradeListener | undefined;
  private closing: Promise<void> | undefined;
  private stopping = false;

  constructor(private readonly opts: HttpListenerOptions) {
    this.upgrade = opts.upgrade;
  }

  /** True when the server speaks TLS. */
  get tls(): boolean {
    return this.opts.tls !== undefined;
  }

  /** Binds the address; rejects (NotConnected, so a caller may retry) when it cannot. */
  async start(): Promise<void> {
    if (this.server || this.closing) throw new Error(`${this.opts.name} was already started (or closed)`);
    const { host, port } = parseAddress(this.opts.address, this.opts.addressField);
    const server = this.create();
    server.on('connection', this.track);
    server.on('secureConnection', this.track);
    this.server = server;
    this.attachUpgrade();
    try {
      await new Promise<void>((resolve, reject) => {
        const onError = (err: Error): void => {
          server.off('listening', onListening);
          reject(err);
        };
        const onListening = (): void => {
          server.off('error', onError);
          resolve();
        };
        server.once('error', onError);
        server.once('listening', onListening);
        server.listen(host ? { host, port } : { port });
      });
    } catch (err) {
      this.server = undefined;
      throw new SvcError(ErrorCode.NotConnected, `${this.opts.name} cannot listen on ${this.opts.address}: ${errorMessage(err)}`, { cause: err });
    }
    server.on('error', (err) => this.opts.logger.error(`${this.opts.name} error`, { error: errorMessage(err) }));
    const limit = this.opts.writeTimeoutMs ?? 0;
    if (limit > 0) this.sweeper = setInterval(() => this.cutOverdue(limit), Math.min(1000, Math.max(50, limit / 4))).unref();
  }

  /** Cuts the exchanges older than `limit` ms (the map is in arrival order: the first younger one ends the scan). */
  private cutOverdue(limit: number): void {
    const before = performance.now() - limit;
    for (const [res, began] of this.inFlight) {
      if (began > before) break;
      this.inFlight.delete(res);
      res.destroy();
    }
  }

  /** Where the server listens (the real port when the address asked for port 0). */
  address(): ListenAddress {
    const info = this.server?.address();
    if (!info || typeof info === 'string') throw new Error(`${this.opts.name} is not listening`);
    return { host: (info as AddressInfo).address, port: (info as AddressInfo).port };
  }

  /**
   * Sets (or clears) the upgrade listener. Node hands a request with an `Upgrade` header to
   * 'upgrade' listeners only when there are some, so without one such a request is served by the
   * handler as an ordinary request.
   */
  setUpgradeListener(upgrade: UpgradeListener | undefined): void {
    this.upgrade = upgrade;
    this.attachUpgrade();
  }

  /** Stops accepting, lets in-flight requests finish for the grace, then cuts every connection. */
  close(): Promise<void> {
    return (this.closing ??= this.shutdown());
  }

  private create(): AnyServer {
    const o = this.opts;
    const headersTimeout = o.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
    if (o.tls && o.http2) {
      const server = http2.createSecureServer(
        { ...o.tls, allowHTTP1: true, ...(o.maxHeaderSize ? { settings: { maxHeaderListSize: o.maxHeaderSize } } : {}) },
        this.wrap(o.handler),
      );
      // node:http's header timeouts do not cover HTTP/2 sessions (nor HTTP/1.1 on this server):
      // stalled sessions and handshakes are cut when idle this long.
      server.setTimeout(Math.max(headersTimeout * 2, 10_000));
      server.on('session', (session: http2.ServerHttp2Session) => {
        this.sessions.add(session);
        session.once('close', () => this.sessions.delete(session));
      });
      return server;
    }
    const options: http.ServerOptions = {
      headersTimeout,
      requestTimeout: o.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      keepAliveTimeout: o.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
      // node checks those timeouts every 30 s by default, which would let a slow client hold a
      // socket for up to 30 s past its limit.
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, headersTimeout / 2)),
      ...(o.maxHeaderSize ? { maxHeaderSize: o.maxHeaderSize } : {}),
    };
    const handler = this.wrap(o.handler as (req: http.IncomingMessage, res: http.ServerResponse) => void);
    const server = o.tls ? https.createServer({ ...options, ...o.tls }, handler) : http.createServer(options, handler);
    // No count limit of node's (it drops fields silently): maxHeaderSize bounds the head, wrap() the count.
    if (o.maxHeaders !== undefined) server.maxHeadersCount = 0;
    return server;
  }

  /** Tracks HTTP/1 responses in flight, so that `close()` can tell them to close their connection. */
  private wrap<Req, Res>(handler: (req: Req, res: Res) => void): (req: Req, res: Res) => void {
    const max = this.opts.maxHeaders;
    return (req, res) => {
      if (max !== undefined && req instanceof http.IncomingMessage && req.rawHeaders.length > 2 * max) {
        // As node answers a head over maxHeaderSize.
        (res as http.ServerResponse).writeHead(431, { connection: 'close', 'content-length': 0 }).end();
        return;
      }
      if (res instanceof http.ServerResponse) {
        if (this.stopping) res.setHeader('Connection', 'close');
        else {
          this.inFlight.set(res, performance.now());
          res.once('close', () => this.inFlight.delete(res));
        }
      }
      handler(req, res);
    };
  }

  private readonly track = (socket: Socket): void => {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  };

  private attachUpgrade(): void {
    const server = this.server;
    if (!server) return;
    const has = server.listeners('upgrade').includes(this.onUpgrade);
    if (this.upgrade && !has) server.on('upgrade', this.onUpgrade);
    else if (!this.upgrade && has) server.off('upgrade', this.onUpgrade);
  }

  private readonly onUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (this.upgrade) this.upgrade(req, socket, head);
    else socket.destroy();
  };

  private async shutdown(): Promise<void> {
    clearInterval(this.sweeper);
    const server = this.server;
    if (!server) return;
    this.stopping = true;
    await new Promise<void>((resolve) => {
      const cut = setTimeout(() => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        for (const session of this.sessions) session.destroy();
        for (const socket of this.sockets) socket.destroy();
      }, this.opts.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS);
      cut.unref();
      server.close(() => {
        clearTimeout(cut);
        resolve();
      });
      // A keep-alive connection would otherwise stay open after its in-flight response.
      for (const res of this.inFlight.keys()) {
        if (!res.headersSent) res.setHeader('Connection', 'close');
        else res.once('finish', () => res.socket?.end());
      }
      if ('closeIdleConnections' in server) server.closeIdleConnections();
      for (const session of this.sessions) session.close();
    });
  }
}
