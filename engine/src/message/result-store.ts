/**
 * Synchronous results: how a processor or an output answers the request a message came from.
 *
 * The input that owns a request (an HTTP server, the gateway) opens a {@link ResultStore} for
 * the transaction it reads; a component anywhere down the line, inline or on a worker thread,
 * stores a result for a message; once the transaction is acked the input reads the results and
 * answers. A message answered by a processor ({@link answerMessage}) skips the remaining
 * processors and the output. Results ride in the message's ctx under one crossing key, so they
 * come back from worker threads like any crossing value; inputs without synchronous answers
 * open no store and results stored for their messages are ignored.
 */
import { contextKey } from './context.js';
import type { MessageContext } from './context.js';
import type { Batch, Message } from './message.js';

/**
 * The answer of a request-response input (HTTP, the gateway): the result most plugins store.
 * A body crossing back from a worker thread arrives as a Uint8Array.
 */
export interface Answer {
  status: number;
  headers?: Record<string, string | string[]>;
  body?: Uint8Array;
}

interface Stored {
  value: unknown;
  /** True: the message stops here (skips the remaining processors and the output). */
  answered: boolean;
}

/** Runtime-private: the one crossing key results travel under. */
const RESULT = contextKey<Stored>('svc.result', { crossesThreads: true });

/** Messages answered on this thread so far (see {@link answeredCount}). */
let answered = 0;

/**
 * How many messages were answered on this thread so far. The runtime reads it before and after a
 * processor call and looks for answered messages only when it moved: most pipelines answer
 * nothing, and a ctx lookup per message per processor would cost them.
 */
export function answeredCount(): number {
  return answered;
}

/**
 * Stores `value` as the synchronous result of the request `msg` came from, replacing any result
 * stored before for it; the message goes on through the pipeline (the `sync_response`
 * processor). The value must be structured-clonable (it may come back from a worker thread).
 */
export function storeResult(msg: Message, value: unknown): void {
  msg.ctx.set(RESULT, { value, answered: false });
}

/**
 * Answers the request `msg` came from with `value` (as {@link storeResult}), and stops the
 * message: it skips the remaining processors and the output, and its transaction is acked with
 * the answer in the store (a gateway's 401, 403, 429).
 */
export function answerMessage(msg: Message, value: unknown): void {
  msg.ctx.set(RESULT, { value, answered: true });
  answered++;
}

/**
 * Counts answers a processor made elsewhere and that arrived with `msg`'s ctx (a main-thread
 * component's, through its stand-in on a worker), so the chain here sees them as answered.
 */
export function answeredElsewhere(msg: Message): void {
  if (isAnswered(msg)) answered++;
}

/** True when a processor answered the message ({@link answerMessage}): it skips the rest. */
export function isAnswered(msg: Message): boolean {
  return msg.hasCtx() && msg.ctx.get(RESULT)?.answered === true;
}

/**
 * The results of one transaction's messages, kept for the input that owns the request. Open it
 * on the batch before returning the transaction from `read()`: each message gets a ctx of its
 * own then, which every copy of it shares, so a result stored on any copy reaches the store.
 */
export class ResultStore<T = unknown> {
  private readonly ctxs: MessageContext[];

  constructor(batch: Batch) {
    // Reading ctx creates it now, before the runtime copies the messages.
    this.ctxs = batch.map((m) => m.ctx);
  }

  /** The results stored so far, in message order (messages without one are left out). */
  results(): T[] {
    const out: T[] = [];
    for (const c of this.ctxs) {
      const r = c.get(RESULT);
      if (r !== undefined) out.push(r.value as T);
    }
    return out;
  }
}
