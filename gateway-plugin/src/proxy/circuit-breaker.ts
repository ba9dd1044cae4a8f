/**
 * The circuit breaker of one endpoint, as Tyk v5.14.0 runs one (`gateway/api_definition.go`
 * compileCircuitBreakerPathSpec: github.com/rubyist/circuitbreaker's NewRateBreaker, which the
 * engine's RateBreaker counts as): a failure is no answer or a 5xx; an open breaker refuses with
 * Tyk's 503 "Service temporarily unavailable."; `disable_half_open_state` lets no trial through.
 *
 * One gateway node, one breaker: in one process the breaker is here; with `processes` the primary
 * holds it and every process asks it (one IPC round trip per request to a guarded endpoint; the
 * results are told without waiting), so N failures trip it whichever processes took them, as on
 * one Tyk node. A reload starts a breaker closed in one process; with `processes` the primary's
 * breaker stands as long as the endpoint's settings do.
 */
import { RateBreaker, type BreakerEvent, type ProcessLink, type RateBreakerConfig } from '@svc/engine/kit';
import type { EndpointCircuitBreaker } from '../apis/api-spec.js';

export type { BreakerEvent };

export interface EndpointBreaker {
  /** Whether a request may go upstream now (closed, or a half-open trial). */
  ready(): boolean | Promise<boolean>;
  fail(): void;
  success(): void;
}

function breakerConfig(conf: EndpointCircuitBreaker): RateBreakerConfig {
  return {
    threshold: conf.thresholdPercent,
    samples: conf.samples,
    returnToServiceMs: conf.returnToServiceAfter * 1000,
    halfOpen: !conf.disableHalfOpenState,
  };
}

/** The breaker of `conf`: this process's, or with a link the primary's one under `name`. */
export function endpointBreaker(
  conf: EndpointCircuitBreaker,
  name: string,
  link: ProcessLink | undefined,
  onEvent: (e: BreakerEvent) => void,
): EndpointBreaker {
  return link === undefined ? new RateBreaker(breakerConfig(conf), onEvent) : new NodeBreaker(link, name, breakerConfig(conf), onEvent);
}

/** The primary's breaker, asked over the process link. */
class NodeBreaker implements EndpointBreaker {
  constructor(
    private readonly link: ProcessLink,
    private readonly name: string,
    private readonly conf: RateBreakerConfig,
    private readonly onEvent: (e: BreakerEvent) => void,
  ) {}

  async ready(): Promise<boolean> {
    try {
      const a = await this.link.breaker(this.name, this.conf, 'ready');
      for (const e of a.events) this.onEvent(e);
      return a.ready;
    } catch {
      // The primary is gone (the node is stopping): the request goes as if nothing was counted.
      return true;
    }
  }

  fail(): void {
    this.tell('fail');
  }

  success(): void {
    this.tell('success');
  }

  private tell(act: 'fail' | 'success'): void {
    this.link.breaker(this.name, this.conf, act).then(
      (a) => {
        for (const e of a.events) this.onEvent(e);
      },
      () => undefined,
    );
  }
}
