/**
 * One MQTT 3.1.1 connection to a broker, spoken with `mqtt-packet` (the codec of the `mqtt` client):
 * CONNECT (clean session, keepalive, credentials, will), SUBSCRIBE, PUBLISH at QoS 0/1/2 both ways,
 * and the acknowledgements of each, sent when the owner says so.
 *
 * Why not the `mqtt` client itself: it acks a received message (PUBACK, or PUBREC for QoS 2) before
 * the pipeline has it, unless `handleMessage` (or, on MQTT 5 only, `customHandleAcks`) holds the
 * callback, and holding it stops the client from reading any further packet: one message in flight
 * at a time. Here a received message is acked only when `ack()` is called, acks go out in the order
 * the messages came (as the protocol asks), and reading goes on meanwhile, within the broker's
 * in-flight window.
 *
 * Over `ws://` / `wss://` URLs the same packets travel in binary websocket frames (subprotocol
 * `mqtt`, the URL's path as the handshake's), through the `ws` client's stream.
 *
 * The connection does not reconnect by itself (as Benthos' client, auto-reconnect off): once lost,
 * every publish waiting for its acknowledgement fails with NotConnectedError, `lost` resolves, and
 * the component dials a new session (the runtime's back-off).
 */
import { connect as netConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import type { IConnectPacket, IPublishPacket, Packet, QoS } from 'mqtt-packet';
import { NotConnectedError, errorMessage } from '@svc/engine';

const WEBSOCKET = /^wss?:$/i;

/** A TCP connection, over TLS for ssl:// (tls:, mqtts:). */
function tcp(url: URL, opts: SessionOptions): Duplex {
  const secure = /^(ssl|tls|mqtts):$/i.test(url.protocol);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port === '' ? (secure ? 8883 : 1883) : Number(url.port);
  const socket = secure ? tlsConnect({ ...opts.tls, host, port, servername: host }) : netConnect({ host, port });
  socket.setNoDelay(true);
  return socket;
}

/** A websocket to the URL (wss: over TLS) as a byte stream; writes wait for the handshake. */
function websocket(ws: Ws, url: URL, opts: SessionOptions): Duplex {
  const sock = new ws.WebSocket(url.href, ['mqtt'], {
    ...(url.protocol.toLowerCase() === 'wss:' ? opts.tls : {}),
    handshakeTimeout: opts.connectTimeoutMs,
    perMessageDeflate: false,
    followRedirects: false,
  });
  return ws.createWebSocketStream(sock);
}

export interface SessionOptions {
  /** `tcp://host:port`, `ssl://host:port` (tls: / mqtt: / mqtts: too) or `ws://host:port/path` (wss: too), tried in order. */
  readonly urls: readonly URL[];
  readonly clientId: string;
  readonly clean: boolean;
  readonly keepaliveSeconds: number;
  readonly connectTimeoutMs: number;
  readonly username?: string;
  readonly password?: string;
  readonly will?: { topic: string; payload: Buffer; qos: QoS; retain: boolean };
  /** TLS options for ssl:// and wss:// URLs. */
  readonly tls?: ConnectionOptions;
}

/** A message the broker sent; `ack()` answers it (QoS 1: PUBACK, QoS 2: PUBREC). */
export interface Received {
  readonly session: MqttSession;
  readonly packet: IPublishPacket;
  ack(): void;
}

interface Pending {
  resolve(): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout | undefined;
}

/** An incoming QoS 1/2 message whose acknowledgement waits for `ack()` (and for those before it). */
interface Incoming {
  readonly messageId: number;
  readonly qos: QoS;
  settled: boolean;
}

const CONNACK_REFUSED: Record<number, string> = {
  1: 'the broker does not speak MQTT 3.1.1',
  2: 'the broker rejected the client identifier (a persistent session, clean_session: false, needs a client_id)',
  3: 'the broker is unavailable',
  4: 'bad user name or password',
  5: 'not authorised',
};

type Ws = typeof import('ws');
type Codec = typeof import('mqtt-packet');

export class MqttSession {
  alive = true;
  reason = '';
  /** Resolves once the connection is gone (its reason in `reason`). */
  readonly lost: Promise<void>;
  private markLost!: () => void;
  private readonly pending = new Map<number, Pending>();
  private readonly incoming: Incoming[] = [];
  private nextId = 0;
  private pingOutstanding = false;
  /** Packets of this tick, and the callbacks waiting for them to be written. */
  private outgoing: Buffer[] = [];
  private written: ((err?: Error | null) => void)[] = [];
  /** Incoming QoS 1/2 messages from `head` on still owe their acknowledgement, in arrival order. */
  private head = 0;
  private releasing = false;
  private keepalive: NodeJS.Timeout | undefined;
  private subscribed: ((granted: number[]) => void) | undefined;

  private constructor(
    private readonly socket: Duplex,
    private readonly codec: Codec,
    private readonly onMessage: ((m: Received) => void) | undefined,
    readonly broker: string,
  ) {
    this.lost = new Promise((r) => (this.markLost = r));
  }

  /** Connects to the first URL that takes the connection; the broker's CONNACK accepted it. */
  static async open(opts: SessionOptions, onMessage?: (m: Received) => void): Promise<MqttSession> {
    const codec = await import('mqtt-packet');
    const ws = opts.urls.some((u) => WEBSOCKET.test(u.protocol)) ? await import('ws') : undefined;
    const failures: string[] = [];
    for (const url of opts.urls) {
      try {
        return await MqttSession.openOne(codec, ws, url, opts, onMessage);
      } catch (err) {
        failures.push(`${url.host}: ${errorMessage(err)}`);
      }
    }
    throw new NotConnectedError(`cannot connect: ${failures.join('; ')}`);
  }

  private static openOne(codec: Codec, ws: Ws | undefined, url: URL, opts: SessionOptions, onMessage?: (m: Received) => void): Promise<MqttSession> {
    const socket = ws && WEBSOCKET.test(url.protocol) ? websocket(ws, url, opts) : tcp(url, opts);
    const session = new MqttSession(socket, codec, onMessage, url.host);
    return new Promise<MqttSession>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`no CONNACK within connect_timeout (${opts.connectTimeoutMs} ms)`)), opts.connectTimeoutMs);
      const fail = (err: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(err);
      };
      const parser = codec.parser({ protocolVersion: 4 });
      let connected = false;
      parser.on('packet', (p: Packet) => {
        if (connected) return session.receive(p);
        if (p.cmd !== 'connack') return fail(new Error(`the broker answered CONNECT with ${p.cmd}`));
        const code = p.returnCode ?? 0;
        if (code !== 0) return fail(new Error(`the broker refused the connection: ${CONNACK_REFUSED[code] ?? `return code ${code}`}`));
        connected = true;
        clearTimeout(timer);
        session.startKeepalive(opts.keepaliveSeconds);
        resolve(session);
      });
      parser.on('error', (err: Error) => {
        if (!connected) fail(err);
        else session.drop(`the broker sent a malformed packet: ${err.message}`);
      });
      socket.on('data', (b: Buffer) => parser.parse(b));
      socket.on('error', (err) => (connected ? session.drop(err.message) : fail(err)));
      socket.on('close', () => (connected ? session.drop('the broker closed the connection') : fail(new Error('the connection closed before CONNACK'))));
      const packet: IConnectPacket = {
        cmd: 'connect',
        protocolId: 'MQTT',
        protocolVersion: 4,
        clientId: opts.clientId,
        clean: opts.clean,
        keepalive: opts.keepaliveSeconds,
        ...(opts.username ? { username: opts.username } : {}),
        ...(opts.password ? { password: Buffer.from(opts.password) } : {}),
        ...(opts.will ? { will: opts.will } : {}),
      };
      socket.write(codec.generate(packet));
    });
  }

  /** Subscribes to each topic filter at `qos`; the QoS the broker granted each. */
  async subscribe(topics: readonly string[], qos: QoS): Promise<number[]> {
    if (!this.alive) throw new NotConnectedError(this.reason);
    const messageId = this.allocate();
    const granted = new Promise<number[]>((resolve, reject) => {
      this.subscribed = resolve;
      void this.lost.then(() => reject(new NotConnectedError(this.reason)));
    });
    this.send({ cmd: 'subscribe', messageId, subscriptions: topics.map((topic) => ({ topic, qos })) });
    return granted;
  }

  /**
   * Publishes one message. Resolves when written (QoS 0), on PUBACK (QoS 1) or on PUBCOMP (QoS 2);
   * rejects after `timeoutMs` without it, or with NotConnectedError when the connection goes.
   */
  publish(topic: string, payload: Buffer, qos: QoS, retain: boolean, timeoutMs: number): Promise<void> {
    if (!this.alive) return Promise.reject(new NotConnectedError(this.reason));
    if (qos === 0) {
      return new Promise((resolve, reject) => {
        this.write({ cmd: 'publish', topic, payload, qos, retain, dup: false }, (err) => (err ? reject(new NotConnectedError(err.message)) : resolve()));
      });
    }
    const messageId = this.allocate();
    return new Promise((resolve, reject) => {
      const p: Pending = { resolve, reject, timer: undefined };
      if (timeoutMs > 0) {
        p.timer = setTimeout(() => {
          // The id stays taken until the broker answers or the connection goes: it may still come.
          p.resolve = p.reject = () => undefined;
          reject(new Error(`the broker did not acknowledge the message within write_timeout (${timeoutMs} ms)`));
        }, timeoutMs);
      }
      this.pending.set(messageId, p);
      this.send({ cmd: 'publish', messageId, topic, payload, qos, retain, dup: false });
    });
  }

  /** Stops reading from the broker (TCP back-pressure) until resume(). */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  /** Sends DISCONNECT (the broker then drops the will) and closes. */
  async end(): Promise<void> {
    if (this.alive) {
      // After what this tick still has to send (acks), in the same write.
      await new Promise<void>((r) => this.write({ cmd: 'disconnect' }, () => r()));
      this.socket.end();
    }
    this.drop('the connection was closed');
  }

  /** Closes without DISCONNECT: the broker publishes the will, as for a crash. */
  destroy(): void {
    this.socket.destroy();
    this.drop('the connection was closed');
  }

  private allocate(): number {
    for (let i = 0; i < 65535; i++) {
      this.nextId = (this.nextId % 65535) + 1;
      if (!this.pending.has(this.nextId)) return this.nextId;
    }
    throw new Error('65535 messages await an acknowledgement: no packet identifier is free');
  }

  private send(p: Packet): void {
    if (this.alive) this.write(p);
  }

  /** Writes a packet; the packets of one tick leave in one socket write, on the next tick. */
  private write(p: Packet, cb?: (err?: Error | null) => void): void {
    this.outgoing.push(this.codec.generate(p));
    if (cb) this.written.push(cb);
    if (this.outgoing.length === 1) process.nextTick(this.flush);
  }

  private readonly flush = (): void => {
    const chunks = this.outgoing;
    const cbs = this.written;
    this.outgoing = [];
    this.written = [];
    if (this.socket.destroyed) {
      const err = new NotConnectedError(`lost the connection to ${this.broker}: ${this.reason}`);
      for (const cb of cbs) cb(err);
      return;
    }
    const data = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    this.socket.write(data, cbs.length === 0 ? undefined : (err) => cbs.forEach((cb) => cb(err)));
  };

  private startKeepalive(seconds: number): void {
    if (seconds <= 0) return;
    this.keepalive = setInterval(() => {
      if (this.pingOutstanding) return this.drop(`no PINGRESP within keepalive (${seconds} s)`);
      this.pingOutstanding = true;
      this.send({ cmd: 'pingreq' });
    }, seconds * 1000);
    this.keepalive.unref();
  }

  private receive(p: Packet): void {
    switch (p.cmd) {
      case 'publish':
        return this.received(p);
      case 'pubrel':
        // QoS 2, second half: the message was delivered before our PUBREC; complete it.
        return this.send({ cmd: 'pubcomp', messageId: p.messageId! });
      case 'puback':
      case 'pubcomp': {
        const pending = this.pending.get(p.messageId!);
        if (!pending) return;
        this.pending.delete(p.messageId!);
        clearTimeout(pending.timer);
        return pending.resolve();
      }
      case 'pubrec':
        // QoS 2, our message stored by the broker: release it, then wait for PUBCOMP.
        return this.send({ cmd: 'pubrel', messageId: p.messageId! });
      case 'suback':
        this.subscribed?.(p.granted.map((g) => (typeof g === 'number' ? g : (g as { qos: number }).qos)));
        this.subscribed = undefined;
        return;
      case 'pingresp':
        this.pingOutstanding = false;
        return;
      default:
        return;
    }
  }

  private received(p: IPublishPacket): void {
    if (!this.onMessage) return;
    if (p.qos === 0) return this.onMessage({ session: this, packet: p, ack: () => undefined });
    const entry: Incoming = { messageId: p.messageId!, qos: p.qos, settled: false };
    this.incoming.push(entry);
    this.onMessage({
      session: this,
      packet: p,
      ack: () => {
        if (entry.settled) return;
        entry.settled = true;
        if (!this.releasing) {
          this.releasing = true;
          queueMicrotask(this.releaseAcks);
        }
      },
    });
  }

  /** Sends the acknowledgements due, in the order the messages came (once per tick, however many acks came). */
  private readonly releaseAcks = (): void => {
    this.releasing = false;
    const q = this.incoming;
    while (this.head < q.length && q[this.head]!.settled) {
      const e = q[this.head++]!;
      this.send({ cmd: e.qos === 1 ? 'puback' : 'pubrec', messageId: e.messageId });
    }
    if (this.head === q.length) {
      q.length = 0;
      this.head = 0;
    } else if (this.head >= 1024) {
      q.splice(0, this.head);
      this.head = 0;
    }
  };

  private drop(reason: string): void {
    if (!this.alive) return;
    this.alive = false;
    this.reason = reason;
    clearInterval(this.keepalive);
    this.socket.destroy();
    const err = new NotConnectedError(`lost the connection to ${this.broker}: ${reason}`);
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
    this.incoming.length = 0;
    this.head = 0;
    this.markLost();
  }
}
