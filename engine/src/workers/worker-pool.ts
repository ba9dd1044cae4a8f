import { Piscina } from 'piscina';
import { ErrorCode, SvcError, errorMessage } from '../errors.js';
import type { Batch } from '../message/message.js';
import type { Observability } from '../observability/observability.js';
import { decodeBatch, encodeBatch, type EncodedResult } from './batch-codec.js';
import type { WorkerData } from './worker-data.js';

/**
 * The pipeline processors on a piscina pool: created once, each worker builds its chain once,
 * and whole batches travel (contents as one transferred buffer). `ctx` stays on this thread
 * and is re-attached by origin index; replies set on a worker reach the original ctx.
 */
export class WorkerPool {
  private readonly pool: Piscina;

  /** `obs` receives the workers' metric deltas and processor spans with each result. */
  constructor(
    private readonly threads: number,
    data: WorkerData,
    private readonly obs?: Observability,
  ) {
    this.pool = new Piscina({
      filename: new URL('./worker.js', import.meta.url).href,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: 2 ** 31 - 1,
      // Plain message passing: an idle worker's event loop keeps running its timers (Atomics
      // waits would freeze it), and measured as fast as 'sync' for batch-sized tasks.
      atomics: 'disabled',
      workerData: data,
    });
  }

  /**
   * Has every worker build its processor chain now (one warm-up task each, all at once, so each
   * idle worker takes one): a processor that cannot be built on a worker is a start-up error,
   * never a batch that fails and replays forever.
   */
  async ready(): Promise<void> {
    try {
      await Promise.all(Array.from({ length: this.threads }, () => this.pool.run({ warmup: true })));
    } catch (err) {
      throw new SvcError(ErrorCode.Worker, `a pipeline worker thread cannot build its processors: ${errorMessage(err)}`, { cause: err });
    }
  }

  async process(batch: Batch): Promise<Batch[]> {
    const task = encodeBatch(batch);
    if (this.obs?.traced(batch)) task.trace = true;
    const result = (await this.pool.run(task, { transferList: [task.buf] })) as EncodedResult;
    if (this.obs !== undefined && (result.metrics !== undefined || result.traces !== undefined)) {
      this.obs.fromWorker(batch, result.metrics, result.traces);
    }
    if (result.replies) {
      for (const r of result.replies) {
        const m = r.origin >= 0 ? batch[r.origin] : undefined;
        if (!m) continue;
        const reply = { ...r.reply, body: r.reply.body ? Buffer.from(r.reply.body) : undefined };
        if (r.continues) m.ctx.reply = reply;
        else m.setReply(reply);
      }
    }
    const out: Batch[] = [];
    for (const e of result.batches) {
      const b = decodeBatch(e);
      if (e.origins) {
        for (let i = 0; i < b.length; i++) {
          const src = batch[e.origins[i]!];
          if (src?.hasCtx()) b[i]!.ctx = src.ctx;
        }
      }
      out.push(b);
    }
    return out;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
