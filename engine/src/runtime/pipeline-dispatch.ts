import type { Batch } from '../message/message.js';
import type { Processor } from '../plugin/types.js';
import type { WorkerPool } from '../workers/worker-pool.js';
import { batchesOf } from '../message/transaction.js';
import { runOver } from './processor-chain.js';

/**
 * While on the pool, every this many batches one runs inline to measure it again; while inline,
 * a hop is measured again far less often (a hop costs far more than a cheap batch).
 */
const INLINE_SAMPLE_EVERY = 64;
const POOL_SAMPLE_EVERY = 4096;
/**
 * While inline, the pool is sampled only once a batch costs at least this share of a hop: a chain
 * far cheaper than a hop could not win on a worker whatever a sample said, and every sample costs
 * this thread a wait for the worker's answer (batches run after a macrotask meanwhile).
 */
const SAMPLE_ABOVE_HOP_SHARE = 0.25;
/** The first batches run inline, to measure what the chain costs before choosing. */
const WARM_UP = 8;
/** While inline is cheaper, one batch in this many is timed (two clock reads cost about what a noop batch does). */
const TIME_CHEAP_EVERY = 16;

/**
 * Where a pipeline batch runs when `threads` > 1. This thread is one of the pipelines and the
 * pool holds the others (threads - 1 workers): a batch runs inline while processing it costs
 * less than a round trip to a worker would add (the pool's measured hop cost), so a noop
 * pipeline never pays a hop it cannot win back; when it costs more, it goes to an idle worker,
 * and when every worker is busy this thread processes it itself. So N threads are N pipelines on
 * N cores, not N workers contending with a main thread that has little to do. Both costs are
 * measured as batches run, and the road not taken is sampled now and then, so the choice follows
 * the load. The workers themselves start only when a batch first costs more than a hop (the
 * estimate, until one is measured): a light pipeline runs exactly as with one thread, without their
 * start-up time and memory, and a chain that could not win on a worker never makes a busy process
 * start one (a gateway's chain of a few µs a request, say).
 *
 * Inline cost is the synchronous time the chain takes: a processor that waits on I/O costs this
 * thread little and stays inline, which is right, since a worker would wait the same.
 */
export class PipelineDispatch {
  /** Processing time of a batch on this thread, a moving average in ns (-1: not measured yet). */
  private inlineNs = -1;
  private batches = 0;

  /** True once the workers were asked to start. */
  private starting = false;

  constructor(
    private readonly processors: Processor[],
    private readonly pool: WorkerPool,
    /** Starts the workers (the stream's: a worker that cannot build its chain ends the stream). */
    private readonly startWorkers: () => void,
  ) {}

  /** True while a batch costs less inline than a hop to a worker (as last measured). */
  private get cheaper(): boolean {
    return this.inlineNs < this.pool.hopNs;
  }

  /** True while batches run inline (warming up, workers starting, or cheaper than a hop) and no worker holds one. */
  get inlineNow(): boolean {
    return (this.batches < WARM_UP || !this.pool.started || this.cheaper) && !this.pool.working;
  }

  /** Runs a transaction's batches (`batch` cut at `parts`, see Transaction). */
  process(batch: Batch, parts?: readonly number[]): Promise<Batch[]> {
    const n = ++this.batches;
    const cheaper = this.cheaper;
    const inline =
      n <= WARM_UP ||
      !this.pool.started ||
      (cheaper ? n % POOL_SAMPLE_EVERY !== 0 || this.inlineNs < this.pool.hopNs * SAMPLE_ABOVE_HOP_SHARE : n % INLINE_SAMPLE_EVERY === 0 || this.pool.busy);
    if (!inline) return this.pool.process(batch, parts);
    // A dear batch about to run here because the workers are full: first let their results in (a
    // macrotask; other lanes may have run batches here in the same turn, and a worker that
    // finished waits for this thread), then it goes to a worker that has room after all.
    if (!cheaper && this.pool.busy && n % INLINE_SAMPLE_EVERY !== 0) {
      return afterMacrotask(undefined).then(() => (this.pool.busy ? this.runHere(batch, parts, n, cheaper) : this.pool.process(batch, parts)));
    }
    return this.runHere(batch, parts, n, cheaper);
  }

  /** Runs the batch on this thread, timing it (always while dear, one in TIME_CHEAP_EVERY while cheap). */
  private runHere(batch: Batch, parts: readonly number[] | undefined, n: number, cheaper: boolean): Promise<Batch[]> {
    if (cheaper && n > WARM_UP && n % TIME_CHEAP_EVERY !== 0) return this.settle(runOver(this.processors, batchesOf(batch, parts)));
    const t0 = process.hrtime.bigint();
    const out = runOver(this.processors, batchesOf(batch, parts));
    const ns = Number(process.hrtime.bigint() - t0);
    // A lower sample is taken at once (the first batches run before the JIT has warmed up), a
    // higher one gradually and by at most a quarter a sample (a garbage collection can land in
    // any one batch; a chain that really got dearer shows it batch after batch).
    const prev = this.inlineNs;
    this.inlineNs = prev < 0 || ns < prev ? ns : Math.min(prev * 1.25, prev + (ns - prev) / 8);
    if (!this.starting && n > WARM_UP && !this.cheaper) {
      this.starting = true;
      this.startWorkers();
    }
    return this.settle(out);
  }

  /**
   * While workers hold batches, or are starting, their messages get in (a macrotask) before this
   * thread takes more work: a chain of inline batches runs in microtasks and would keep them out.
   */
  private settle(out: Promise<Batch[]>): Promise<Batch[]> {
    return this.pool.working || (this.starting && !this.pool.started) ? out.then(afterMacrotask) : out;
  }
}

function afterMacrotask<T>(value: T): Promise<T> {
  return new Promise((resolve) => setImmediate(resolve, value));
}
