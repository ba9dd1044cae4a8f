/**
 * The `http_server` output (Benthos'): clients take messages with requests. `path` gives one
 * batch per request (a multipart body for more than one message), `stream_path` a chunked stream
 * of batches (each followed by a newline), `ws_path` a websocket of binary frames, a message each.
 *
 * A write waits until a client took its batch and the bytes were written to it: that is when the
 * transaction is acked (Benthos says the same: delivered once written to a client). A client that
 * goes away while its batch is written fails the write, and the runtime offers the batch again to
 * the next client; no batch is handed to two clients. `path` answers 408 when no batch came within
 * `timeout`, 405 for a verb not in `allowed_verbs`, 503 once the output closes.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  ErrorCode,
  SvcError,
  errorMessage,
  f,
  maxInFlightField,
  parseDuration,
  registerOutput,
  type Batch,
  type ComponentContext,
  type Infer,
  type Logger,
  type Output,
} from '@svc/engine';
import { HttpListener, type HttpRequest, type HttpResponse } from '@svc/engine/kit';
import type { WebSocketServer } from 'ws';
import { loadWs, ws } from './lazy-deps.js';
import { ownServerOptions } from './own-server.js';

const spec = f.object({
  address: f.string().default('').describe('An alternative address to host from. If left empty the service wide address is used.'),
  path: f.string().default('/get').describe('The path from which discrete messages can be consumed.'),
  stream_path: f.string().default('/get/stream').describe('The path from which a continuous stream of messages can be consumed.'),
  ws_path: f.string().default('/get/ws').describe('The path from which websocket connections can be established.'),
  allowed_verbs: f.array(f.string()).default(['GET']).describe('An array of verbs that are allowed for the `path` and `stream_path` HTTP endpoint.'),
  timeout: f
    .duration()
    .default('5s')
    .advanced()
    .describe('The maximum time to wait before a blocking, inactive connection is dropped (only applies to the `path` endpoint).'),
  cert_file: f.string().default('').advanced().describe('Enable TLS by specifying a certificate and key file. Only valid with a custom `address`.'),
  key_file: f.string().default('').advanced().describe('Enable TLS by specifying a certificate and key file. Only valid with a custom `address`.'),
  max_in_flight: maxInFlightField(
    64,
    "svc's own (Benthos has none): how many batches wait for clients at once. They are handed out in order, each to one client; a higher value lets a streaming client take batches back to back.",
  )
    .advanced()
    .svcOnly(),
  cors: f
    .object({
      enabled: f.bool().default(false).describe('Whether to allow CORS requests (not implemented on this output: refused).'),
      allowed_origins: f.array(f.string()).default([]).describe('An explicit list of origins that are allowed for CORS requests.'),
    })
    .advanced()
    .describe('Adds Cross-Origin Resource Sharing headers. Only valid with a custom `address`.'),
});
type Conf = Infer<typeof spec>;

/** A batch waiting for a client, and how its write settles. */
interface Offer {
  batch: Batch;
  taken: boolean;
  settle(err?: Error): void;
}

class HttpServerOutput implements Output {
  private readonly log: Logger;
  private readonly timeoutMs: number;
  private readonly verbs: Set<string>;
  private readonly offers: Offer[] = [];
  private readonly takers: Array<(o: Offer | undefined) => void> = [];
  private listener: HttpListener | undefined;
  private wss: WebSocketServer | undefined;
  private readonly mounted: string[] = [];
  private closing = false;

  constructor(
    private readonly conf: Conf,
    private readonly ctx: ComponentContext,
  ) {
    this.log = ctx.logger;
    this.timeoutMs = parseDuration(conf.timeout);
    this.verbs = new Set(conf.allowed_verbs.map((v) => v.toUpperCase()));
  }

  async connect(): Promise<void> {
    if (this.listener || this.mounted.length || this.closing) return;
    this.wss = new (ws().WebSocketServer)({ noServer: true });
    const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (pathOf(req.url) !== this.conf.ws_path || this.closing) {
        socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      this.wss!.handleUpgrade(req, socket, head, (client) => void this.serveWebsocket(client));
    };
    if (this.conf.address) {
      const options = await ownServerOptions(this.conf, this.timeoutMs, (req, res) => this.route(req, res), upgrade, this.log);
      this.listener = new HttpListener(options);
      await this.listener.start();
      const a = this.listener.address();
      this.log.info(`Serving messages through HTTP${options.tls ? 'S' : ''} GET request at: ${a.host}:${a.port}${this.conf.path}`);
      return;
    }
    const service = this.ctx.service;
    if (!service) {
      throw new SvcError(
        ErrorCode.ConfigLint,
        'http_server: the service-wide HTTP server is disabled (http.enabled: false): enable it, or give this output an address',
      );
    }
    if (this.conf.path) {
      service.mount(this.conf.path, (req, res) => this.route(req, res), 'Get a message batch from the stream.');
      this.mounted.push(this.conf.path);
    }
    if (this.conf.stream_path) {
      service.mount(this.conf.stream_path, (req, res) => this.route(req, res), 'Stream messages from the stream.');
      this.mounted.push(this.conf.stream_path);
    }
    if (this.conf.ws_path) {
      service.mount(this.conf.ws_path, (_req, res) => plain(res, 400, 'websocket upgrade required'), 'Receive messages over a websocket.', upgrade);
      this.mounted.push(this.conf.ws_path);
    }
  }

  /** Offers the batch to the clients; resolves once one took it and it was written. */
  write(batch: Batch): Promise<void> {
    if (this.closing) return Promise.reject(new Error('http_server: the output is closing'));
    return new Promise<void>((resolve, reject) => {
      const offer: Offer = { batch, taken: false, settle: (err) => (err ? reject(err) : resolve()) };
      const taker = this.takers.shift();
      if (taker) {
        offer.taken = true;
        taker(offer);
      } else this.offers.push(offer);
    });
  }

  /** The next batch offered, waiting up to `ms` (undefined: forever) or until `gone` fires. */
  private take(ms: number | undefined, gone: (stop: () => void) => void): Promise<Offer | undefined> {
    const o = this.offers.shift();
    if (o) {
      o.taken = true;
      return Promise.resolve(o);
    }
    if (this.closing) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const taker = (offer: Offer | undefined) => {
        clearTimeout(timer);
        resolve(offer);
      };
      const stop = () => {
        const i = this.takers.indexOf(taker);
        if (i >= 0) this.takers.splice(i, 1);
        taker(undefined);
      };
      if (ms !== undefined) timer = setTimeout(stop, ms);
      gone(stop);
      this.takers.push(taker);
    });
  }

  private route(req: HttpRequest, res: HttpResponse): void {
    const path = pathOf(req.url);
    if (this.closing) return plain(res, 503, 'Server closed');
    if (path === this.conf.ws_path) return plain(res, 400, 'websocket upgrade required');
    if (path !== this.conf.path && path !== this.conf.stream_path) return plain(res, 404, 'Not Found');
    if (!this.verbs.has((req.method ?? 'GET').toUpperCase())) return plain(res, 405, 'Incorrect method');
    if (path === this.conf.path) void this.serveOne(req, res);
    else void this.serveStream(req, res);
  }

  private async serveOne(req: HttpRequest, res: HttpResponse): Promise<void> {
    const offer = await this.take(this.timeoutMs, (stop) => req.once('close', stop));
    if (!offer) {
      if (!res.headersSent && !res.writableEnded) plain(res, this.closing ? 503 : 408, this.closing ? 'Server closed' : 'Timed out waiting for message');
      return;
    }
    const { type, body } = batchBody(offer.batch);
    res.setHeader('Content-Type', type);
    res.setHeader('Content-Length', body.length);
    (res as { end(b: Buffer, cb: (err?: Error | null) => void): void }).end(body, (err) =>
      offer.settle(err ? new Error(`http_server: writing to a client: ${errorMessage(err)}`) : undefined),
    );
    res.once('close', () => {
      if (!res.writableFinished) offer.settle(new Error('http_server: the client went away before the batch was written'));
    });
  }

  private async serveStream(req: HttpRequest, res: HttpResponse): Promise<void> {
    res.setHeader('Content-Type', 'application/octet-stream');
    (res as { flushHeaders?(): void }).flushHeaders?.();
    let open = true;
    req.once('close', () => (open = false));
    const write = (chunk: Buffer) =>
      new Promise<Error | undefined>((resolve) =>
        (res as { write(b: Buffer, cb: (err?: Error | null) => void): boolean }).write(chunk, (err) => resolve(err ?? undefined)),
      );
    while (open && !this.closing) {
      const offer = await this.take(undefined, (stop) => req.once('close', stop));
      if (!offer) break;
      const err = await write(streamChunk(offer.batch));
      offer.settle(err ? new Error(`http_server: streaming to a client: ${errorMessage(err)}`) : undefined);
      if (err) break;
    }
    if (!res.writableEnded) res.end();
  }

  private async serveWebsocket(client: import('ws').WebSocket): Promise<void> {
    let open = true;
    client.on('error', () => undefined);
    while (open && !this.closing && client.readyState === client.OPEN) {
      const offer = await this.take(undefined, (stop) =>
        client.once('close', () => {
          open = false;
          stop();
        }),
      );
      if (!offer) break;
      // Frames go out in order: the last one's callback says every one was written (or why not).
      const b = offer.batch;
      for (let i = 0; i < b.length - 1; i++) client.send(b[i]!.content, { binary: true });
      const failed = await new Promise<Error | undefined>((resolve) =>
        client.send(b[b.length - 1]!.content, { binary: true }, (err) => resolve(err ?? undefined)),
      );
      offer.settle(failed ? new Error(`http_server: sending on a websocket: ${errorMessage(failed)}`) : undefined);
      if (failed) break;
    }
    client.close();
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const t of this.takers.splice(0)) t(undefined);
    for (const o of this.offers.splice(0)) o.settle(new Error('http_server: the output closed before a client took the batch'));
    for (const c of this.wss?.clients ?? []) c.close();
    const service = this.ctx.service;
    for (const p of this.mounted.splice(0)) service?.unmount(p);
    await this.listener?.close();
  }
}

/** What `stream_path` writes for a batch, as Benthos: its messages joined by newlines (and a newline after them when there are several), then a newline. */
function streamChunk(batch: Batch): Buffer {
  let size = batch.length === 1 ? 1 : batch.length + 1;
  for (const m of batch) size += m.byteLength;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = 0; i < batch.length; i++) {
    if (i > 0) out[at++] = 10;
    at += batch[i]!.copyContentTo(out, at);
  }
  if (batch.length > 1) out[at++] = 10;
  out[at] = 10;
  return out;
}

function pathOf(url: string | undefined): string {
  const u = url ?? '/';
  const q = u.indexOf('?');
  return q < 0 ? u : u.slice(0, q);
}

function plain(res: HttpResponse, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end(`${text}\n`);
}

/** One message as it is; several as a multipart body (RFC 1341), each part application/octet-stream, as Go's mime/multipart writes it. */
function batchBody(batch: Batch): { type: string; body: Buffer } {
  if (batch.length === 1) return { type: 'application/octet-stream', body: batch[0]!.content };
  const boundary = randomBytes(30).toString('hex');
  const parts: Buffer[] = [];
  batch.forEach((m, i) => {
    parts.push(Buffer.from(`${i === 0 ? '' : '\r\n'}--${boundary}\r\nContent-Type: application/octet-stream\r\n\r\n`), m.content);
  });
  parts.push(Buffer.from(`\r\n--${boundary}--\r\n`));
  return { type: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(parts) };
}

registerOutput('http_server', {
  summary:
    'Sets up an HTTP server that will send messages over HTTP(S) GET requests. HTTP 2.0 is supported when using TLS, which is enabled when key and cert files are specified.',
  description: [
    'If the `address` config field is left blank the service-wide HTTP server will be used. Three endpoints are',
    'registered at `path`, `stream_path` and `ws_path`: one message batch per request, a continuous stream of line',
    'delimited messages, or a websocket of messages (a binary frame each).',
    '',
    'When messages are batched the `path` endpoint encodes the batch as a multipart body (RFC 1341). A batch is',
    'acknowledged once it was written to a client; a client that goes away mid-write fails it, and it is offered to',
    'the next client. A batch goes to one client only.',
  ].join('\n'),
  config: spec,
  examples: [
    `output:
  http_server:
    address: 0.0.0.0:8080
    path: /get
    stream_path: /get/stream
    ws_path: /get/ws`,
  ],
  factory: async (conf, ctx) => {
    if (conf.cors.enabled) throw new SvcError(ErrorCode.ConfigLint, 'http_server output: cors is not implemented on this output: remove cors.enabled');
    if (!conf.address && (conf.cert_file || conf.key_file)) {
      throw new SvcError(ErrorCode.ConfigLint, 'http_server output: cert_file and key_file are only valid with a custom address');
    }
    await loadWs();
    return new HttpServerOutput(conf, ctx);
  },
});
