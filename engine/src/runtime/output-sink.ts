import { BatchError, NotConnectedError, errorMessage } from '../errors.js';
import type { Batch } from '../message/message.js';
import { ackPerPart, batchesOf, type Ack } from '../message/transaction.js';
import type { Logger } from '../observability/logger.js';
import type { OutputProbe } from '../observability/probes.js';
import type { Output, Processor } from '../plugin/types.js';
import { Backoff, Sleeps } from './backoff.js';
import { BatchFlusher } from './batch-flusher.js';
import { Connection } from './connection.js';
import type { Batcher } from './batch-policy.js';
import { processThen } from './processor-chain.js';
import { Semaphore } from './semaphore.js';
import type { Sink } from './sink.js';
import type { ComponentStatus } from './status.js';

/**
 * An output as the runtime drives it: its `processors`, then its `batching`, then up to
 * `max_in_flight` concurrent writes. A write that throws NotConnectedError is retried after a
 * reconnect with back-off (nothing dropped). A BatchError that leaves some messages delivered
 * retries only the failed ones (at once after progress, else with back-off from 50 ms to 1 s)
 * until they are delivered or the output closes:
 * a delivered message is never written again. Any other failure (or a BatchError that fails
 * every message of the first attempt) nacks the transactions the batch was built from, and
 * their inputs replay them.
 */
export class OutputSink implements Sink {
  private readonly slots: Semaphore;
  private readonly connection: Connection;
  private readonly flusher: BatchFlusher | undefined;
  /** Stopped by close(): retries of partly delivered batches stop waiting and nack. */
  private readonly retryWaits = new Sleeps();

  constructor(
    private readonly output: Output,
    private readonly processors: Processor[],
    batcher: Batcher | undefined,
    maxInFlight: number,
    private readonly log: Logger,
    status: ComponentStatus,
    /** Counts, times and traces each write (absent when metrics and tracing are off). */
    private readonly probe?: OutputProbe,
  ) {
    this.slots = new Semaphore(Math.max(1, maxInFlight));
    this.flusher = batcher && new BatchFlusher(batcher, (batch, ack) => this.write(batch, ack));
    this.connection = new Connection(() => output.connect?.(), 'Output', log, status, probe);
  }

  /** Connects (retrying with back-off); called once at start so `/ready` reflects reality. */
  connect(): Promise<void> {
    return this.connection.ensure();
  }

  send(batch: Batch, done: Ack): Promise<void> | void {
    if (this.processors.length > 0) return processThen(this.processors, batch, done, (b, d) => this.accept(b, d));
    return this.accept(batch, done);
  }

  /** Several batches (`batch` cut at `parts`): one write when the output can take them at once, else one by one. */
  sendAll(batch: Batch, parts: readonly number[], done: Ack): Promise<void> | void {
    if (this.output.writeBatches === undefined || this.processors.length > 0 || this.flusher !== undefined) return this.sendEach(batch, parts, done);
    const wait = this.slots.acquire();
    if (wait) return wait.then(() => void this.attempt(batch, done, parts));
    void this.attempt(batch, done, parts);
  }

  private async sendEach(batch: Batch, parts: readonly number[], done: Ack): Promise<void> {
    const batches = batchesOf(batch, parts);
    const acks = ackPerPart(done, batch, parts);
    for (let i = 0; i < batches.length; i++) {
      const r = this.send(batches[i]!, acks[i]!);
      if (r) await r;
    }
  }

  private accept(batch: Batch, done: Ack): Promise<void> | void {
    return this.flusher ? this.flusher.add(batch, done) : this.write(batch, done);
  }

  /** Starts a write in a free slot; resolves once the write has started (not finished). */
  private write(batch: Batch, done: Ack): Promise<void> | void {
    const wait = this.slots.acquire();
    if (wait) return wait.then(() => void this.attempt(batch, done));
    void this.attempt(batch, done);
  }

  /** Writes `batch`, or with `parts` its batches in one writeBatches call. */
  private async attempt(batch: Batch, done: Ack, parts?: readonly number[]): Promise<void> {
    const probe = this.probe;
    const spans = probe?.tracing ? probe.startSpans(batch) : undefined;
    // What is still to be written: the batch, then the messages a BatchError named.
    let pending = batch;
    let partial: Backoff | undefined;
    try {
      for (;;) {
        const conn = this.connection;
        if (!conn.connected) await conn.ensure();
        if (conn.closed && !conn.connected) throw new Error('output closed before the batch could be written');
        const t0 = probe !== undefined ? probe.begin() : -1;
        const weight = probe !== undefined ? probe.weight : 0;
        try {
          // A retry of what a BatchError named writes those messages as one batch.
          if (parts !== undefined && pending === batch) await this.output.writeBatches!(batch, parts);
          else await this.output.write(pending);
          conn.working();
          if (probe !== undefined) {
            probe.attempted(pending.length, t0, weight, undefined, parts !== undefined && pending === batch ? parts.length : 1);
            probe.finished(spans, undefined);
          }
          done();
          return;
        } catch (err) {
          if (err instanceof NotConnectedError) {
            probe?.attempted(pending.length, t0, weight, err);
            this.connection.lost(err);
            continue;
          }
          const failed = err instanceof BatchError ? failedPart(pending, err) : undefined;
          // Nothing delivered yet and nothing delivered now: an ordinary failure (nack).
          if (failed === undefined || (partial === undefined && failed.length === pending.length)) {
            probe?.attempted(pending.length, t0, weight, err);
            throw err;
          }
          if (probe !== undefined) {
            if (failed.length < pending.length) probe.attempted(pending.length - failed.length, t0, weight, undefined);
            probe.attempted(failed.length, -1, weight, err);
          }
          // Progress (some delivered just now) retries the rest at once; none backs off.
          const progress = failed.length < pending.length;
          pending = failed;
          partial ??= new Backoff(50, 1_000);
          if (progress) partial.reset();
          const wait = progress ? 0 : partial.next();
          if (partial.attempts <= 1 || partial.attempts % 100 === 0) {
            this.log.warn(`${failed.length} of ${batch.length} messages not delivered, retrying only those in ${wait}ms: ${errorMessage(err)}`);
          }
          if (this.retryWaits.stopped || (wait > 0 && !(await this.retryWaits.sleep(wait)))) throw err;
        }
      }
    } catch (err) {
      this.log.error(`Failed to send message: ${errorMessage(err)}`);
      probe?.finished(spans, err);
      done(err instanceof Error ? err : new Error(String(err)));
    } finally {
      this.slots.release();
    }
  }

  async close(): Promise<void> {
    if (this.flusher) await this.flusher.flush();
    this.retryWaits.stop();
    await this.slots.idle();
    this.connection.close();
    this.probe?.closed();
    await this.output.close?.();
  }
}

/**
 * The messages of `batch` that a BatchError names, in batch order; all of them when it names
 * none (or was built for a batch of another size: its indexes would point at other messages).
 */
function failedPart(batch: Batch, err: BatchError): Batch {
  if (err.failedCount === 0 || err.size !== batch.length) return batch;
  return err.indexes().map((i) => batch[i]!);
}
