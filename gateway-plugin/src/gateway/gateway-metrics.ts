/**
 * The gateway's own metrics, beside the stream's: requests per API and status code, and latency
 * per API (from the request's arrival to the end of its answer, whoever wrote it).
 */
import { metricsFor, type ComponentContext, type Counter, type Labelled, type Timer } from '@svc/engine';

export class GatewayMetrics {
  private readonly requests: Labelled<Counter>;
  private readonly latency: Labelled<Timer>;
  /** Children by `api\u0001status`, so a request costs one map lookup. */
  private readonly counters = new Map<string, Counter>();
  private readonly timers = new Map<string, Timer>();

  constructor(ctx: ComponentContext) {
    const m = metricsFor(ctx);
    // The names and labels gateway_proxy uses too: one family each in the registry.
    this.requests = m.counter('gateway_requests', { help: 'Requests the gateway answered, by API and status code.', labels: ['api_id', 'code'] });
    this.latency = m.timer('gateway_latency', { help: 'Seconds from the arrival of a request to the end of its answer, by API.', labels: ['api_id'] });
  }

  /** Counts an answered request; `api` is '' for requests no API took (404, management). */
  answered(api: string, status: number, started: bigint): void {
    const key = api + '\u0001' + status;
    let c = this.counters.get(key);
    if (c === undefined) this.counters.set(key, (c = this.requests.labels(api, String(status))));
    c.inc();
    let t = this.timers.get(api);
    if (t === undefined) this.timers.set(api, (t = this.latency.labels(api)));
    t.observe(Number(process.hrtime.bigint() - started) / 1e9);
  }
}
