import { copyBatch, type Batch } from '../message/message.js';
import { END_OF_INPUT, PartsNacked, batchesOf, joinBatches, type Ack, type Transaction } from '../message/transaction.js';
import type { Logger } from '../observability/logger.js';
import { errorMessage } from '../errors.js';
import { FLUSH, type Source, type SourceRead } from './source.js';

interface Pending {
  original: Batch;
  parts: readonly number[] | undefined;
  ack: Ack;
  attempts: number;
}

/**
 * `auto_replay_nacks: true`: a nacked transaction is served again (before new reads) until it
 * is delivered, so nothing is lost. The pipeline works on copies, so the replay sends what the
 * input read, not what processors made of it (without processors in the stream, outputs and
 * brokers only read a batch, and it is handed out itself). Replays back off (up to 1s) while the cause
 * persists; that is back-pressure, as in Benthos. A finite input ends only once every
 * transaction it gave is acked, and so does a closed one: close() stops new reads, not replays,
 * so a shutdown drain delivers what is waiting for a replay (or runs out of time and says so);
 * so does an input that failed (its error is thrown then).
 */
export class ReplayInput implements Source {
  private readonly replays: Pending[] = [];
  private outstanding = 0;
  /** The inner read in flight, and its result once it settled (not yet handed out). */
  private reading = false;
  private result: { value?: SourceRead; error?: unknown } | undefined;
  /** Resolves the current wait: an inner read settled, a nack queued a replay, or an ack at the end. */
  private wake: (() => void) | undefined;
  private ended = false;
  /** The inner input's error: thrown once everything it gave before is delivered. */
  private failure: { error: unknown } | undefined;
  private hinted = false;
  private closed = false;

  constructor(
    private readonly inner: Source,
    private readonly log: Logger,
    /** Hand out copies, so that what processors change is not what a replay sends (see BuildEnv.messagesChange). */
    private readonly copies = true,
  ) {}

  connect(): Promise<void> {
    return this.inner.connect();
  }

  async read(): Promise<SourceRead> {
    for (;;) {
      const replay = this.replays.shift();
      if (replay) return this.serve(replay);
      if (!this.ended && !this.closed) this.startRead();
      const r = this.result;
      if (r !== undefined) {
        // A read that settles after close() is still served: what the source gave is owed.
        this.result = undefined;
        if (r.error !== undefined) {
          // The input failed (InputFailedError): what it gave before is seen through, then the
          // error ends the stream. After close() a failing read is only the input going away.
          if (!this.closed) this.failure = { error: r.error };
          this.ended = true;
        } else if (r.value === END_OF_INPUT) {
          this.ended = true;
        } else if (r.value === FLUSH) {
          // A hint from below (a broker's child): whatever batches above should flush too.
          return FLUSH;
        } else if (r.value !== undefined) {
          const tx = r.value;
          return this.serve({ original: tx.batch, parts: tx.parts, ack: tx.ack, attempts: 0 });
        }
        continue;
      }
      if (this.ended || this.closed) {
        // Closed or at the end: nothing new is read, but every transaction given out is seen
        // through (replays included) before the end is reported.
        if (this.outstanding === 0 && !this.reading) {
          if (this.failure) throw this.failure.error;
          return END_OF_INPUT;
        }
        if (this.outstanding > 0 && !this.hinted) {
          this.hinted = true;
          return FLUSH;
        }
      }
      // One short-lived promise per wait (a long-lived one raced against every read would keep
      // every result alive).
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  /** Starts an inner read unless one is in flight or its result is waiting. */
  private startRead(): void {
    if (this.reading || this.result !== undefined) return;
    let r: ReturnType<Source['read']>;
    try {
      r = this.inner.read();
    } catch (error) {
      this.result = { error: error ?? new Error('read failed') };
      return;
    }
    if (!(r instanceof Promise)) {
      this.result = { value: r };
      return;
    }
    this.reading = true;
    r.then(
      (value) => {
        this.reading = false;
        this.result = { value };
        this.wake?.();
      },
      (error: unknown) => {
        this.reading = false;
        this.result = { error: error ?? new Error('read failed') };
        this.wake?.();
      },
    );
  }

  private serve(served: Pending): Transaction {
    let p = served;
    this.outstanding++;
    this.hinted = false;
    let settled = false;
    const tx: Transaction = {
      batch: this.copies ? copyBatch(p.original) : p.original,
      ack: (err?: Error) => {
        if (settled) return;
        settled = true;
        if (!err) {
          this.outstanding--;
          p.ack();
          if (this.ended || this.closed) this.wake?.();
          return;
        }
        // Only some of its batches failed (and the error indexes the very batch handed out here):
        // those alone are replayed, as Benthos replays a line of stdin, not the lines read with it.
        if (err instanceof PartsNacked && p.parts !== undefined && err.batch === tx.batch) {
          const kept = keptParts(p.original, p.parts, err.failed);
          p = { ...p, original: kept.batch, parts: kept.parts };
        }
        p.attempts++;
        const delay = Math.min(1000, 2 ** Math.min(p.attempts, 10));
        if (p.attempts === 1 || p.attempts % 100 === 0) {
          this.log.warn(`Message rejected, replaying it (attempt ${p.attempts}): ${errorMessage(err)}`);
        }
        setTimeout(() => {
          this.outstanding--;
          this.replays.push(p);
          this.wake?.();
        }, delay);
      },
    };
    if (p.parts) tx.parts = p.parts;
    return tx;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.inner.close();
  }
}

/** The batches of `batch` (cut at `parts`) whose indexes are in `failed`, as a batch and its parts. */
function keptParts(batch: Batch, parts: readonly number[], failed: readonly number[]): { batch: Batch; parts: readonly number[] | undefined } {
  const all = batchesOf(batch, parts);
  const joined = joinBatches(failed.map((i) => all[i]!));
  return { batch: joined.batch, parts: joined.parts ?? [joined.batch.length] };
}
