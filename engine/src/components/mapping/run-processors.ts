/**
 * Runs nested processors (a `switch` case, a `try` or `catch` block) the way the runtime runs a
 * pipeline: in order, each on every batch the previous one returned. The engine's own chain is
 * not part of its public API, so the families that nest processors share this one.
 */
import { errorMessage, isAnswered, type Batch, type Message, type Processor } from '@svc/engine';

/**
 * Runs `processors` over `batch` and returns the batches that come out (none when everything
 * was filtered). Like the runtime:
 * - a processor that throws flags every message of the batch it failed on and passes it on;
 * - an answered message (see `answerMessage`) skips the remaining processors, and comes out (in a
 *   last batch of its own) so that the runtime around us sees it answered and stops it too.
 *
 * `only`, when given, selects the messages each processor applies to (`try`: the unflagged ones,
 * `catch`: the flagged ones); the others skip that processor unchanged.
 *
 * Stays synchronous while every processor answers synchronously: per-message blocks (`try`,
 * `catch`) call it once per message, and a promise per call would cost more than the work.
 */
export function runProcessors(processors: readonly Processor[], batch: Batch, only?: (m: Message) => boolean): Batch[] | Promise<Batch[]> {
  return new ChainRun(processors, only).from(0, [batch], 0, []);
}

class ChainRun {
  private readonly answered: Message[] = [];

  constructor(
    private readonly processors: readonly Processor[],
    private readonly only: ((m: Message) => boolean) | undefined,
  ) {}

  /** Continues at processor `p`, batch `b` of `batches`, with `next` collecting the outputs of `p`. */
  from(p: number, batches: Batch[], b: number, next: Batch[]): Batch[] | Promise<Batch[]> {
    for (; p < this.processors.length; p++) {
      const proc = this.processors[p]!;
      for (; b < batches.length; b++) {
        const r = this.step(proc, batches[b]!, next);
        if (r !== undefined) {
          const [pp, bb, input] = [p, b, batches];
          return r.then(() => this.from(pp, input, bb + 1, next));
        }
      }
      batches = next;
      next = [];
      b = 0;
      if (batches.length === 0) break;
    }
    if (this.answered.length > 0) batches.push(this.answered);
    return batches;
  }

  /** Applies one processor to one batch, pushing its outputs to `next`; a promise when it went async. */
  private step(proc: Processor, batch: Batch, next: Batch[]): Promise<void> | undefined {
    let input = batch;
    let skipped: Message[] | undefined;
    if (this.only !== undefined) {
      const only = this.only;
      let selected = 0;
      for (let i = 0; i < batch.length; i++) if (only(batch[i]!)) selected++;
      if (selected === 0) {
        next.push(batch);
        return undefined;
      }
      if (selected < batch.length) {
        input = batch.filter(only);
        skipped = batch.filter((m) => !only(m));
      }
    }
    let r: Batch[] | Promise<Batch[]>;
    try {
      r = proc.process(input);
    } catch (err) {
      r = flagAll(input, err);
    }
    if (r instanceof Promise) {
      return r.then(
        (out) => this.collect(out, skipped, next),
        (err: unknown) => this.collect(flagAll(input, err), skipped, next),
      );
    }
    this.collect(r, skipped, next);
    return undefined;
  }

  private collect(out: Batch[], skipped: Message[] | undefined, next: Batch[]): void {
    for (let i = 0; i < out.length; i++) {
      const kept = this.withoutAnswered(out[i]!);
      if (kept.length > 0) next.push(kept);
    }
    if (skipped !== undefined) next.push(skipped);
  }

  private withoutAnswered(batch: Batch): Batch {
    for (let i = 0; i < batch.length; i++) {
      if (isAnswered(batch[i]!)) {
        const kept: Batch = [];
        for (const m of batch) (isAnswered(m) ? this.answered : kept).push(m);
        return kept;
      }
    }
    return batch;
  }
}

function flagAll(batch: Batch, err: unknown): Batch[] {
  const text = errorMessage(err);
  for (const m of batch) m.error = text;
  return [batch];
}

/**
 * Runs `processors` on each message of `batch` as a batch of its own, one message after the
 * other (Benthos' `try` and `catch` do this, like `for_each`), and returns every message that
 * comes out, in order, as one batch. Messages `only` rejects skip the processors unchanged.
 */
export function runPerMessage(processors: readonly Processor[], batch: Batch, only: (m: Message) => boolean): Batch | Promise<Batch> {
  const out: Batch = [];
  for (let i = 0; i < batch.length; i++) {
    const m = batch[i]!;
    if (!only(m)) {
      out.push(m);
      continue;
    }
    const r = runProcessors(processors, [m], only);
    if (r instanceof Promise) return r.then((res) => restAsync(processors, batch, only, i + 1, append(out, res)));
    append(out, r);
  }
  return out;
}

async function restAsync(processors: readonly Processor[], batch: Batch, only: (m: Message) => boolean, from: number, out: Batch): Promise<Batch> {
  for (let i = from; i < batch.length; i++) {
    const m = batch[i]!;
    if (!only(m)) out.push(m);
    else append(out, await runProcessors(processors, [m], only));
  }
  return out;
}

function append(out: Batch, batches: readonly Batch[]): Batch {
  for (const b of batches) for (const m of b) out.push(m);
  return out;
}
