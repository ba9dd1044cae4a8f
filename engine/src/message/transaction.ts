import type { Batch } from './message.js';

/**
 * Acknowledges a transaction. Without an error the batch was delivered; with one it was not
 * (a nack), and the input that created it replays it or hands it back to its source.
 */
export type Ack = (err?: Error) => void;

/** A batch plus the acknowledgement that tells its input what became of it. */
export interface Transaction {
  batch: Batch;
  ack: Ack;
}

/** Returned by `Input.read()` when a finite input has nothing more to give. */
export const END_OF_INPUT: unique symbol = Symbol.for('svc.end_of_input');
export type EndOfInput = typeof END_OF_INPUT;

/**
 * Splits one ack into `parts` acks: the original fires once all parts have, with the first
 * error any of them reported (so one failed part nacks the whole transaction).
 */
export function splitAck(ack: Ack, parts: number): Ack {
  if (parts === 1) return ack;
  let remaining = parts;
  let failure: Error | undefined;
  return (err?: Error) => {
    if (err && !failure) failure = err;
    if (--remaining === 0) ack(failure);
  };
}

/** Joins acks: calling the result calls every one of them with the same outcome. */
export function joinAcks(acks: Ack[]): Ack {
  if (acks.length === 1) return acks[0]!;
  return (err?: Error) => {
    for (let i = 0; i < acks.length; i++) acks[i]!(err);
  };
}
