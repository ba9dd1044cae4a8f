/**
 * The `socket` output (Benthos'): connects to a tcp, unix or udp server and writes each message
 * followed by the codec's delimiter (`lines`: a newline). A batch is one write; it resolves once
 * the bytes were handed to the kernel (TCP offers no further acknowledgement). A broken connection
 * is a NotConnectedError: the runtime connects again and writes the batch again.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import {
  ErrorCode,
  NotConnectedError,
  SvcError,
  errorMessage,
  f,
  registerOutput,
  tlsConnectOptions,
  tlsSpec,
  type Batch,
  type Infer,
  type Logger,
  type Output,
} from '@svc/engine';
import { socketTarget } from './socket-input.js';

const spec = f.object({
  network: f.enum(['unix', 'tcp', 'udp']).describe('A network type to connect as.'),
  address: f.string().describe('The address to connect to (`/tmp/benthos.sock`, `127.0.0.1:6000`).'),
  codec: f
    .string()
    .default('lines')
    .advanced()
    .describe('How messages are delimited: `lines` (a newline after each), `delim:X` (X after each) or `all-bytes` (nothing).'),
  tls: tlsSpec.svcOnly().describe('Custom TLS settings; with `enabled` the connection is TLS (tcp only).'),
});
type Conf = Infer<typeof spec>;

function suffixOf(codec: string): Buffer {
  if (codec === 'lines') return Buffer.from('\n');
  if (codec === 'all-bytes') return Buffer.alloc(0);
  if (codec.startsWith('delim:') && codec.length > 6) return Buffer.from(codec.slice(6));
  throw new SvcError(ErrorCode.ConfigLint, `socket: codec ${codec} is not implemented here: use lines, delim:X or all-bytes`);
}

class SocketOutput implements Output {
  private readonly suffix: Buffer;
  private stream: Socket | undefined;
  private udp: UdpSocket | undefined;

  constructor(
    private readonly conf: Conf,
    private readonly log: Logger,
  ) {
    this.suffix = suffixOf(conf.codec);
  }

  async connect(): Promise<void> {
    if (this.stream || this.udp) return;
    const target = socketTarget(this.conf.network, this.conf.address);
    try {
      if (this.conf.network === 'udp') {
        const t = target as { host: string; port: number };
        const udp = createSocket(t.host.includes(':') ? 'udp6' : 'udp4');
        await new Promise<void>((resolve, reject) => {
          udp.once('error', reject);
          udp.connect(t.port, t.host, () => {
            udp.off('error', reject);
            resolve();
          });
        });
        udp.on('error', (err) => this.lost(err));
        this.udp = udp;
      } else {
        const tls = this.conf.tls.enabled ? tlsConnectOptions(this.conf.tls) : undefined;
        const s = await new Promise<Socket>((resolve, reject) => {
          const c = tls ? tlsConnect({ ...tls, ...target, ...('host' in target ? { servername: target.host } : {}) }) : netConnect(target);
          c.once(tls ? 'secureConnect' : 'connect', () => {
            c.off('error', reject);
            resolve(c);
          });
          c.once('error', reject);
        });
        s.on('error', (err) => this.lost(err));
        s.on('close', () => {
          if (this.stream === s) this.stream = undefined;
        });
        this.stream = s;
      }
    } catch (err) {
      throw new NotConnectedError(`socket: cannot connect to ${this.conf.network} ${this.conf.address}: ${errorMessage(err)}`, { cause: err });
    }
    this.log.info(`Sending messages over a ${this.conf.network} socket to ${this.conf.address}`);
  }

  private lost(err: unknown): void {
    this.log.debug(`socket: connection to ${this.conf.address} lost: ${errorMessage(err)}`);
    this.stream?.destroy();
    this.stream = undefined;
    this.udp?.close();
    this.udp = undefined;
  }

  async write(batch: Batch): Promise<void> {
    if (this.udp) {
      const udp = this.udp;
      // A datagram per message (its delimiter in the same datagram).
      for (const m of batch) {
        await new Promise<void>((resolve, reject) => udp.send(Buffer.concat([m.content, this.suffix]), (err) => (err ? reject(err) : resolve())));
      }
      return;
    }
    const s = this.stream;
    if (!s || s.destroyed) throw new NotConnectedError(`socket: not connected to ${this.conf.address}`);
    const parts: Buffer[] = [];
    for (const m of batch) parts.push(m.content, this.suffix);
    await new Promise<void>((resolve, reject) =>
      s.write(Buffer.concat(parts), (err) =>
        err ? reject(new NotConnectedError(`socket: writing to ${this.conf.address}: ${errorMessage(err)}`)) : resolve(),
      ),
    );
  }

  async close(): Promise<void> {
    const s = this.stream;
    this.stream = undefined;
    if (s) await new Promise<void>((resolve) => s.end(resolve));
    this.udp?.close();
    this.udp = undefined;
  }
}

registerOutput('socket', {
  summary: 'Connects to a (tcp/udp/unix) server and sends a continuous stream of data, dividing messages according to the specified codec.',
  description:
    'A batch is written at once and acknowledged when the bytes were handed to the kernel; a broken connection is re-established and the batch written again. Over UDP each message is one datagram.',
  config: spec,
  examples: [
    `output:
  socket:
    network: tcp
    address: 127.0.0.1:6000
    codec: lines`,
  ],
  factory: (conf, ctx) => {
    suffixOf(conf.codec);
    return new SocketOutput(conf, ctx.logger);
  },
});
