/**
 * The `json_api` metrics exporter (Benthos' json_api): every series as one JSON object at
 * `/metrics` and `/stats` on the service-wide HTTP server, counters and gauges as integers and
 * timers as `{"p50":..,"p90":..,"p99":..}` in nanoseconds, keyed as Benthos keys them:
 * `{"input_received{label=\"\",path=\"root.input\"}":197, ...}`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { f } from '../config/spec.js';
import { errorMessage } from '../errors.js';
import type { ComponentContext } from '../plugin/types.js';
import { LocalMetrics } from './local-metrics.js';

export const jsonApiSpec = f.object({});

export class JsonApiExporter extends LocalMetrics {
  private readonly mounted: string[] = [];

  constructor(private readonly ctx: ComponentContext) {
    super();
    const service = ctx.service;
    if (!service) return;
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('method not allowed\n');
        return;
      }
      const body = this.json();
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    for (const path of ['/metrics', '/stats']) {
      try {
        service.mount(path, handler, 'Metrics as one JSON object (json_api).');
        this.mounted.push(path);
      } catch (err) {
        ctx.logger.warn(`Metrics are not served at ${path}: ${errorMessage(err)}`);
      }
    }
  }

  /** The document `/metrics` answers, keys sorted (as Go's json.Marshal writes a map). */
  json(): string {
    const entries: [string, unknown][] = [
      ...this.readCounters(),
      ...this.readTimings().map(([k, [p50, p90, p99]]) => [k, { p50, p90, p99 }] as [string, unknown]),
    ];
    entries.sort(([a], [b]) => (a < b ? -1 : 1));
    return '{' + entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',') + '}';
  }

  close(): Promise<void> {
    for (const path of this.mounted.splice(0)) this.ctx.service?.unmount(path);
    return Promise.resolve();
  }
}
