import type { Batch } from '../message/message.js';
import type { Processor } from '../plugin/types.js';
import type { WorkerPool } from '../workers/worker-pool.js';
import { runProcessors } from './processor-chain.js';

/**
 * While on the pool, every this many batches one runs inline to measure it again; while inline,
 * a hop is measured again far less often (a hop costs far more than a cheap batch).
 */
const INLINE_SAMPLE_EVERY = 64;
const POOL_SAMPLE_EVERY = 4096;
/** The first batches run inline, to measure what the chain costs before choosing. */
const WARM_UP = 8;

/**
 * Where a pipeline batch runs when `threads` > 1: inline on this thread while processing a
 * batch costs less than a round trip to a worker would add (the pool's measured hop cost), on
 * the pool when it costs more. A noop pipeline so never pays a hop it cannot win back, and a
 * CPU-heavy one spreads over the workers. Both costs are measured as batches run, and the road
 * not taken is sampled now and then, so the choice follows the load.
 *
 * Inline cost is the synchronous time the chain takes: a processor that waits on I/O costs this
 * thread little and stays inline, which is right, since a worker would wait the same.
 */
export class PipelineDispatch {
  /** Processing time of a batch on this thread, a moving average in ns (-1: not measured yet). */
  private inlineNs = -1;
  private batches = 0;

  constructor(
    private readonly processors: Processor[],
    private readonly pool: WorkerPool,
  ) {}

  process(batch: Batch): Promise<Batch[]> {
    const n = ++this.batches;
    const cheaper = this.inlineNs < this.pool.hopNs;
    const inline = n <= WARM_UP || (cheaper ? n % POOL_SAMPLE_EVERY !== 0 : n % INLINE_SAMPLE_EVERY === 0);
    if (!inline) return this.pool.process(batch);
    const t0 = process.hrtime.bigint();
    const out = runProcessors(this.processors, batch);
    const ns = Number(process.hrtime.bigint() - t0);
    // A lower sample is taken at once (the first batches run before the JIT has warmed up), a
    // higher one gradually and by at most a quarter a sample (a garbage collection can land in
    // any one batch; a chain that really got dearer shows it batch after batch).
    const prev = this.inlineNs;
    this.inlineNs = prev < 0 || ns < prev ? ns : Math.min(prev * 1.25, prev + (ns - prev) / 8);
    return out;
  }
}
