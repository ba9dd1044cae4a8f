/**
 * The agent's health probe (`healthProbe.server.port`): `GET /health` answers 200 while the
 * process runs (liveness); `GET /live` answers 200 only while both streams to the hub are up
 * (readiness), else 503 saying what it waits for.
 */
import type { Lifecycle, Logger } from '@svc/engine';
import { HttpListener } from '@svc/engine/kit';

export class HealthProbe implements Lifecycle {
  readonly name = 'health probe';
  private listener: HttpListener | undefined;
  port = 0;

  constructor(
    private readonly wanted: number,
    private readonly ready: () => boolean,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.listener = new HttpListener({
      name: 'agent health probe',
      address: `:${this.wanted}`,
      logger: this.log,
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 10_000,
      handler: (req, res) => {
        const path = (req.url ?? '/').split('?')[0];
        const reply = (status: number, body: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (path === '/health') return reply(200, { status: 'ok' });
        if (path === '/live') return this.ready() ? reply(200, { status: 'ready' }) : reply(503, { status: 'waiting for the hub (health and sync streams)' });
        reply(404, { status: 'not found' });
      },
    });
    await this.listener.start();
    this.port = this.listener.address().port;
    this.log.info(`health probe server started on port ${this.port}`);
  }

  async stop(): Promise<boolean> {
    await this.listener?.close();
    return true;
  }
}
