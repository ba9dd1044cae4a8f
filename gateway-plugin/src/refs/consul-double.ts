/**
 * A test double of Consul's KV HTTP API (read side), written from Consul's public API docs
 * ("KV Store Endpoints: Read Key"), because no real Consul can be installed on this machine.
 * `GET /v1/kv/:key` answers 200 with a JSON array of one pair whose `Value` is base64 (null for
 * a key without data), 404 for no such key, 403 when a token is required and not given,
 * 500 "No path to datacenter" for an unknown `dc`. Every request is recorded. Plain http, or
 * https when given a key and certificate. Test support only: not exported by the plugin.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** `user:password` from a basic Authorization header, if any. */
  basic?: string;
}

export interface ConsulDoubleOptions {
  /** A request without this `X-Consul-Token` gets 403. */
  token?: string;
  /** Datacenters known; `dc` outside them gets 500. Default: any. */
  datacenters?: string[];
  tls?: { key: string | Buffer; cert: string | Buffer };
}

export class ConsulDouble {
  readonly requests: RecordedRequest[] = [];
  readonly keys = new Map<string, string | null>();
  private readonly server;

  constructor(private readonly opts: ConsulDoubleOptions = {}) {
    const handler = (req: IncomingMessage, res: ServerResponse): void => this.handle(req, res);
    this.server = opts.tls ? createHttpsServer(opts.tls, handler) : createHttpServer(handler);
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://double');
    const auth = req.headers.authorization;
    this.requests.push({
      method: req.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      basic: auth?.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8') : undefined,
    });
    const send = (status: number, body: string, type = 'text/plain'): void => {
      res.writeHead(status, { 'content-type': type, 'x-consul-index': '100' }).end(body);
    };
    if (req.method !== 'GET' || !url.pathname.startsWith('/v1/kv/')) return send(405, 'method not allowed');
    if (this.opts.token !== undefined && req.headers['x-consul-token'] !== this.opts.token) return send(403, 'Permission denied');
    const dc = url.searchParams.get('dc');
    if (dc !== null && this.opts.datacenters && !this.opts.datacenters.includes(dc)) return send(500, 'No path to datacenter');
    const key = decodeURIComponent(url.pathname.slice('/v1/kv/'.length));
    if (!this.keys.has(key)) return send(404, '');
    const value = this.keys.get(key)!;
    const pair = {
      LockIndex: 0,
      Key: key,
      Flags: 0,
      Value: value === null ? null : Buffer.from(value, 'utf8').toString('base64'),
      CreateIndex: 100,
      ModifyIndex: 200,
    };
    send(200, JSON.stringify([pair]), 'application/json');
  }
}
