/**
 * The `websocket` input (Benthos'): connects to a websocket server, sends `open_message` first,
 * and makes each frame it receives a message. Frames have no acknowledgement: what was received
 * and not yet delivered is lost if the process crashes. When the connection closes the input
 * connects again (with the runtime's back-off), up to `connection.max_retries` failed attempts in
 * a row (absent or negative: forever). Frames that arrive while the pipeline is busy wait here;
 * beyond 1,000 the socket is paused, which holds the server back.
 */
import {
  END_OF_INPUT,
  InputFailedError,
  Message,
  NotConnectedError,
  f,
  registerInput,
  type EndOfInput,
  type Infer,
  type Input,
  type Logger,
  type Transaction,
} from '@svc/engine';
import type { RawData, WebSocket } from 'ws';
import { loadWs } from './lazy-deps.js';
import type { RequestAuth } from './outgoing-request.js';
import { dialWebsocket, websocketAuth, websocketClientFields } from './websocket-client.js';

const spec = f.object({
  url: websocketClientFields.url,
  proxy_url: websocketClientFields.proxy_url,
  open_message: f.string().optional().describe('An optional message to send to the server upon connection.'),
  open_message_type: f.enum(['binary', 'text']).default('binary').describe('An optional flag to indicate the data type of open_message.'),
  auto_replay_nacks: f.bool().default(true).describe('Whether a rejected batch is delivered again (true) or dropped (false).'),
  tls: websocketClientFields.tls,
  connection: f
    .object({
      max_retries: f
        .int()
        .optional()
        .describe('The maximum number of failed connection attempts in a row before the input fails; absent or negative: retry forever.'),
    })
    .optional()
    .advanced()
    .describe('Customise how websocket connection attempts are made.'),
  oauth: websocketClientFields.oauth,
  basic_auth: websocketClientFields.basic_auth,
  jwt: websocketClientFields.jwt,
});
type Conf = Infer<typeof spec>;

/** Frames waiting for the pipeline before the socket is paused. */
const HIGH_WATER = 1_000;

class WebsocketInput implements Input {
  private client: WebSocket | undefined;
  private frames: Buffer[] = [];
  private wake: (() => void) | undefined;
  private closed = false;
  private failures = 0;

  constructor(
    private readonly conf: Conf,
    private readonly auth: RequestAuth[],
    private readonly log: Logger,
  ) {}

  async connect(): Promise<void> {
    if (this.client || this.closed) return;
    let client: WebSocket | undefined;
    const onMessage = (data: RawData) => {
      this.frames.push(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer));
      if (this.frames.length >= HIGH_WATER) client?.pause();
      this.wake?.();
    };
    try {
      client = await dialWebsocket(this.conf, this.auth, onMessage);
    } catch (err) {
      this.failures++;
      const max = this.conf.connection?.max_retries;
      if (max !== undefined && max >= 0 && this.failures > max) {
        throw new InputFailedError(`websocket: gave up after ${this.failures} failed connection attempts to ${this.conf.url}: ${(err as Error).message}`);
      }
      throw new NotConnectedError(`websocket: cannot connect to ${this.conf.url}: ${(err as Error).message}`, { cause: err });
    }
    this.failures = 0;
    if (this.conf.open_message) client.send(Buffer.from(this.conf.open_message), { binary: this.conf.open_message_type === 'binary' });
    const open = client;
    client.on('close', () => {
      if (this.client === open) this.client = undefined;
      this.wake?.();
    });
    client.on('error', (err) => this.log.debug(`websocket: ${err.message}`));
    this.client = client;
    this.log.info(`Receiving websocket messages from: ${this.conf.url}`);
  }

  async read(): Promise<Transaction | EndOfInput> {
    for (;;) {
      if (this.closed) return END_OF_INPUT;
      const frame = this.frames.shift();
      if (frame) {
        if (this.frames.length < HIGH_WATER / 2) this.client?.resume();
        return { batch: [new Message(frame)], ack: () => undefined };
      }
      if (!this.client) throw new NotConnectedError(`websocket: the connection to ${this.conf.url} closed`);
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    this.client?.close();
    this.client = undefined;
  }
}

registerInput('websocket', {
  summary: 'Connects to a websocket server and continuously receives messages.',
  description: [
    'It is possible to configure an `open_message`, which when set to a non-empty string will be sent to the websocket',
    'server each time a connection is first established. Each frame received is a message. When the connection closes',
    'the input connects again. Frames carry no acknowledgement: messages received and not yet delivered are lost if',
    'the process crashes.',
  ].join('\n'),
  config: spec,
  examples: [
    `input:
  websocket:
    url: ws://localhost:4195/get/ws
    open_message: '{"subscribe": "orders"}'
    open_message_type: text`,
  ],
  factory: async (conf, ctx) => {
    await loadWs();
    return new WebsocketInput(conf, websocketAuth(conf, 'websocket input'), ctx.logger);
  },
});
