/**
 * A gateway middleware processor: the one way every stage of the gateway's chain (`gateway_auth`,
 * `gateway_rate_limit`, `gateway_url_rewrite`, and any new one) finds what it works on, with one
 * failure policy: fail closed. Invariant: a gateway request is never passed on unchecked. For each
 * message of an `api_gateway` request the base finds the gateway's state on this thread (on a
 * worker, once its replica has caught up with the request's version) and the API the request was
 * routed to, then calls the middleware's {@link GatewayMiddleware.handle}. When the state or the
 * API is missing, or `handle` throws, the request is answered with Tyk's 500 ("There was a problem
 * proxying the request") and one ERROR line, throttled as `StageGuard`'s are. A message that
 * is not a gateway request passes untouched.
 *
 * A new middleware extends the base, names itself, and writes only its own decision:
 *
 * ```ts
 * export class GatewayFoo extends GatewayMiddleware {
 *   constructor(logger: Logger) {
 *     super('gateway_foo', logger);
 *   }
 *   protected async handle({ msg, req, state, api }: MiddlewareCall): Promise<void> {
 *     if (refused(api, req)) return void answerMessage(msg, tykError(403, "Tyk's words"));
 *     msg.ctx.set(GATEWAY_REQUEST, req); // when it changed the request
 *     markStage(msg, 'foo'); // when the API needs this stage (see stages.ts)
 *   }
 * }
 * ```
 */
import { answerMessage, errorMessage, isAnswered, type Batch, type Logger, type Message, type Processor } from '@svc/engine';
import { ThrottledLog } from '@svc/engine/kit';
import type { ApiSpec } from '../apis/api-spec.js';
import { tykError } from './errors.js';
import { GATEWAY_REQUEST, LIVE_EXCHANGE, type GatewayRequest } from './request.js';
import { gatewayState, type GatewayState } from './state.js';

/** What a middleware works on for one request. */
export interface MiddlewareCall {
  msg: Message;
  /** The request as the stages before left it: set it back on `msg.ctx` after changing it. */
  req: GatewayRequest;
  /** The gateway's state on this thread, caught up with the request's version. */
  state: GatewayState;
  /** The API the request was routed to (on a worker, the replica's). */
  api: ApiSpec;
}

/** Tyk's answer when the gateway cannot serve a request it routed. */
const REFUSED = 'There was a problem proxying the request';

export abstract class GatewayMiddleware implements Processor {
  private readonly refusals: ThrottledLog;

  /** `name` is the processor's, as the config writes it (it names the refusals in the log). */
  protected constructor(
    private readonly name: string,
    protected readonly logger: Logger,
  ) {
    this.refusals = new ThrottledLog(logger, 10_000, 5);
  }

  /** Decides one gateway request: answers it (a refusal), or records its stage and lets it on. */
  protected abstract handle(call: MiddlewareCall): Promise<void> | void;

  async process(batch: Batch): Promise<Batch[]> {
    await Promise.all(batch.map((m) => this.one(m)));
    return [batch];
  }

  private async one(msg: Message): Promise<void> {
    const req = msg.hasCtx() ? msg.ctx.get(GATEWAY_REQUEST) : undefined;
    if (req === undefined) return; // Not a gateway request: nothing to decide.
    let api: ApiSpec | undefined;
    try {
      const state = gatewayState(req.gateway);
      if (state === undefined) {
        return this.refuse(msg, `gateway "${req.gateway}" has no state on this thread (its api_gateway input is gone or not in this stream)`);
      }
      // The API the request was routed to (a reload meanwhile does not change a request in flight).
      api = msg.ctx.get(LIVE_EXCHANGE)?.api ?? state.requestApi(req);
      if (api === undefined) return this.refuse(msg, `API ${req.apiId} is not loaded in gateway "${req.gateway}" on this thread (removed by a reload?)`);
      await this.handle({ msg, req, state, api });
      // Stages change the request in place (its session, upstream path): set again, so the change
      // crosses back when a worker's stand-in handed this batch to the main thread.
      msg.ctx.set(GATEWAY_REQUEST, req);
    } catch (err) {
      // Say nothing of the request's credentials: the error's own words only.
      this.refuse(msg, `${api === undefined ? `gateway "${req.gateway}"` : `API ${api.id}`}: ${errorMessage(err)}`);
    }
  }

  private refuse(msg: Message, why: string): void {
    this.refusals.error(`${this.name}: request refused (500): ${why}`);
    if (!isAnswered(msg)) answerMessage(msg, tykError(500, REFUSED));
  }
}
