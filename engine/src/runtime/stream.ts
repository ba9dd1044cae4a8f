import { availableParallelism } from 'node:os';
import type { RootConfig } from '../config/root-spec.js';
import { InputFailedError, errorMessage } from '../errors.js';
import type { Batch } from '../message/message.js';
import { END_OF_INPUT, splitAck, type Ack, type Transaction } from '../message/transaction.js';
import type { Logger, LoggerConfig } from '../observability/logger.js';
import type { Observability } from '../observability/observability.js';
import type { Registry } from '../plugin/registry.js';
import type { Input, Processor, ServiceRoutes } from '../plugin/types.js';
import { WorkerPool } from '../workers/worker-pool.js';
import { Builder } from './builder.js';
import { Channel } from './channel.js';
import { runProcessors } from './processor-chain.js';
import type { Sink } from './sink.js';
import { StatusBoard } from './status.js';
import { FLUSH } from './flush-hint.js';

export interface StreamOptions {
  config: RootConfig;
  registry: Registry;
  logger: Logger;
  /** Plugin modules (built-ins included) that worker threads load. */
  plugins: string[];
  service?: ServiceRoutes;
  status?: StatusBoard;
}

/** Turns the pipeline section into "process a batch" on this thread or on the pool. */
type Process = (batch: Batch) => Promise<Batch[]> | Batch[];

/**
 * A running stream: input → pipeline processors → output, at least once.
 *
 * No transaction is acked at the input before the output accepted its messages; back-pressure
 * runs end to end (the input reads only when the pipeline can take more). With one thread the
 * processors run inline; with more, on a worker pool, fed by a bounded channel.
 */
export class Stream {
  readonly status: StatusBoard;
  private readonly builder: Builder;
  private input: Input | undefined;
  private sink: Sink | undefined;
  private pool: WorkerPool | undefined;
  private process: Process | undefined;
  private outstanding = 0;
  private idleWaiters: Array<() => void> = [];
  private stopping = false;
  private readonly log: Logger;

  constructor(private readonly opts: StreamOptions) {
    this.status = opts.status ?? new StatusBoard();
    this.log = opts.logger;
    this.builder = new Builder({
      registry: opts.registry,
      logger: opts.logger,
      service: opts.service,
      isWorker: false,
      shared: new Map(),
      status: this.status,
    });
  }

  /** The number of pipeline threads the config asks for (-1 → logical CPUs). */
  get threads(): number {
    const t = this.opts.config.pipeline.threads;
    return t === -1 ? availableParallelism() : t;
  }

  /** Builds every component; throws (before anything runs) when one cannot be built. */
  async build(): Promise<void> {
    const c = this.opts.config;
    try {
      // Metrics and the tracer first: every component binds its metrics as it is built.
      await this.builder.buildObservability(c.metrics, c.tracer);
      await this.builder.buildRateLimits(c.rate_limit_resources);
      // Processors are built here even when they will run on the pool: a broken one fails now.
      const processors = await this.builder.processors(c.pipeline.processors);
      this.sink = await this.builder.sink(c.output);
      this.input = await this.builder.input(c.input);
      this.process = this.pipeline(processors);
      await this.builder.obs.start();
    } catch (err) {
      await this.shutdownComponents();
      throw err;
    }
  }

  private pipeline(processors: Processor[]): Process {
    const c = this.opts.config;
    const procs = c.pipeline.processors;
    const obs = this.builder.obs;
    obs.threads(procs.length === 0 || this.threads <= 1 ? 1 : this.threads);
    if (procs.length === 0) return (b) => [b];
    if (this.threads <= 1) return (b) => runProcessors(processors, b);
    const shared = [...this.builder.env.shared.entries()];
    const data = {
      plugins: this.opts.plugins,
      processors: procs,
      rateLimits: c.rate_limit_resources,
      shared,
      logger: c.logger as Partial<LoggerConfig>,
      telemetry: { metrics: obs.metrics.enabled, tracing: obs.tracer.enabled },
    };
    // Workers' counts and processor spans come back with each result to this thread's registry.
    this.pool = new WorkerPool(this.threads, data, obs.active ? obs : undefined);
    const pool = this.pool;
    return (b) => pool.process(b);
  }

  /**
   * Runs until the input ends (and everything is acked) or `stop()` is called. Rejects with the
   * input's InputFailedError once everything read before it is acked.
   */
  async run(): Promise<void> {
    if (!this.input || !this.sink) await this.build();
    const process = this.process!;
    const input = this.input!;
    const sink = this.sink!;
    try {
      let failure: InputFailedError | undefined;
      try {
        if (this.pool) await this.runPooled(input, sink, process, this.threads * 2);
        else await this.runInline(input, sink, process);
      } catch (err) {
        if (!(err instanceof InputFailedError)) throw err;
        failure = err;
      }
      await this.drained();
      if (failure) throw failure;
    } finally {
      await this.shutdownComponents();
    }
  }

  private track(ack: Ack): Ack {
    this.outstanding++;
    return (err?: Error) => {
      ack(err);
      if (--this.outstanding === 0) for (const w of this.idleWaiters.splice(0)) w();
    };
  }

  private drained(): Promise<void> {
    if (this.outstanding === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private async deliver(tx: Transaction, sink: Sink, process: Process): Promise<void> {
    const ack = this.track(tx.ack);
    let batches: Batch[];
    try {
      const r = process(tx.batch);
      batches = r instanceof Promise ? await r : r;
    } catch (err) {
      // Only the pool can fail here (a processor that throws flags messages instead).
      this.log.error(`Pipeline failed, the transaction is nacked and replayed: ${errorMessage(err)}`);
      return ack(err instanceof Error ? err : new Error(String(err)));
    }
    if (batches.length === 0) return ack();
    if (batches.length === 1) {
      const r = sink.send(batches[0]!, ack);
      if (r) await r;
      return;
    }
    const part = splitAck(ack, batches.length);
    for (const b of batches) {
      const r = sink.send(b, part);
      if (r) await r;
    }
  }

  private async runInline(input: Input, sink: Sink, process: Process): Promise<void> {
    for (;;) {
      const r = input.read();
      const tx = r instanceof Promise ? await r : r;
      if (tx === END_OF_INPUT) return;
      if ((tx as unknown) === FLUSH) continue;
      await this.deliver(tx, sink, process);
    }
  }

  private async runPooled(input: Input, sink: Sink, process: Process, lanes: number): Promise<void> {
    const queue = new Channel<Transaction>(lanes);
    const workers = Array.from({ length: lanes }, async () => {
      for (;;) {
        const r = queue.pop();
        const tx = r instanceof Promise ? await r : r;
        if (tx === END_OF_INPUT) return;
        await this.deliver(tx, sink, process);
      }
    });
    try {
      for (;;) {
        const r = input.read();
        const tx = r instanceof Promise ? await r : r;
        if (tx === END_OF_INPUT) break;
        if ((tx as unknown) === FLUSH) continue;
        await queue.push(tx);
      }
    } finally {
      queue.close();
      await Promise.all(workers);
    }
  }

  /**
   * Stops reading and drains: resolves true once in-flight transactions are acked and outputs
   * closed, false when `timeoutMs` passed first.
   */
  async stop(timeoutMs: number): Promise<boolean> {
    if (this.stopping) return false;
    this.stopping = true;
    this.log.info('Shutting down: stopping the input and draining in-flight messages');
    const closeInput = this.input?.close?.().catch((err: unknown) => this.log.warn(`Error closing input: ${errorMessage(err)}`));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((r) => (timer = setTimeout(() => r(false), timeoutMs)));
    const done = (async () => {
      await closeInput;
      await this.drained();
      return true as const;
    })();
    const ok = await Promise.race([done, timedOut]);
    clearTimeout(timer);
    if (!ok) this.log.error(`Could not drain in-flight messages within shutdown_timeout; ${this.outstanding} transaction(s) not acked`);
    return ok;
  }

  private closed = false;

  private async shutdownComponents(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.stopping) await this.input?.close?.().catch(() => undefined);
    try {
      await this.sink?.close();
    } catch (err) {
      this.log.warn(`Error closing output: ${errorMessage(err)}`);
    }
    await this.pool?.close();
    await this.builder.close();
    // Last, so that the final push and file hold every count.
    await this.builder.obs.close();
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
