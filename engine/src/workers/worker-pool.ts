import { Piscina } from 'piscina';
import { ErrorCode, SvcError, errorMessage } from '../errors.js';
import type { Batch } from '../message/message.js';
import type { Observability } from '../observability/observability.js';
import { crossingCtxOf, decodeBatch, encodeBatch, type EncodedResult } from './batch-codec.js';
import { spansFromCalls } from './call-log.js';
import type { WorkerData } from './worker-data.js';

/** Tasks a worker holds at once: the one it runs and the next. */
const TASKS_PER_WORKER = 2;

/** How long close() lets starting workers finish loading before it terminates them. */
const START_WAIT_MS = 30_000;

/**
 * The pipeline processors on a piscina pool: created once, each worker builds its chain once,
 * and whole batches travel (contents as one transferred buffer). Of each message's ctx only
 * the crossing values travel (cloned); the ctx stays on this thread and is re-attached to the
 * result messages by origin index, with the crossing values a worker set or deleted applied to it
 * (a result stored for a request among them).
 */
export class WorkerPool {
  /** Made by start(): a stream whose batches never need a worker starts no thread. */
  private pool: Piscina | undefined;
  private starting: Promise<void> | undefined;
  /**
   * What a round trip costs in CPU beyond the processors' own work: encoding, posting and decoding
   * here, decoding and encoding on the worker; in nanoseconds. 30 µs, as measured here, until a
   * task says. CPU, not latency: while this thread is busy a result waits, but that wait costs
   * nothing.
   */
  hopNs = 30_000;
  /** Tasks sent and not yet back. */
  private inFlight = 0;
  /** True once every worker built its chain (see start()); until then no task is sent. */
  started = false;

  /** `obs` receives the workers' metric deltas and processor spans with each result. */
  constructor(
    /** The number of workers. */
    private readonly threads: number,
    private readonly data: WorkerData,
    private readonly obs?: Observability,
  ) {}

  /** The hop estimate follows a lower sample at once, a higher one slowly (a GC can land in any one task). */
  private sampleHop(ns: number): void {
    this.hopNs = ns < this.hopNs ? ns : this.hopNs + (ns - this.hopNs) / 64;
  }

  /** The tasks the workers hold at once. */
  get capacity(): number {
    return this.threads * TASKS_PER_WORKER;
  }

  /** True while every worker has its tasks (another one would queue). */
  get busy(): boolean {
    return this.inFlight >= this.capacity;
  }

  /** True while some task is out on a worker. */
  get working(): boolean {
    return this.inFlight > 0;
  }

  /**
   * Starts the workers, once, and has each build its processor chain (one warm-up task each, all
   * at once: piscina hands each to the least busy worker, so each takes one even though a worker
   * may hold two tasks). Settles when every chain is built; rejects naming the processor that
   * cannot be built on a worker, so that it is an error of its own, never a batch that fails and
   * replays forever.
   */
  start(): Promise<void> {
    return (this.starting ??= this.startOnce());
  }

  private async startOnce(): Promise<void> {
    // A dear batch may ask while the stream drains and closes: no thread is started after close().
    if (this.closed) throw new SvcError(ErrorCode.Worker, 'the pipeline workers were not started: the stream is closing');
    const pool = new Piscina({
      filename: new URL('./worker.js', import.meta.url).href,
      minThreads: this.threads,
      maxThreads: this.threads,
      idleTimeout: 2 ** 31 - 1,
      // Plain message passing: an idle worker's event loop keeps running its timers (Atomics
      // waits would freeze it), and measured as fast as 'sync' for batch-sized tasks.
      atomics: 'disabled',
      // A worker holds its next task while it runs one: it never idles waiting for this thread
      // (busy with an inline batch or the input) to take a result and send more.
      concurrentTasksPerWorker: TASKS_PER_WORKER,
      workerData: this.data,
    });
    this.pool = pool;
    try {
      await Promise.all(Array.from({ length: this.threads }, () => pool.run({ warmup: true })));
      this.started = true;
    } catch (err) {
      throw new SvcError(ErrorCode.Worker, `a pipeline worker thread cannot build its processors: ${errorMessage(err)}`, { cause: err });
    }
  }

  /** Runs a transaction's batches (`batch` cut at `parts`, see Transaction) on a worker. */
  async process(batch: Batch, parts?: readonly number[]): Promise<Batch[]> {
    const t0 = process.hrtime.bigint();
    const task = encodeBatch(batch);
    if (parts) task.parts = parts;
    const ctx = crossingCtxOf(batch);
    if (ctx) task.ctx = ctx;
    if (this.obs?.traced(batch)) task.trace = true;
    let result: EncodedResult;
    this.inFlight++;
    let sent = 0n;
    try {
      if (!this.started) throw new SvcError(ErrorCode.Worker, 'the pipeline workers have not started');
      const running = this.pool!.run(task, { transferList: [task.buf] });
      sent = process.hrtime.bigint() - t0;
      result = (await running) as EncodedResult;
    } catch (err) {
      if (err instanceof Error && err.name === 'DataCloneError') {
        throw new SvcError(
          ErrorCode.Worker,
          `a ctx value cannot cross to or from a pipeline worker thread (${err.message}): a key made with crossesThreads must hold structured-clonable values`,
          { cause: err },
        );
      }
      throw err;
    } finally {
      this.inFlight--;
    }
    const t1 = process.hrtime.bigint();
    if (result.metrics !== undefined) this.obs?.fromWorker(result.metrics);
    if (result.calls !== undefined && this.obs?.tracer.enabled) spansFromCalls(this.obs.tracer, batch, result.calls);
    if (result.ctx) {
      for (let i = 0; i < result.ctx.length; i++) {
        const w = result.ctx[i];
        if (w !== undefined && i < batch.length) batch[i]!.ctx.applyCrossing(w);
      }
    }
    const out: Batch[] = [];
    for (const e of result.batches) {
      const b = decodeBatch(e);
      if (e.origins) {
        for (let i = 0; i < b.length; i++) {
          const src = batch[e.origins[i]!];
          if (src?.hasCtx()) b[i]!.shareCtxOf(src);
        }
      }
      out.push(b);
    }
    if (result.overheadNs !== undefined) this.sampleHop(Number(sent + process.hrtime.bigint() - t1) + result.overheadNs);
    return out;
  }

  private closed = false;

  async close(): Promise<void> {
    this.closed = true;
    // Workers still loading their modules are let finish (for at most START_WAIT_MS) before they
    // are terminated: a worker terminated inside Node 20's require() of an ES module can abort the
    // whole process ("v8::Module::IsGraphAsync must be used on an instantiated module").
    if (this.starting !== undefined) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.starting.catch(() => undefined), new Promise((r) => (timer = setTimeout(r, START_WAIT_MS)))]);
      clearTimeout(timer);
    }
    await this.pool?.destroy();
  }
}
