import type { Batch } from '@svc/engine';

/**
 * Runs `one` on each message of a batch in order, without awaiting while every call is
 * synchronous (an in-memory cache): only a call that returns a promise makes the rest wait for it.
 */
export function eachMessage(batch: Batch, one: (i: number) => Promise<void> | void): Promise<void> | void {
  for (let i = 0; i < batch.length; i++) {
    const r = one(i);
    if (r instanceof Promise) return rest(batch, i, r, one);
  }
}

async function rest(batch: Batch, from: number, pending: Promise<void>, one: (i: number) => Promise<void> | void): Promise<void> {
  await pending;
  for (let i = from + 1; i < batch.length; i++) await one(i);
}
