/**
 * An internal read result: "nothing now, and flush what you hold". A replaying input whose
 * source ended returns it once while it waits for the acks of what it already gave: a batch
 * policy above it may be holding exactly those messages, waiting for more that will never
 * come. Runtime layers pass it up; plugins never see it (see `Builder.context`).
 */
export const FLUSH: unique symbol = Symbol('svc.flush');
export type Flush = typeof FLUSH;
