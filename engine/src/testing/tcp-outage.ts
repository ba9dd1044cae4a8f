/**
 * A network outage a test can cause: a loopback TCP proxy in front of a real server. `cut(ms)`
 * destroys every connection through it and refuses new ones for that long, which the client sees
 * exactly as a server that went away and came back, without stopping the server other tests use.
 */
import * as net from 'node:net';

export class TcpOutage {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private downUntil = 0;
  /** Connections accepted so far (a test can check its client really goes through the proxy). */
  accepted = 0;

  constructor(
    private readonly target: { host: string; port: number },
    private readonly listenPort = 0,
  ) {}

  /**
   * Starts listening on 127.0.0.1; resolves with the port. A fixed port (the broker's advertised
   * outage listener) can only have one proxy at a time: while another test file holds it, this
   * waits for it (bounded) instead of failing.
   */
  async start(): Promise<number> {
    const deadline = Date.now() + 180_000;
    for (;;) {
      this.server = net.createServer((client) => this.accept(client));
      try {
        await new Promise<void>((resolve, reject) => {
          this.server!.once('error', reject);
          this.server!.listen(this.listenPort, '127.0.0.1', () => resolve());
        });
        return (this.server.address() as net.AddressInfo).port;
      } catch (err) {
        const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
        if (!inUse || this.listenPort === 0 || Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  private accept(client: net.Socket): void {
    if (Date.now() < this.downUntil) {
      client.destroy();
      return;
    }
    this.accepted++;
    const upstream = net.connect(this.target.port, this.target.host);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        this.sockets.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  }

  /** Drops every connection now and refuses new ones for `ms` milliseconds. */
  cut(ms: number): void {
    this.downUntil = Date.now() + ms;
    for (const s of this.sockets) s.destroy();
  }

  /** Resolves when the outage of the last cut() ends: new connections are accepted again. */
  async restored(): Promise<void> {
    const left = this.downUntil - Date.now();
    if (left > 0) await new Promise((r) => setTimeout(r, left));
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
