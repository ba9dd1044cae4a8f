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
    const next: Batch[] = [];
    for (let b = 0; b < batches.length; b++) {
      const input = batches[b]!;
      let out: Batch[];
      const answeredBefore = answeredCount();
      try {
        const r = proc.process(input);
        out = r instanceof Promise ? await r : r;
      } catch (err) {
        const text = errorMessage(err);
        for (const m of input) m.error = text;
        out = [input];
      }
      // Only when this call (or one running meanwhile on this thread) answered messages.
      if (answeredCount() === answeredBefore) {
        for (let i = 0; i < out.length; i++) if (out[i]!.length > 0) next.push(out[i]!);
        continue;
      }
      for (let i = 0; i < out.length; i++) {
        const kept = withoutAnswered(out[i]!);
        if (kept.length > 0) next.push(kept);
      }
    }
    batches = next;
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
