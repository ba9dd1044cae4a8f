/**
 * A test double of the secrets manager's KV engine (Vault's KV v1 and v2, read side), written
 * from Vault's public API docs and the call shape docs/spec/gateway.md gives, because no real Vault can be
 * installed on this machine: `GET /v1/{mount}/{secret}?lease=true` with `X-Secretstore-Token`
 * answers `{request_id, lease_id, lease_duration, renewable, data, metadata, auth}` (v1: the
 * keys in `data`; v2: `data: {data, metadata}`), 403 `{"errors":["permission denied"]}` for a
 * wrong token, 404 `{"errors":[]}` for no such secret. `failNext` makes the next answers 500s,
 * `hang` makes it never answer (a timeout). Every request is recorded. Test support only.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest } from './consul-double.js';

export class VaultDouble {
  readonly requests: RecordedRequest[] = [];
  /** Secret path (`secret/app`) → its keys. */
  readonly secrets = new Map<string, Record<string, unknown>>();
  /** The next `failNext` requests get 500. */
  failNext = 0;
  /** Requests get no answer at all while true. */
  hang = false;
  private readonly server = createServer((req, res) => this.handle(req, res));
  private readonly hanging: ServerResponse[] = [];

  constructor(
    private readonly token: string,
    private readonly kvVersion: 1 | 2,
  ) {}

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://double');
    this.requests.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers });
    if (this.hang) {
      this.hanging.push(res);
      return;
    }
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (this.failNext > 0) {
      this.failNext--;
      return json(500, { errors: ['internal error'] });
    }
    if (req.headers['x-secretstore-token'] !== this.token) return json(403, { errors: ['permission denied'] });
    if (req.method !== 'GET' || !url.pathname.startsWith('/v1/')) return json(405, { errors: [] });
    const path = decodeURIComponent(url.pathname.slice('/v1/'.length));
    const keys = this.secrets.get(path);
    if (keys === undefined) return json(404, { errors: [] });
    const metadata = { created_time: '2024-01-01T00:00:00Z', deletion_time: '', destroyed: false, version: 1 };
    json(200, {
      request_id: 'f0c1a9d2-0000-4000-8000-000000000001',
      lease_id: '',
      lease_duration: this.kvVersion === 1 ? 2764800 : 0,
      renewable: false,
      data: this.kvVersion === 1 ? keys : { data: keys, metadata },
      metadata: null,
      wrap_info: null,
      warnings: null,
      auth: null,
    });
  }
}
