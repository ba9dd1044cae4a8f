/**
 * The `ws_path` endpoint of an http_server input: each payload received on a websocket passes
 * through the pipeline as a batch of one; its sync responses go back as text frames. A
 * connection handles one payload at a time (the socket is paused meanwhile, so a fast client
 * is held back), and a nacked payload is sent again after a back-off, as Benthos does.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { ws } from './lazy-deps.js';
import { Message, ResultStore, errorMessage, type Answer, type Logger, type MetaValue, type RateLimit, type Transaction } from '@svc/engine';
import { Backoff, sleep } from '@svc/engine/kit';
import { bodyBuffer } from './sync-response.js';
import type { RoutePattern } from '@svc/engine/kit';
import { requestMetadata, splitTarget } from './request-metadata.js';

export interface WebsocketOptions {
  welcome: string;
  rateLimitMessage: string;
  maxPayload: number;
  rateLimit: RateLimit | undefined;
  log: Logger;
  /** Hands a transaction to the input's queue. */
  submit(tx: Transaction): void;
  isClosing(): boolean;
}

export class WebsocketEndpoint {
  private readonly wss: WebSocketServer;
  private readonly stopping = new AbortController();

  constructor(
    readonly pattern: RoutePattern,
    private readonly opts: WebsocketOptions,
  ) {
    this.wss = new (ws().WebSocketServer)({ noServer: true, maxPayload: opts.maxPayload, clientTracking: true });
  }

  /** Takes an upgrade request: answers 404 off `ws_path` and 503 while closing. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const { path, query } = splitTarget(req.url);
    const params = this.pattern.match(path);
    if (!params || this.opts.isClosing()) {
      const status = params ? '503 Service Unavailable' : '404 Not Found';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const meta = requestMetadata({ method: 'GET', path, query, headers: req.headers, remoteAddress: undefined, socket: undefined }, params, false);
      void this.serve(ws, meta);
    });
  }

  private async serve(ws: WebSocket, meta: Map<string, MetaValue>): Promise<void> {
    const log = this.opts.log;
    if (this.opts.welcome)
      ws.send(Buffer.from(this.opts.welcome), { binary: true }, (err) => err && log.error(`Failed to send welcome message: ${err.message}`));
    const inbox: Buffer[] = [];
    let wake: (() => void) | undefined;
    let open = true;
    ws.on('message', (data: RawData) => {
      inbox.push(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer));
      ws.pause();
      wake?.();
    });
    ws.on('close', () => {
      open = false;
      wake?.();
    });
    ws.on('error', (err) => log.debug(`Websocket error: ${err.message}`));
    const backoff = new Backoff(100, 5_000);
    while (open && !this.opts.isClosing()) {
      const payload = inbox.shift();
      if (!payload) {
        ws.resume();
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
        continue;
      }
      if (this.opts.rateLimit && (await this.opts.rateLimit.access()) > 0) {
        if (this.opts.rateLimitMessage) ws.send(Buffer.from(this.opts.rateLimitMessage), { binary: true });
        continue;
      }
      // Delivered at least once: a nacked payload is sent again until it is acked or the socket goes.
      for (;;) {
        const msg = Message.sharingMeta(payload, meta);
        const store = new ResultStore<Answer>([msg]);
        const err = await new Promise<Error | undefined>((resolve) => this.opts.submit({ batch: [msg], ack: (e?: Error) => resolve(e) }));
        if (!err) {
          backoff.reset();
          const reply = store.results()[0];
          if (reply && ws.readyState === ws.OPEN) {
            ws.send(bodyBuffer(reply.body), { binary: false });
          }
          break;
        }
        log.warn(`Websocket payload rejected, sending it again: ${errorMessage(err)}`);
        if (!open || this.opts.isClosing() || !(await sleep(backoff.next(), this.stopping.signal))) break;
      }
    }
    if (ws.readyState === ws.OPEN) ws.close(1001, 'server closing');
  }

  close(): void {
    this.stopping.abort();
    for (const ws of this.wss.clients) ws.close(1001, 'server closing');
    this.wss.close();
  }
}
