import { errorMessage } from '../errors.js';
import type { Batch } from '../message/message.js';
import { splitAck, type Ack } from '../message/transaction.js';
import { answeredCount, isAnswered } from '../message/result-store.js';
import type { Processor } from '../plugin/types.js';

/** Removes answered messages: they skip the remaining processors and the output. */
function withoutAnswered(batch: Batch): Batch {
  for (let i = 0; i < batch.length; i++) {
    if (isAnswered(batch[i]!)) return batch.filter((m) => !isAnswered(m));
  }
  return batch;
}

/**
 * A processor of the runtime's wrappers that takes a transaction's parts in one call: as
 * `process` on each batch in turn (a throw flags that batch's messages, which go on), giving the
 * non-empty batches out in order. Lines read one message at a time arrive as thousands of
 * one-message parts; one call for all of them spares the wrappers' per-call work on each.
 */
export interface PartsProcessor extends Processor {
  processParts(batches: readonly Batch[]): Promise<Batch[]> | Batch[];
}

export function takesParts(p: Processor): p is PartsProcessor {
  return (p as Partial<PartsProcessor>).processParts !== undefined;
}

/** Flags every message of `batch` with what `process` threw: the chain passes them on. */
export function flagThrown(batch: Batch, err: unknown): void {
  const text = errorMessage(err);
  for (const m of batch) m.error = text;
}

/** Appends the non-empty batches of `out` to `to`. */
export function appendBatches(to: Batch[], out: Batch[]): void {
  for (let i = 0; i < out.length; i++) if (out[i]!.length > 0) to.push(out[i]!);
}

/**
 * `proc.process` on each of `batches` from `from` on, in turn, the non-empty results appended to
 * `to`: synchronous while the processor is, a promise from the first call that is not.
 */
export function eachPart(proc: Processor, batches: readonly Batch[], from = 0, to: Batch[] = []): Promise<Batch[]> | Batch[] {
  for (let b = from; b < batches.length; b++) {
    const input = batches[b]!;
    let r: Promise<Batch[]> | Batch[];
    try {
      r = proc.process(input);
    } catch (err) {
      flagThrown(input, err);
      to.push(input);
      continue;
    }
    if (r instanceof Promise) {
      return r.then(
        (out) => {
          appendBatches(to, out);
          return eachPart(proc, batches, b + 1, to);
        },
        (err: unknown) => {
          flagThrown(input, err);
          to.push(input);
          return eachPart(proc, batches, b + 1, to);
        },
      );
    }
    appendBatches(to, r);
  }
  return to;
}

/**
 * Runs a batch through processors in order. Zero batches out means everything was filtered
 * (or answered). A processor that throws does not stop the stream: every message of the batch
 * it failed on is flagged with the error and passed on, as Benthos does. Answered messages are
 * left out: their answer is in the transaction's result store (see result-store.ts).
 */
export function runProcessors(processors: readonly Processor[], batch: Batch): Promise<Batch[]> {
  return runOver(processors, [batch]);
}

/** {@link runProcessors} over several batches (a transaction's parts): each processor sees each batch. */
export async function runOver(processors: readonly Processor[], batches: Batch[]): Promise<Batch[]> {
  for (let p = 0; p < processors.length; p++) {
    const proc = processors[p]!;
    const answeredBefore = answeredCount();
    const r = batches.length > 1 && takesParts(proc) ? proc.processParts(batches) : eachPart(proc, batches);
    const out = r instanceof Promise ? await r : r;
    // Only when these calls (or one running meanwhile on this thread) answered messages.
    if (answeredCount() === answeredBefore) batches = out;
    else {
      batches = [];
      for (let i = 0; i < out.length; i++) {
        const kept = withoutAnswered(out[i]!);
        if (kept.length > 0) batches.push(kept);
      }
    }
    if (batches.length === 0) break;
  }
  return batches;
}

/**
 * Runs a transaction's batch through processors and hands each batch out, in order, to `next`
 * with its share of `done` (acked at once when everything was filtered). Resolves once `next`
 * took the last one (back-pressure).
 */
export async function processThen(
  processors: readonly Processor[],
  batch: Batch,
  done: Ack,
  next: (batch: Batch, done: Ack) => Promise<void> | void,
): Promise<void> {
  const batches = await runProcessors(processors, batch);
  if (batches.length === 0) return done();
  if (batches.length === 1) return next(batches[0]!, done);
  const part = splitAck(done, batches.length);
  for (const b of batches) await next(b, part);
}
