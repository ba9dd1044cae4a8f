import { availableParallelism } from 'node:os';
import type { RootConfig } from '../config/root-spec.js';
import { streamShape } from '../config/stream-checks.js';
import { InputFailedError, errorMessage } from '../errors.js';
import type { Batch } from '../message/message.js';
import { allGone, requestersOf } from '../message/requester.js';
import { END_OF_INPUT, batchesOf, joinBatches, ackPerPart, type Ack, type Transaction } from '../message/transaction.js';
import type { Logger, LoggerConfig } from '../observability/logger.js';
import type { Observability } from '../observability/observability.js';
import type { Lifecycle } from '../plugin/lifecycle.js';
import type { Registry } from '../plugin/registry.js';
import type { Processor, Resources, ServiceRoutes } from '../plugin/types.js';
import type { WorkerPool } from '../workers/worker-pool.js';
import { Builder, newScope, type ResourceConfigs } from './builder.js';
import { Channel } from './channel.js';
import { PipelineDispatch } from './pipeline-dispatch.js';
import { DeliveryLedger } from './delivery-ledger.js';
import { runOver } from './processor-chain.js';
import type { Sink } from './sink.js';
import { FLUSH, type Source } from './source.js';
import { StatusBoard } from './status.js';
import { workerModules } from '../workers/worker-modules.js';

export interface StreamOptions {
  config: RootConfig;
  registry: Registry;
  logger: Logger;
  /** Plugin modules (built-ins included) that worker threads load. */
  plugins: string[];
  service?: ServiceRoutes;
  status?: StatusBoard;
  /** A name for logs (streams mode: the stream id). */
  name?: string;
  /**
   * Metrics and tracing owned by the caller and shared by several streams (streams mode): the
   * stream's own `metrics` and `tracer` sections are not built, and closing it leaves these open.
   */
  observability?: Observability;
  /** Resources shared by several streams (streams mode's `-r` files), built by the caller. */
  sharedResources?: SharedResources;
}

/** Resources built once for several streams, and what their workers need to mirror them. */
export interface SharedResources {
  resources: Resources;
  configs: ResourceConfigs;
  /** The scope its builder names its main-thread components with. */
  scope: string;
  /** Its memory shared by threads (a local rate limit's counters). */
  shared: Map<string, SharedArrayBuffer>;
}

/** Turns the pipeline section into "process a transaction's batches" on this thread or on the pool. */
type Process = (batch: Batch, parts: readonly number[] | undefined) => Promise<Batch[]> | Batch[];

/**
 * A running stream: input → pipeline processors → output, at least once.
 *
 * No transaction is acked at the input before the output accepted its messages; back-pressure
 * runs end to end (the input reads only when the pipeline can take more). With one thread the
 * processors run inline; with more, on a worker pool, fed by a bounded channel.
 */
export class Stream implements Lifecycle {
  /** Names the stream in logs (streams mode: its id). */
  readonly name: string;
  readonly status: StatusBoard;
  private readonly builder: Builder;
  private input: Source | undefined;
  private sink: Sink | undefined;
  private pool: WorkerPool | undefined;
  private process: Process | undefined;
  /** True when the pipeline has no processors: transactions go straight to the output. */
  private passThrough = false;
  /** Where pipeline batches run, with threads > 1 and dispatch auto. */
  private dispatch: PipelineDispatch | undefined;
  private outstanding = 0;
  /** The messages of the `outstanding` transactions, as the input gave them. */
  private pipelineMessages = 0;
  private idleWaiters: Array<() => void> = [];
  private stopping = false;
  /** The read loop, settled once the input ended (after close(): once it gave back everything owed). */
  private loop: Promise<void> | undefined;
  /** What the inputs read and have not settled: replays and retries in back-off included. */
  private readonly ledger = new DeliveryLedger();
  private readonly log: Logger;

  constructor(private readonly opts: StreamOptions) {
    this.name = opts.name ?? 'the stream';
    this.status = opts.status ?? new StatusBoard();
    this.log = opts.logger;
    this.builder = new Builder({
      registry: opts.registry,
      logger: opts.logger,
      service: opts.service,
      isWorker: false,
      shared: new Map(opts.sharedResources?.shared),
      scope: newScope(),
      ...(opts.sharedResources ? { parent: opts.sharedResources.resources } : {}),
      status: this.status,
      ledger: this.ledger,
      obs: opts.observability,
      messagesChange: hasProcessors(opts.config),
      stream: streamShape(opts.config, this.name),
    });
  }

  /** The number of pipeline threads the config asks for (-1 → logical CPUs). */
  get threads(): number {
    const t = this.opts.config.pipeline.threads;
    return t === -1 ? availableParallelism() : t;
  }

  /** Builds every component; throws (before anything runs) when one cannot be built. */
  build(): Promise<void> {
    return (this.building ??= this.buildOnce());
  }

  /** The build under way or done: stop() waits for it, so that it can close what was built. */
  private building: Promise<void> | undefined;

  private async buildOnce(): Promise<void> {
    const c = this.opts.config;
    try {
      // Metrics and the tracer first: every component binds its metrics as it is built.
      if (!this.opts.observability) await this.builder.buildObservability(c.metrics, c.tracer);
      await this.builder.buildResources(c);
      // Processors are built here even when they will run on the pool: a broken one fails now.
      const processors = await this.builder.processors(c.pipeline.processors);
      this.sink = await this.builder.sink(c.output);
      this.input = await this.builder.buffered(c.buffer, await this.builder.source(c.input));
      this.process = await this.pipeline(processors);
      // dispatch pool: the workers are the pipeline, so the stream starts once they are (a
      // processor they cannot build is a start-up error). auto: they start when a batch first
      // costs enough to be worth a hop (see PipelineDispatch).
      if (this.pool && !this.dispatch) await this.pool.start();
      if (!this.opts.observability) await this.builder.obs.start();
    } catch (err) {
      await this.shutdownComponents();
      throw err;
    }
  }

  private async pipeline(processors: Processor[]): Promise<Process> {
    const c = this.opts.config;
    const procs = c.pipeline.processors;
    const obs = this.builder.obs;
    obs.threads(procs.length === 0 || this.threads <= 1 ? 1 : this.threads);
    if (procs.length === 0) {
      this.passThrough = true;
      return batchesOf;
    }
    if (this.threads <= 1) return (b, parts) => runOver(processors, batchesOf(b, parts));
    const shared = [...this.builder.env.shared.entries()];
    const resources = workerResources(c);
    const parentResources = this.opts.sharedResources ? workerResources(this.opts.sharedResources.configs) : undefined;
    const data = {
      plugins: workerModules(this.opts.plugins, [procs, resources, parentResources]),
      processors: procs,
      resources,
      scope: this.builder.env.scope!,
      ...(this.opts.sharedResources && parentResources ? { parent: { resources: parentResources, scope: this.opts.sharedResources.scope } } : {}),
      shared,
      logger: c.logger as Partial<LoggerConfig>,
      telemetry: { metrics: obs.metrics.enabled, tracing: obs.tracer.enabled },
    };
    // Workers' counts and processor spans come back with each result to this thread's registry.
    // dispatch pool: every batch on `threads` workers; auto: this thread is one of the pipelines.
    const toPool = c.pipeline.dispatch === 'pool';
    // piscina loads only for a stream that has workers (it costs every other one start-up time).
    const { WorkerPool } = await import('../workers/worker-pool.js');
    this.pool = new WorkerPool(toPool ? this.threads : this.threads - 1, data, obs.active ? obs : undefined);
    const pool = this.pool;
    if (toPool) return (b, parts) => pool.process(b, parts);
    // Inline while a batch costs less than the hop; else on an idle worker, or here when all are busy.
    // Not once the stream drains: the batches left run here, and no worker is started only to be
    // terminated while it loads its modules (on Node 20 that aborted the process at shutdown).
    const dispatch = new PipelineDispatch(processors, pool, () => {
      if (!this.stopping) void this.startWorkers().catch((err: unknown) => this.fail(err));
    });
    this.dispatch = dispatch;
    return (b, parts) => dispatch.process(b, parts);
  }

  private running: Promise<void> | undefined;

  /** Builds (if not yet built) and starts running; `wait()` settles when it has ended. */
  async start(): Promise<void> {
    if (!this.input || !this.sink) await this.build();
    // The caller observes the outcome through wait(); an unobserved failure must not crash.
    this.run().catch(() => undefined);
  }

  /** Lifecycle: the stream ends by itself when its input does. */
  ended(): Promise<void> {
    return this.wait();
  }

  /** Lifecycle: the components that are not connected, with why. */
  health(): string[] {
    return this.status.notReady().map((s) => `${s.kind} ${s.path} (${s.type}): ${s.reason ?? 'not connected'}`);
  }

  /** Settles once the stream has ended: its input ended and all was delivered, or it was stopped. */
  wait(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /**
   * Runs until the input ends (and everything is acked) or `stop()` is called; once. Rejects
   * with the input's InputFailedError once everything read before it is acked.
   */
  run(): Promise<void> {
    return (this.running ??= this.execute());
  }

  private async execute(): Promise<void> {
    if (!this.input || !this.sink) await this.build();
    const process = this.process!;
    const input = this.input!;
    const sink = this.sink!;
    try {
      let failure: InputFailedError | undefined;
      // Lanes: transactions processed at once (what the workers hold, and one more for this thread
      // when it is a pipeline too; an input whose transactions are independent may ask for more).
      const pipelines = this.pool ? this.pool.capacity + (this.dispatch ? 1 : 0) : 1;
      const lanes = Math.max(pipelines, input.concurrency ?? 1);
      this.loop = lanes > 1 ? this.runLanes(input, sink, process, lanes) : this.runInline(input, sink, process);
      try {
        await this.loop;
      } catch (err) {
        if (!(err instanceof InputFailedError)) throw err;
        failure = err;
      }
      await this.drained();
      if (failure) throw failure;
      if (this.failure) throw this.failure.error;
    } finally {
      await this.shutdownComponents();
    }
  }

  /**
   * Starts the pipeline's worker threads now (with `dispatch: auto` they start when a batch first
   * costs enough to be worth a hop: this thread runs every batch until they are up, and a pipeline
   * that stays light never starts them). Settles once each built its processor chain, at once for
   * a stream without workers; rejects with why one could not, which also ends the stream.
   */
  async startWorkers(): Promise<void> {
    await this.build();
    await this.pool?.start();
  }

  /** Why the stream must end though its input did not (a pipeline worker that could not start). */
  private failure: { error: unknown } | undefined;

  /** Ends the stream with `error`: reading stops, what was read is delivered, then run() rejects with it. */
  private fail(error: unknown): void {
    // After the end (a short stream can finish inline before its workers have started) nothing is owed.
    if (this.closed) return;
    this.failure ??= { error };
    void this.closeInput();
  }

  private inputClosing: Promise<void> | undefined;

  /** Closes the input once (a stop and a failure may both ask), after a build under way. */
  private closeInput(): Promise<void> {
    return (this.inputClosing ??= (async () => {
      // Stopped while still building: close the input once it exists.
      await this.building?.catch(() => undefined);
      await this.input?.close();
    })().catch((err: unknown) => this.log.warn(`Error closing input: ${errorMessage(err)}`)));
  }

  private track(ack: Ack, messages: number): Ack {
    this.outstanding++;
    this.pipelineMessages += messages;
    return (err?: Error) => {
      ack(err);
      this.pipelineMessages -= messages;
      if (--this.outstanding === 0) for (const w of this.idleWaiters.splice(0)) w();
    };
  }

  private drained(): Promise<void> {
    if (this.outstanding === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private async deliver(tx: Transaction, sink: Sink, process: Process): Promise<void> {
    const ack = this.track(tx.ack, tx.batch.length);
    let batches: Batch[];
    const requesters = requestersOf(tx.batch);
    // Nobody waits for it any more (clients that left while it was queued): nothing to do.
    if (requesters?.every((q) => q.gone)) return ack();
    // No pipeline processors: the transaction's batches go to the output as they came.
    if (this.passThrough) return this.output(sink, tx.batch, tx.parts, ack);
    try {
      const r = process(tx.batch, tx.parts);
      if (r instanceof Promise && requesters !== undefined) {
        // Every requester leaving frees this slot at once; the processors' result is then dropped.
        const left = allGone(requesters).then(() => undefined);
        r.catch(() => undefined);
        const done = await Promise.race([r, left]);
        if (done === undefined) return ack();
        batches = done;
      } else batches = r instanceof Promise ? await r : r;
    } catch (err) {
      // Only the pool can fail here (a processor that throws flags messages instead).
      this.log.error(`Pipeline failed, the transaction is nacked and replayed: ${errorMessage(err)}`);
      return ack(err instanceof Error ? err : new Error(String(err)));
    }
    if (batches.length === 0) return ack();
    if (batches.length === 1) return this.output(sink, batches[0]!, undefined, ack);
    const joined = joinBatches(batches);
    return this.output(sink, joined.batch, joined.parts, ack);
  }

  /** Hands a transaction's batches to the output: together where it takes them so, else one by one. */
  private async output(sink: Sink, batch: Batch, parts: readonly number[] | undefined, ack: Ack): Promise<void> {
    const r = parts === undefined ? sink.send(batch, ack) : sink.sendAll ? sink.sendAll(batch, parts, ack) : this.sendEach(sink, batch, parts, ack);
    if (r) await r;
  }

  private async sendEach(sink: Sink, batch: Batch, parts: readonly number[], ack: Ack): Promise<void> {
    const batches = batchesOf(batch, parts);
    const acks = ackPerPart(ack, batch, parts);
    for (let i = 0; i < batches.length; i++) {
      const r = sink.send(batches[i]!, acks[i]!);
      if (r) await r;
    }
  }

  private async runInline(input: Source, sink: Sink, process: Process): Promise<void> {
    for (;;) {
      const r = input.read();
      const tx = r instanceof Promise ? await r : r;
      if (tx === END_OF_INPUT) return;
      if (tx === FLUSH) continue;
      await this.deliver(tx, sink, process);
    }
  }

  private async runLanes(input: Source, sink: Sink, process: Process, lanes: number): Promise<void> {
    const queue = new Channel<Transaction>(lanes);
    const dispatch = this.dispatch;
    // Transactions the input says are independent (it asked for `concurrency`: requests, say)
    // are not waited for when delivered inline below, so that delivery holds one of the lanes.
    const independent = (input.concurrency ?? 1) > 1 && dispatch !== undefined;
    /** Transactions being delivered now (by the lanes, and inline). */
    let busy = 0;
    const workers = Array.from({ length: independent ? lanes - 1 : lanes }, async () => {
      for (;;) {
        const r = queue.pop();
        const tx = r instanceof Promise ? await r : r;
        if (tx === END_OF_INPUT) return;
        busy++;
        await this.deliver(tx, sink, process);
        busy--;
      }
    });
    /** Why a delivery not awaited here failed (it ends the loop as an awaited one would). */
    let undelivered: { error: unknown } | undefined;
    try {
      for (;;) {
        if (undelivered) throw undelivered.error;
        const r = input.read();
        const tx = r instanceof Promise ? await r : r;
        if (tx === END_OF_INPUT) break;
        if (tx === FLUSH) continue;
        // A cheap chain that runs inline anyway, with no lane busy: delivered here as with one
        // lane (in order), without the hand-over to a lane. Independent transactions are not
        // waited for: a chain that awaits I/O (a gateway's Redis lookup) would otherwise take
        // them one at a time; the next one finds this one busy and goes to a lane.
        if (busy === 0 && queue.size === 0 && dispatch?.inlineNow) {
          if (!independent) {
            await this.deliver(tx, sink, process);
            continue;
          }
          busy++;
          this.deliver(tx, sink, process).then(
            () => busy--,
            (error: unknown) => {
              busy--;
              undelivered ??= { error };
            },
          );
          continue;
        }
        const pushed = queue.push(tx);
        if (pushed) await pushed;
      }
    } finally {
      queue.close();
      await Promise.all(workers);
    }
  }

  /**
   * Stops reading and drains: resolves true once every message read was delivered (or handed
   * back to its input) and outputs can close, false when `timeoutMs` passed first. A message
   * waiting for a replay or in a retry back-off is still in flight: the drain waits for it.
   */
  async stop(timeoutMs: number): Promise<boolean> {
    // Ended already (its input ended or failed): everything is closed, nothing is owed.
    if (this.closed) return this.ledger.messages === 0;
    if (this.stopping) return false;
    this.stopping = true;
    this.log.info('Shutting down: stopping the input and draining in-flight messages');
    const closeInput = this.closeInput();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((r) => (timer = setTimeout(() => r(false), timeoutMs)));
    const done = (async () => {
      await closeInput;
      await this.loop?.catch(() => undefined);
      await this.drained();
      await this.ledger.idle();
      // Then the outputs close (after a final flush), the pool and the resources.
      await this.running?.catch(() => undefined);
      return true as const;
    })();
    const ok = await Promise.race([done, timedOut]);
    clearTimeout(timer);
    if (!ok) {
      // Counted in messages, as they were read (a transaction may carry a batch of many).
      const owed = Math.max(this.ledger.messages, this.pipelineMessages);
      this.log.error(
        `Could not deliver ${owed} message(s) within shutdown_timeout (${this.pipelineMessages} of them in the pipeline, ` +
          'the rest waiting for a replay or a retry): they were not acknowledged at their input; raise shutdown_timeout to wait longer',
      );
    }
    return ok;
  }

  /** Messages read by the inputs and not yet delivered or handed back to them. */
  get undelivered(): number {
    return this.ledger.messages;
  }

  private closed = false;

  private async shutdownComponents(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Closed already by stop() or a failure (not awaited: that close may wait for this build).
    if (!this.inputClosing) await this.input?.close().catch(() => undefined);
    try {
      await this.sink?.close();
    } catch (err) {
      this.log.warn(`Error closing output: ${errorMessage(err)}`);
    }
    await this.pool?.close();
    await this.builder.close();
    // Last, so that the final push and file hold every count (shared ones: their owner's job).
    if (!this.opts.observability) await this.builder.obs.close();
  }

  /** The stream's metrics and tracer (none until `build()`). */
  get observability(): Observability {
    return this.builder.obs;
  }

  /** Transactions read but not yet acked. */
  get inFlight(): number {
    return this.outstanding;
  }
}

/**
 * Whether a config runs processors anywhere: the pipeline's, an input's or output's own, a
 * batching policy's, a broker child's (any non-empty `processors` list, at any depth).
 */
function hasProcessors(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasProcessors);
  if (node === null || typeof node !== 'object') return false;
  for (const [k, v] of Object.entries(node)) {
    if (k === 'processors' && Array.isArray(v) && v.length > 0) return true;
    if (hasProcessors(v)) return true;
  }
  return false;
}

/** The resources a pipeline worker builds: those processors can name (inputs and outputs stay here). */
function workerResources(c: ResourceConfigs): ResourceConfigs {
  return { cache_resources: c.cache_resources ?? [], rate_limit_resources: c.rate_limit_resources ?? [], processor_resources: c.processor_resources ?? [] };
}
