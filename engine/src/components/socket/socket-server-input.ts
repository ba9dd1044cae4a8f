/**
 * The `socket_server` input (Benthos'): listens on tcp, tls, unix or udp and splits what each
 * connection sends into messages with a scanner (`lines` by default); UDP datagrams are one stream
 * through the scanner, as in Benthos. A connection waits (its socket is not read) while the stream
 * is busy: back-pressure reaches the sender. Sockets have no acknowledgement, so what was received
 * and not yet delivered is lost if the process crashes, and batches still queued when the input
 * closes are dropped, as Benthos drops them.
 *
 * The bound address (useful with port 0) is written to the `address_cache` cache, under the
 * component's label suffixed `_address` (`socket_server_address` without a label).
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import { createServer as createTlsServer } from 'node:tls';
import { ErrorCode, SvcError, eachMessage, errorMessage, f, registerInput, type ComponentContext, type Infer, type Logger } from '@svc/engine';
import { PushInput } from '@svc/engine/kit';
import { parseScanner, scannerField, type Scanner } from '../io/scanner.js';
import { socketTarget } from './socket-input.js';

/** Node's core has no unix datagram socket, and no npm package for one is a dependency here. */
const UNIXGRAM_REFUSED =
  'network unixgram is not implemented here (Node has no unix datagram sockets in core, and no package for them is a dependency of svc): use unix (a stream socket), tcp, tls or udp';

const spec = f.object({
  network: f
    .enum(['unix', 'tcp', 'udp', 'tls', 'unixgram'])
    .validate((n) => (n === 'unixgram' ? UNIXGRAM_REFUSED : undefined))
    .describe('A network type to accept (`unixgram` is refused at lint: Node has no unix datagram sockets).'),
  address: f.string().describe('The address to listen from (`/tmp/benthos.sock`, `0.0.0.0:6000`).'),
  address_cache: f
    .string()
    .optional()
    .describe(
      'An optional cache within which this input should write its bound address once known, under the label of the component suffixed with `_address` (`socket_server_address` without a label).',
    ),
  tls: f
    .object({
      cert_file: f.string().optional().describe('PEM encoded certificate for use with TLS.'),
      key_file: f.string().optional().describe('PEM encoded private key for use with TLS.'),
      self_signed: f.bool().default(false).describe('Whether to generate self signed certificates (not implemented here: refused).'),
      client_auth: f
        .enum(['no', 'request', 'require_any', 'require_valid', 'verify_if_given'])
        .default('no')
        .describe('How client authentication is handled (only `no` here; the others are refused).'),
    })
    .advanced()
    .describe('TLS specific configuration, valid when the `network` is set to `tls`.'),
  auto_replay_nacks: f.bool().default(true).describe('Whether a rejected batch is delivered again (true) or dropped (false).'),
  scanner: scannerField().default({ lines: {} }).describe('The scanner by which the stream of bytes consumed will be broken out into individual messages.'),
});
type Conf = Infer<typeof spec>;

/** Batches waiting for the stream before a connection stops being read. */
const MAX_QUEUED = 64;

class SocketServerInput extends PushInput {
  private readonly scanner: Scanner;
  private readonly log: Logger;
  private server: Server | undefined;
  private udp: UdpSocket | undefined;
  private readonly sockets = new Set<Socket>();
  private listening = false;

  constructor(
    private readonly conf: Conf,
    private readonly ctx: ComponentContext,
  ) {
    super(MAX_QUEUED);
    this.scanner = parseScanner(conf.scanner);
    this.log = ctx.logger;
  }

  async connect(): Promise<void> {
    if (this.listening || this.closing) return;
    const bound = this.conf.network === 'udp' ? await this.listenUdp() : await this.listenStream();
    this.listening = true;
    this.log.info(`Receiving ${this.conf.network} socket messages from address ${bound}`);
    if (this.conf.address_cache) {
      const key = this.ctx.label && this.ctx.label !== this.ctx.type ? `${this.ctx.label}_address` : 'socket_server_address';
      await this.ctx.resources.get('cache', this.conf.address_cache).set(key, Buffer.from(bound));
    }
  }

  private async listenStream(): Promise<string> {
    const onConnection = (s: Socket) => void this.consume(s, s);
    let server: Server;
    if (this.conf.network === 'tls') {
      const t = this.conf.tls;
      server = createTlsServer({ cert: readFileSync(t.cert_file!), key: readFileSync(t.key_file!) }, onConnection);
    } else {
      server = createServer(onConnection);
    }
    const target = socketTarget(this.conf.network, this.conf.address);
    if ('path' in target) rmSync(target.path, { force: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(target, () => {
        server.off('error', reject);
        resolve();
      });
    }).catch((err: unknown) => {
      throw new SvcError(ErrorCode.NotConnected, `socket_server: cannot listen on ${this.conf.network} ${this.conf.address}: ${errorMessage(err)}`, {
        cause: err,
      });
    });
    server.on('error', (err) => this.log.error(`socket_server: ${errorMessage(err)}`));
    this.server = server;
    const a = server.address();
    return typeof a === 'string' ? a : `${(a as AddressInfo).address}:${(a as AddressInfo).port}`;
  }

  private async listenUdp(): Promise<string> {
    const target = socketTarget('udp', this.conf.address) as { host: string; port: number };
    const udp = createSocket(target.host.includes(':') ? 'udp6' : 'udp4');
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(target.port, target.host, () => {
        udp.off('error', reject);
        resolve();
      });
    }).catch((err: unknown) => {
      throw new SvcError(ErrorCode.NotConnected, `socket_server: cannot listen on udp ${this.conf.address}: ${errorMessage(err)}`, { cause: err });
    });
    // Every datagram goes into one stream, read by one scanner, as Benthos reads the packet connection.
    const stream = new PassThrough();
    udp.on('message', (msg) => stream.write(msg));
    udp.on('error', (err) => this.log.error(`socket_server: ${errorMessage(err)}`));
    this.udp = udp;
    void this.consume(stream, undefined);
    const a = udp.address();
    return `${a.address}:${a.port}`;
  }

  /** Pushes the batches a connection's scanner yields, waiting for room (the socket is not read meanwhile). */
  private async consume(stream: Readable, socket: Socket | undefined): Promise<void> {
    if (socket) {
      this.sockets.add(socket);
      socket.on('error', (err) => this.log.debug(`socket_server: connection dropped: ${errorMessage(err)}`));
    }
    try {
      for await (const batch of this.scanner(stream, this.conf.address)) {
        if (this.closing) break;
        // Each message a batch of its own, as Benthos' scanners give them.
        await this.push({ tx: { batch, ack: () => undefined, parts: eachMessage(batch.length) } });
      }
    } catch (err) {
      if (!this.closing) this.log.error(`socket_server: connection dropped due to: ${errorMessage(err)}`);
    } finally {
      if (socket) {
        this.sockets.delete(socket);
        socket.destroy();
      }
    }
  }

  protected override onClose(): void {
    this.server?.close();
    for (const s of this.sockets) s.destroy();
    this.udp?.close();
  }
}

registerInput('socket_server', {
  summary: 'Creates a server that receives a stream of messages over a TCP, UDP or Unix socket.',
  description: [
    'Each connection is split into messages by `scanner` (`lines` by default); UDP datagrams form one stream. The',
    'bound address can be written to a cache (`address_cache`). Sockets have no acknowledgement: messages received',
    'and not yet delivered are lost if the process crashes.',
  ].join('\n'),
  config: spec,
  examples: [
    `input:
  socket_server:
    network: tcp
    address: 0.0.0.0:6000
    scanner:
      lines: {}`,
  ],
  factory: (conf, ctx) => {
    // A component built without lint (buildComponent, as the tests do) is refused too.
    if (conf.network === 'unixgram') throw new SvcError(ErrorCode.ConfigLint, `socket_server: ${UNIXGRAM_REFUSED}`);
    if (conf.network === 'tls') {
      if (conf.tls.self_signed)
        throw new SvcError(ErrorCode.ConfigLint, 'socket_server: tls.self_signed is not implemented here: give tls.cert_file and tls.key_file');
      if (conf.tls.client_auth !== 'no')
        throw new SvcError(ErrorCode.ConfigLint, `socket_server: tls.client_auth ${conf.tls.client_auth} is not implemented here: use no`);
      if (!conf.tls.cert_file || !conf.tls.key_file)
        throw new SvcError(ErrorCode.ConfigLint, 'socket_server: network tls needs tls.cert_file and tls.key_file');
    }
    return new SocketServerInput(conf, ctx);
  },
});
