/**
 * How an output (aws_*, nats*) reports a batch it wrote message by message: nothing when every message
 * was delivered, the first error when none was, else a BatchError naming the failed ones so that
 * the runtime writes only those again (the delivered ones are not sent twice).
 */
import { BatchError } from '@svc/engine';

/** Throws for the failures of a batch of `size` messages (index → why), if any. */
export function throwFailures(size: number, failures: ReadonlyMap<number, Error>): void {
  if (failures.size === 0) return;
  const first = failures.values().next().value as Error;
  if (failures.size === size) throw first;
  const err = new BatchError(size, first);
  for (const [i, e] of failures) err.failed(i, e);
  throw err;
}
