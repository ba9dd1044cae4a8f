/**
 * The `websocket` output (Benthos'): sends each message as a binary frame to a websocket server. A
 * write resolves once every frame of the batch was handed to the socket; a closed connection is a
 * NotConnectedError, and the runtime connects again and writes the batch again.
 */
import { NotConnectedError, errorMessage, f, registerOutput, type Batch, type Infer, type Logger, type Output } from '@svc/engine';
import type { WebSocket } from 'ws';
import { loadWs } from './lazy-deps.js';
import type { RequestAuth } from './outgoing-request.js';
import { dialWebsocket, websocketAuth, websocketClientFields } from './websocket-client.js';

const spec = f.object(websocketClientFields);
type Conf = Infer<typeof spec>;

class WebsocketOutput implements Output {
  private client: WebSocket | undefined;

  constructor(
    private readonly conf: Conf,
    private readonly auth: RequestAuth[],
    private readonly log: Logger,
  ) {}

  async connect(): Promise<void> {
    if (this.client) return;
    let client: WebSocket;
    try {
      client = await dialWebsocket(this.conf, this.auth);
    } catch (err) {
      throw new NotConnectedError(`websocket: cannot connect to ${this.conf.url}: ${errorMessage(err)}`, { cause: err });
    }
    client.on('close', () => {
      if (this.client === client) this.client = undefined;
    });
    client.on('error', (err) => this.log.debug(`websocket: ${err.message}`));
    this.client = client;
    this.log.info(`Sending websocket messages to: ${this.conf.url}`);
  }

  async write(batch: Batch): Promise<void> {
    const client = this.client;
    if (!client || client.readyState !== client.OPEN) throw new NotConnectedError(`websocket: not connected to ${this.conf.url}`);
    await Promise.all(
      batch.map(
        (m) =>
          new Promise<void>((resolve, reject) =>
            client.send(m.content, { binary: true }, (err) =>
              err ? reject(new NotConnectedError(`websocket: sending to ${this.conf.url}: ${err.message}`)) : resolve(),
            ),
          ),
      ),
    );
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (!c) return;
    await new Promise<void>((resolve) => {
      c.once('close', () => resolve());
      c.close();
      setTimeout(() => {
        c.terminate();
        resolve();
      }, 2_000).unref();
    });
  }
}

registerOutput('websocket', {
  summary: 'Sends messages to an HTTP server via a websocket connection.',
  description: 'Each message is a binary frame. A batch is acknowledged once its frames were handed to the connection.',
  config: spec,
  examples: [
    `output:
  websocket:
    url: ws://localhost:8080/ingest
    basic_auth:
      enabled: true
      username: svc
      password: \${WS_PASSWORD}`,
  ],
  factory: async (conf, ctx) => {
    await loadWs();
    return new WebsocketOutput(conf, websocketAuth(conf, 'websocket output'), ctx.logger);
  },
});
