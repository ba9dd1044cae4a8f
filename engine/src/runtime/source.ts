import { END_OF_INPUT, type EndOfInput, type Transaction } from '../message/transaction.js';

/**
 * A read result only the runtime knows: "nothing now, and flush what you hold". A replaying
 * input whose source ended returns it once while it waits for the acks of what it already gave:
 * a batch policy above it may be holding exactly those messages, waiting for more that will
 * never come. Runtime layers pass it up; plugins never see it (see `inputView`).
 */
export const FLUSH: unique symbol = Symbol('svc.flush');
export type Flush = typeof FLUSH;

/** What a source's `read()` gives: a transaction, the end, or a flush hint. */
export type SourceRead = Transaction | EndOfInput | Flush;

/**
 * The runtime's view of an input, as its own layers (reconnects, replays, batching, processors,
 * the input broker) stack on each other. A plugin `Input` becomes one in exactly one place,
 * `ManagedInput`; plugin code given a nested input gets a plain `Input` (`inputView`).
 */
export interface Source {
  connect(): Promise<void>;
  /** A value when one is ready, else a promise: no promise per read on the hot path. */
  read(): Promise<SourceRead> | SourceRead;
  /** Stops new reads; what was given out is still seen through (see ReplayInput). */
  close(): Promise<void>;
  /** The plugin input's `concurrency` (see Input), set on the outermost layer by the builder. */
  concurrency?: number;
}

/**
 * A read from a layer's own feed (a batching or broker channel) that ends with the input's
 * failure, once one was recorded, instead of END_OF_INPUT: what came before is still given out.
 */
export function endingWith(r: Promise<SourceRead> | SourceRead, failure: () => { error: unknown } | undefined): Promise<SourceRead> | SourceRead {
  const check = (read: SourceRead): SourceRead => {
    const f = read === END_OF_INPUT ? failure() : undefined;
    if (f) throw f.error;
    return read;
  };
  return r instanceof Promise ? r.then(check) : check(r);
}
