/**
 * The data-path half of fail closed: whatever answers for an API (`gateway_proxy`, the input's
 * own answer when nothing else answered) asks the guard first, and a request that missed a stage
 * its API needs is refused with Tyk's 500 and one ERROR line naming the API and the stage (at most
 * a few per 10 s when it repeats; then a count).
 */
import type { Logger } from '@svc/engine';
import { ThrottledLog } from '@svc/engine/kit';
import type { ApiSpec } from '../apis/api-spec.js';
import type { GatewayRequest } from './request.js';
import { unmetStage, unmetStageMessage } from './stages.js';

export class StageGuard {
  private readonly log: ThrottledLog;

  constructor(logger: Logger) {
    this.log = new ThrottledLog(logger, 10_000, 5);
  }

  /** True (and logged) when `req` must not be answered for `api`: a stage it needs did not run. */
  refuses(api: ApiSpec, req: GatewayRequest, stages: number | undefined): boolean {
    const unmet = unmetStage(api, req, stages);
    if (unmet === undefined) return false;
    this.log.error(unmetStageMessage(api, unmet));
    return true;
  }
}
