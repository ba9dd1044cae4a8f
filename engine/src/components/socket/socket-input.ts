/**
 * The `socket` input (Benthos'): connects to a tcp or unix socket (TLS with `tls.enabled`) and
 * splits the bytes it receives into messages with a scanner (`lines` by default). Plain sockets
 * have no acknowledgement: what was received is in the process, and a crash loses what was not
 * yet delivered. When the server closes the connection the input connects again (with the
 * runtime's back-off), as Benthos does; `open_message_mapping` is sent first on each connection.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import {
  END_OF_INPUT,
  Message,
  NotConnectedError,
  compileMapping,
  eachMessage,
  errorMessage,
  f,
  registerInput,
  tlsConnectOptions,
  tlsSpec,
  type Batch,
  type EndOfInput,
  type Infer,
  type Input,
  type Logger,
  type Transaction,
} from '@svc/engine';
import { parseScanner, scannerField, type Scanner } from '../io/scanner.js';

const spec = f.object({
  network: f.enum(['unix', 'tcp']).describe('A network type to assume (unix|tcp).'),
  address: f.string().describe('The address to connect to (`/tmp/benthos.sock`, `127.0.0.1:6000`).'),
  auto_replay_nacks: f.bool().default(true).describe('Whether a rejected batch is delivered again (true) or dropped (false).'),
  open_message_mapping: f
    .mapping()
    .optional()
    .describe('An optional mapping which should evaluate to a string which will be sent upstream before the downstream data flow starts.'),
  tls: tlsSpec.svcOnly().describe('Custom TLS settings; with `enabled` the connection is TLS.'),
  scanner: scannerField().default({ lines: {} }).describe('The scanner by which the stream of bytes consumed will be broken out into individual messages.'),
});
type Conf = Infer<typeof spec>;

/** `host:port` or a unix path as node:net connect options. */
export function socketTarget(network: string, address: string): { path: string } | { host: string; port: number } {
  if (network === 'unix' || network === 'unixgram') return { path: address };
  const i = address.lastIndexOf(':');
  const host = address.slice(0, i).replace(/^\[(.*)\]$/, '$1') || '127.0.0.1';
  const port = Number(address.slice(i + 1));
  if (i < 0 || !Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`address "${address}" is not host:port`);
  return { host, port };
}

class SocketInput implements Input {
  private readonly scanner: Scanner;
  private socket: Socket | undefined;
  private batches: AsyncGenerator<Batch> | undefined;
  private closed = false;

  constructor(
    private readonly conf: Conf,
    private readonly log: Logger,
  ) {
    this.scanner = parseScanner(conf.scanner);
  }

  async connect(): Promise<void> {
    if (this.batches || this.closed) return;
    const target = socketTarget(this.conf.network, this.conf.address);
    const tls = this.conf.tls.enabled ? tlsConnectOptions(this.conf.tls) : undefined;
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = tls ? tlsConnect({ ...tls, ...target, ...('host' in target ? { servername: target.host } : {}) }) : netConnect(target);
      s.once(tls ? 'secureConnect' : 'connect', () => {
        s.off('error', reject);
        resolve(s);
      });
      s.once('error', reject);
    }).catch((err: unknown) => {
      throw new NotConnectedError(`socket: cannot connect to ${this.conf.network} ${this.conf.address}: ${errorMessage(err)}`, { cause: err });
    });
    socket.on('error', (err) => this.log.debug(`socket: ${errorMessage(err)}`));
    if (this.conf.open_message_mapping) {
      const root = compileMapping(this.conf.open_message_mapping).exec(new Message(''), { batch: [], index: 0 }).root;
      if (typeof root !== 'string' || root === '') {
        socket.destroy();
        throw new Error(`socket: open message mapping returned ${typeof root === 'string' ? 'empty string' : `non-string result: ${typeof root}`}`);
      }
      socket.write(root);
    }
    this.socket = socket;
    this.batches = this.scanner(socket, this.conf.address);
    this.log.info(`Consuming from a ${this.conf.network} socket at ${this.conf.address}`);
  }

  async read(): Promise<Transaction | EndOfInput> {
    if (this.closed) return END_OF_INPUT;
    const batches = this.batches;
    if (!batches) throw new NotConnectedError('socket: not connected');
    let r: IteratorResult<Batch>;
    try {
      r = await batches.next();
    } catch (err) {
      this.drop();
      if (this.closed) return END_OF_INPUT;
      throw new NotConnectedError(`socket: connection to ${this.conf.address} failed: ${errorMessage(err)}`, { cause: err });
    }
    if (r.done) {
      this.drop();
      if (this.closed) return END_OF_INPUT;
      throw new NotConnectedError(`socket: ${this.conf.address} closed the connection`);
    }
    // Each message a batch of its own, as Benthos' scanners give them.
    return { batch: r.value, ack: () => undefined, parts: eachMessage(r.value.length) };
  }

  private drop(): void {
    this.socket?.destroy();
    this.socket = undefined;
    this.batches = undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.drop();
  }
}

registerInput('socket', {
  summary: 'Connects to a tcp or unix socket and consumes a continuous stream of messages.',
  description: [
    'The bytes received are split into messages by `scanner` (`lines` by default). When the server closes the',
    'connection the input connects again. Sockets have no acknowledgement: messages received and not yet delivered',
    'are lost if the process crashes.',
  ].join('\n'),
  config: spec,
  examples: [
    `input:
  socket:
    network: tcp
    address: 127.0.0.1:6000
    scanner:
      lines: {}`,
  ],
  factory: (conf, ctx) => new SocketInput(conf, ctx.logger),
});
