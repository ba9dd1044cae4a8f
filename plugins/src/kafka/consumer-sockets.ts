/**
 * The sockets of one connection of the `logbus` input, as a kafkajs `socketFactory`: once the
 * input let go of that connection, `close()` destroys whatever is still open and refuses new ones.
 *
 * kafkajs can leave a connection behind that nothing will ever close: when a consumer crashes
 * and restarts, its client forgets the brokers it had (`cluster.disconnect()`), but a fetch
 * handler of the crashed generation that is still running finishes with a heartbeat through the
 * old group coordinator, which quietly reconnects (its retries outlast a broker outage). That
 * socket and its request-queue timers kept the process alive after shutdown.
 */
import * as net from 'node:net';
import * as tls from 'node:tls';
import type { ISocketFactory } from 'kafkajs';

/** kafkajs' default: TCP keep-alive probes after a minute idle. */
const KEEP_ALIVE_DELAY = 60_000;

export class ConnectionSockets {
  private readonly open = new Set<net.Socket>();
  private closed = false;

  /** kafkajs' own socket factory (plain or TLS), remembering what it opened. */
  readonly factory: ISocketFactory = ({ host, port, ssl, onConnect }) => {
    if (this.closed) {
      // The client is gone: whatever of it still tries to reach a broker fails at once.
      const refused = new net.Socket();
      process.nextTick(() => refused.destroy(new Error('the kafka input closed this client')));
      return refused;
    }
    const socket = ssl
      ? tls.connect({ host, port, ...(!net.isIP(host) ? { servername: host } : {}), ...ssl }, onConnect)
      : net.connect({ host, port }, onConnect);
    socket.setKeepAlive(true, KEEP_ALIVE_DELAY);
    this.open.add(socket);
    socket.once('close', () => this.open.delete(socket));
    return socket;
  };

  /** How many sockets are open. */
  get size(): number {
    return this.open.size;
  }

  /**
   * Refuses new sockets and destroys those still open. Called after the clients were
   * disconnected: a socket kafkajs ended (disconnected) only waits for the broker's side and goes
   * quietly; one it still uses was left behind, and fails with an error, on which kafkajs rejects
   * its requests and drops the connection's timers.
   */
  close(): void {
    this.closed = true;
    for (const s of this.open) s.destroy(s.writableEnded ? undefined : new Error('the kafka input closed a connection its client left open'));
    this.open.clear();
  }
}
