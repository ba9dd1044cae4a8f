/**
 * The server of an http_server input with its own `address`: plain HTTP/1.1, or with
 * `cert_file` and `key_file` TLS with HTTP/2 (HTTP/1.1 still accepted). Headers must arrive
 * within the input's `timeout`, which bounds slowloris-style clients; closing stops accepting,
 * lets in-flight requests finish for a grace, then cuts what is left.
 */
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import * as http2 from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ErrorCode, SvcError, errorMessage, type Logger } from '@svc/engine';

type Handler = (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => void;
type Upgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void;

/** How long closing waits for in-flight requests before it cuts every connection. */
const CLOSE_GRACE_MS = 5_000;

/** Splits `host:port` (`:8080` is every interface, `[::1]:8080` an IPv6 host). */
export function parseAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const portText = colon < 0 ? '' : address.slice(colon + 1);
  const port = Number(portText);
  if (colon < 0 || !/^\d+$/.test(portText) || port > 65535) {
    throw new SvcError(ErrorCode.ConfigLint, `http_server: address "${address}" is not host:port (e.g. 0.0.0.0:8080 or :8080)`);
  }
  return { host: address.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port };
}

export class OwnServer {
  private server: http.Server | http2.Http2SecureServer | undefined;
  private readonly sockets = new Set<Socket>();
  private closing: Promise<void> | undefined;
  readonly tls: boolean;

  constructor(
    private readonly conf: { address: string; cert_file: string; key_file: string },
    private readonly timeoutMs: number,
    private readonly handler: Handler,
    private readonly upgrade: Upgrade | undefined,
    private readonly log: Logger,
  ) {
    this.tls = Boolean(conf.cert_file && conf.key_file);
  }

  async start(): Promise<void> {
    const { host, port } = parseAddress(this.conf.address);
    const headersTimeout = Math.min(Math.max(this.timeoutMs, 1_000), 60_000);
    let server: http.Server | http2.Http2SecureServer;
    if (this.tls) {
      let cert: Buffer;
      let key: Buffer;
      try {
        cert = readFileSync(this.conf.cert_file);
        key = readFileSync(this.conf.key_file);
      } catch (err) {
        throw new SvcError(ErrorCode.ConfigFile, `http_server: cannot read cert_file/key_file: ${errorMessage(err)}`, { cause: err });
      }
      server = http2.createSecureServer({ cert, key, allowHTTP1: true }, this.handler);
      // HTTP/2 sessions and TLS handshakes that stall are cut after this long.
      server.setTimeout(Math.max(headersTimeout * 2, 10_000));
    } else {
      server = http.createServer(
        { headersTimeout, requestTimeout: 0, connectionsCheckingInterval: Math.min(1_000, headersTimeout / 2), keepAliveTimeout: 5_000 },
        this.handler as (req: http.IncomingMessage, res: http.ServerResponse) => void,
      );
    }
    if (this.upgrade) server.on('upgrade', this.upgrade);
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    server.on('secureConnection', (s: Socket) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(new SvcError(ErrorCode.NotConnected, `http_server cannot listen on ${this.conf.address}: ${err.message}`, { cause: err }));
      server.once('error', onError);
      server.listen(host ? { host, port } : { port }, () => {
        server.off('error', onError);
        resolve();
      });
    });
    server.on('error', (err) => this.log.error(`http_server error: ${err.message}`));
    const a = this.address();
    this.log.info(`Receiving HTTP${this.tls ? 'S' : ''} messages at: http${this.tls ? 's' : ''}://${a.host}:${a.port}`);
  }

  address(): { host: string; port: number } {
    const info = this.server?.address() as AddressInfo | null | undefined;
    if (!info || typeof info === 'string') throw new Error('http_server is not listening');
    return { host: info.address, port: info.port };
  }

  close(): Promise<void> {
    return (this.closing ??= this.shutdown());
  }

  private async shutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        for (const s of this.sockets) s.destroy();
      }, CLOSE_GRACE_MS);
      timer.unref();
      server.close(() => {
        clearTimeout(timer);
        resolve();
      });
      if ('closeIdleConnections' in server) server.closeIdleConnections();
    });
  }
}
