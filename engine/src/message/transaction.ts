import type { Batch } from './message.js';

/**
 * Acknowledges a transaction. Without an error the batch was delivered; with one it was not
 * (a nack), and the input that created it replays it or hands it back to its source.
 */
export type Ack = (err?: Error) => void;

/**
 * A batch plus the acknowledgement that tells its input what became of it.
 *
 * A transaction may carry several batches under one ack: then `parts` lists how many messages
 * each has, in order (every entry at least 1, their sum `batch.length`), and `batch` holds all
 * their messages. Without `parts` the batch is one batch. Boundaries are what processors and
 * outputs see (`batch_size()`, `archive`, `split`, a batching policy), so an input that reads
 * many messages at once but whose source makes each its own batch (a line of `stdin`, as
 * Benthos reads it) says so with {@link eachMessage}: the runtime still moves them together.
 */
export interface Transaction {
  batch: Batch;
  ack: Ack;
  parts?: readonly number[];
}

/** The `parts` of a transaction whose `n` messages are each a batch of their own. */
export function eachMessage(n: number): number[] {
  return new Array<number>(n).fill(1);
}

/** A transaction's batches: `batch` cut at its `parts` (itself alone without them). */
export function batchesOf(batch: Batch, parts: readonly number[] | undefined): Batch[] {
  if (parts === undefined) return [batch];
  const out = new Array<Batch>(parts.length);
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    const n = parts[i]!;
    out[i] = n === 1 ? [batch[at]!] : batch.slice(at, at + n);
    at += n;
  }
  return out;
}

/** Batches as one transaction's `batch` and `parts` (no `parts` for a single batch). */
export function joinBatches(batches: readonly Batch[]): { batch: Batch; parts?: number[] } {
  if (batches.length === 1) return { batch: batches[0]! };
  const parts = new Array<number>(batches.length);
  const batch: Batch = [];
  for (let i = 0; i < batches.length; i++) {
    const b = batches[i]!;
    parts[i] = b.length;
    for (let j = 0; j < b.length; j++) batch.push(b[j]!);
  }
  return { batch, parts };
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

/**
 * A nack of some of a transaction's batches only: `failed` are the indexes (in `parts` order) of
 * the batches that were not delivered, in `batch` — the very array they index, so that a layer
 * that handed out other batches (processors, batching) is never misread: such a layer's error
 * refers to another array, and its input replays the whole transaction, as for any nack.
 */
export class PartsNacked extends Error {
  constructor(
    readonly batch: Batch,
    readonly failed: readonly number[],
    cause: Error,
  ) {
    super(cause.message, { cause });
    this.name = 'PartsNacked';
  }
}

/**
 * One ack per batch of `batch` cut at `parts`: `done` fires once all have, with nothing when every
 * batch was delivered, the first error when none was, and a {@link PartsNacked} naming the others
 * when some were (as Benthos, where each would be a transaction of its own, replays only those).
 */
export function ackPerPart(done: Ack, batch: Batch, parts: readonly number[]): Ack[] {
  let remaining = parts.length;
  const failed: number[] = [];
  let first: Error | undefined;
  return parts.map((_, i) => (err?: Error) => {
    if (err) {
      failed.push(i);
      first ??= err;
    }
    if (--remaining > 0) return;
    if (first === undefined) done();
    else if (failed.length === parts.length) done(first);
    else
      done(
        new PartsNacked(
          batch,
          failed.sort((a, b) => a - b),
          first,
        ),
      );
  });
}

/** Joins acks: calling the result calls every one of them with the same outcome. */
export function joinAcks(acks: Ack[]): Ack {
  if (acks.length === 1) return acks[0]!;
  return (err?: Error) => {
    for (let i = 0; i < acks.length; i++) acks[i]!(err);
  };
}
