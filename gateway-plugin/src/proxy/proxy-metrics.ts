/**
 * The proxy's metrics per API: `gateway_requests` (a counter by `api_id` and status `code`) and
 * `gateway_latency` (a timer by `api_id`: from the request's arrival to the end of its answer).
 * Children are bound on an API's first answer with a status and kept, so counting a request is
 * two map reads and an add: no label strings are joined per request.
 */
import type { ComponentMetrics, Counter, Labelled, Timer } from '@svc/engine';

interface ApiMetrics {
  byStatus: Map<number, Counter>;
  latency: Timer;
}

export class ProxyMetrics {
  private readonly requests: Labelled<Counter>;
  private readonly latency: Labelled<Timer>;
  private readonly apis = new Map<string, ApiMetrics>();

  constructor(metrics: ComponentMetrics) {
    this.requests = metrics.counter('gateway_requests', { help: 'Requests the gateway answered, by API and status code.', labels: ['api_id', 'code'] });
    this.latency = metrics.timer('gateway_latency', { help: 'Seconds from the arrival of a request to the end of its answer, by API.', labels: ['api_id'] });
  }

  /** Counts one answered request of `apiId` with `status`, which took `seconds`. */
  record(apiId: string, status: number, seconds: number): void {
    let api = this.apis.get(apiId);
    if (api === undefined) {
      api = { byStatus: new Map(), latency: this.latency.labels(apiId) };
      this.apis.set(apiId, api);
    }
    let counter = api.byStatus.get(status);
    if (counter === undefined) {
      counter = this.requests.labels(apiId, String(status));
      api.byStatus.set(status, counter);
    }
    counter.inc();
    api.latency.observe(seconds);
  }
}
