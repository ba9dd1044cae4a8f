import type { Batch } from '../message/message.js';
import type { Ack } from '../message/transaction.js';

/**
 * The runtime's view of an output: `send` hands a batch over and resolves as soon as the sink
 * can take more (back-pressure); `done` is called once the batch was delivered (or not, with
 * the error). Separating the two lets a batching output gather many transactions at once.
 */
export interface Sink {
  send(batch: Batch, done: Ack): Promise<void> | void;
  /** Flushes what is buffered and waits for in-flight writes, then closes. */
  close(): Promise<void>;
}

export const SINK = Symbol.for('svc.sink');

/** True when an output factory built a runtime sink itself (the output brokers do). */
export function isSink(x: unknown): x is Sink {
  return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[SINK] === true;
}
