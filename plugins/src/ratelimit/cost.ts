import { ErrorCode, SvcError } from '@svc/engine';

/** Throws unless `cost` is what an access may take: a whole number of at least 1. */
export function checkCost(cost: number): void {
  if (!Number.isInteger(cost) || cost < 1 || cost > 2 ** 31 - 1) {
    throw new SvcError(ErrorCode.Processing, `a rate limit access costs a whole number of at least 1, not ${cost}: round the cost up or leave it out (1)`);
  }
}
