/**
 * Who waits for a message's outcome, when someone does (an HTTP client waiting on its answer).
 * An input that knows sets {@link REQUESTER} on the message (main thread only). Invariant: once
 * every message of a transaction has a requester that left, the runtime stops waiting on the
 * transaction's processors, acks it (there is nobody left to answer, and nothing to deliver for
 * them) and frees its slot at once; the processors still running finish in the background and
 * what they return is dropped. So clients that leave while a processor waits (on a slow identity
 * provider, say) cannot hold every slot of an input's `concurrency`.
 */
import { contextKey } from './context.js';
import type { Batch } from './message.js';

export interface Requester {
  /** True once the requester has left. */
  readonly gone: boolean;
  /** Calls `then` once, when the requester leaves (never if it stays to the end). */
  whenGone(then: () => void): void;
}

export const REQUESTER = contextKey<Requester>('svc.requester');

/** The batch's requesters when every message has one, else undefined (then nothing is abandoned). */
export function requestersOf(batch: Batch): Requester[] | undefined {
  const out: Requester[] = [];
  for (const msg of batch) {
    const r = msg.hasCtx() ? msg.ctx.get(REQUESTER) : undefined;
    if (r === undefined) return undefined;
    out.push(r);
  }
  return out.length > 0 ? out : undefined;
}

/** Settles once every requester has left. */
export function allGone(requesters: Requester[]): Promise<void> {
  return new Promise((resolve) => {
    let left = requesters.filter((r) => !r.gone).length;
    if (left === 0) return resolve();
    for (const r of requesters) if (!r.gone) r.whenGone(() => --left === 0 && resolve());
  });
}
