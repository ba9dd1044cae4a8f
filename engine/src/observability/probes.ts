/**
 * Probes: what the runtime calls at each component to keep the standard metrics and spans,
 * so that no component (a custom plugin included) does it by hand. One probe per component,
 * its metric children bound once; per batch a probe adds to counters, times the batch, and only
 * when a tracer is configured touches the messages' spans.
 */
import { flaggedCount, type Batch, type Message } from '../message/message.js';
import type { Ack, Transaction } from '../message/transaction.js';
import type { Processor, RateLimit } from '../plugin/types.js';
import type { ConnectionWatcher } from '../runtime/connection.js';
import { appendBatches, eachPart, flagThrown, type PartsProcessor } from '../runtime/processor-chain.js';
import type { ComponentStatus } from '../runtime/status.js';
import type { Counter, Gauge, StreamMetrics } from './metrics.js';
import { StageTimer } from './stage-timer.js';
import { PARENT_KEY, SPAN_KEY, type Span, type SpanAttributes, type SpanOptions, type TraceContext, type Tracer } from './tracer.js';

/** Which component a probe watches. */
export interface ComponentRef {
  path: string;
  label: string;
  type: string;
}

/**
 * Logs processor calls where spans cannot be made (a pipeline worker: the main thread makes them
 * from the log, see workers/call-log.ts).
 */
export interface CallRecorder {
  /**
   * A call of `component` on `batch` starts: returns what to call when it ended (with the error
   * of a call that threw), or undefined when the batch is not traced.
   */
  start(batch: Batch, component: ComponentRef): ((failure: string | undefined) => void) | undefined;
}

interface Common extends ComponentRef {
  metrics: StreamMetrics;
  /** The tracer, only when one is configured (main thread). */
  tracer: Tracer | undefined;
}

function attributesOf(kind: string, c: Common): SpanAttributes {
  return { 'svc.component.kind': kind, 'svc.component.path': c.path, 'svc.component.label': c.label, 'svc.component.type': c.type };
}

function unflagged(batch: Batch): number {
  let n = 0;
  for (let i = 0; i < batch.length; i++) if (batch[i]!.error === undefined) n++;
  return n;
}

/**
 * Root spans started on this thread and not yet ended. While there are none (every trace sampled
 * out), no message can carry a span, and the processors' and outputs' probes skip their walk over
 * the batch: a sampled-out message then costs its one sampling decision at the input.
 */
let liveRoots = 0;

/**
 * Child spans (of each message's root span) for a batch; undefined when no message is traced.
 * Callers check `liveRoots > 0` first, so that nothing is called while every trace is sampled out.
 */
function childSpans(tracer: Tracer, name: string, attributes: SpanAttributes, batch: Batch): Array<Span | undefined> | undefined {
  let spans: Array<Span | undefined> | undefined;
  for (let i = 0; i < batch.length; i++) {
    const m = batch[i]!;
    if (!m.hasCtx()) continue;
    const parent = m.ctx.get(SPAN_KEY);
    if (parent === undefined) continue;
    const s = tracer.startSpan(name, { parent, attributes });
    if (s) (spans ??= new Array(batch.length))[i] = s;
  }
  return spans;
}

/** How many spans a root-span array holds. */
function rootsIn(spans: Array<Span | undefined>): number {
  let n = 0;
  for (let i = 0; i < spans.length; i++) if (spans[i] !== undefined) n++;
  return n;
}

function endSpans(spans: Array<Span | undefined>, batch: Batch | undefined, failure: string | undefined): void {
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i];
    if (s === undefined) continue;
    const err = failure ?? batch?.[i]?.error;
    if (err !== undefined) s.recordError(err);
    s.end();
  }
}

/** Keeps a connection gauge in step with a component's status (read by /ready too). */
function mirrorConnection(status: ComponentStatus, gauge: Gauge): void {
  let connected = status.connected;
  gauge.set(connected ? 1 : 0);
  Object.defineProperty(status, 'connected', {
    enumerable: true,
    get: () => connected,
    set: (v: boolean) => {
      connected = v;
      gauge.set(v ? 1 : 0);
    },
  });
}

/** The input side: counts what is read, times read → ack, starts each message's root span. */
export class InputProbe implements ConnectionWatcher {
  private readonly received: Counter;
  private readonly connectionFailures: Counter;
  private readonly connectionLosses: Counter;
  private readonly batchReceived: Counter;
  private readonly errors: Counter;
  private readonly batchErrors: Counter;
  private readonly timer: StageTimer;
  private readonly retry: Gauge;
  private retries = 0;
  private readonly running: Gauge;
  private readonly tracer: Tracer | undefined;
  private readonly attributes: SpanAttributes;
  private readonly rootOptions: SpanOptions;

  constructor(private readonly c: Common) {
    const m = c.metrics;
    this.received = m.standard('input_received', c.path, c.label);
    this.batchReceived = m.standard('input_batch_received', c.path, c.label);
    this.errors = m.standard('input_error', c.path, c.label);
    this.batchErrors = m.standard('input_batch_error', c.path, c.label);
    this.timer = new StageTimer(m.standard('input_latency', c.path, c.label), m.standard('input_batch_latency', c.path, c.label), m.enabled, true);
    this.retry = m.standard('input_retry', c.path, c.label);
    this.connectionFailures = m.standard('input_connection_failed', c.path, c.label);
    this.connectionLosses = m.standard('input_connection_lost', c.path, c.label);
    this.running = m.standard('input_running', c.path, c.label);
    m.standard<Gauge>('input_count', c.path, c.label).set(1);
    this.running.set(1);
    this.tracer = c.tracer;
    this.attributes = attributesOf('input', c);
    this.rootOptions = { attributes: this.attributes };
  }

  watch(status: ComponentStatus): void {
    mirrorConnection(status, this.c.metrics.standard('input_connection_up', this.c.path, this.c.label));
  }

  /** A transaction was read: count it; time it and end its spans when it is acked. */
  read(tx: Transaction): Transaction {
    if (this.retries !== 0) this.retrying(0); // reading again after failures
    const batch = tx.batch;
    this.received.inc(batch.length);
    this.batchReceived.inc(tx.parts?.length ?? 1);
    const spans = this.tracer !== undefined ? this.startRoots(this.tracer, batch) : undefined;
    const t0 = this.timer.begin();
    if (t0 < 0 && spans === undefined) return tx; // neither timed nor traced: the ack is untouched
    const weight = this.timer.weight;
    const timer = this.timer;
    const ack = tx.ack;
    const n = batch.length;
    const wrapped: Ack = (err) => {
      timer.end(t0, n, weight);
      if (spans !== undefined) {
        endSpans(spans, undefined, err ? err.message : undefined);
        liveRoots -= rootsIn(spans);
      }
      ack(err);
    };
    return tx.parts ? { batch, ack: wrapped, parts: tx.parts } : { batch, ack: wrapped };
  }

  /**
   * Parentless roots the tracer already sampled out for this input (`skipRoots`), carried from
   * batch to batch: they start no span and cost no call.
   */
  private skip = 0;

  /** Root spans for the messages that have none yet (a broker's children started theirs). */
  private startRoots(tracer: Tracer, batch: Batch): Array<Span | undefined> | undefined {
    const n = batch.length;
    if (tracer.skipRoots !== undefined && this.skip < n) this.skip += tracer.skipRoots(n - this.skip);
    // The whole batch sampled out and no message with a parent or a span (only a ctx holds
    // those): nothing to start, and one look at each message.
    if (this.skip >= n) {
      let i = 0;
      while (i < n && !batch[i]!.hasCtx()) i++;
      if (i === n) {
        this.skip -= n;
        return undefined;
      }
    }
    let spans: Array<Span | undefined> | undefined;
    for (let i = 0; i < n; i++) {
      const m: Message = batch[i]!;
      let parent: TraceContext | undefined;
      if (m.hasCtx()) {
        if (m.ctx.has(SPAN_KEY)) continue;
        parent = m.ctx.get(PARENT_KEY);
      }
      if (parent === undefined) {
        if (this.skip === 0 && tracer.skipRoots !== undefined) this.skip = tracer.skipRoots(n - i);
        if (this.skip > 0) {
          this.skip--;
          continue;
        }
      }
      // Most messages have no parent: their options are made once, not per message.
      const s = tracer.startSpan(this.c.label, parent === undefined ? this.rootOptions : { parent, attributes: this.attributes });
      if (s === undefined) continue;
      m.ctx.set(SPAN_KEY, s);
      (spans ??= new Array(batch.length))[i] = s;
      liveRoots++;
    }
    return spans;
  }

  /** A read failed (not a lost connection). */
  failed(): void {
    this.errors.inc(1);
    this.batchErrors.inc(1);
  }

  /** Consecutive failed attempts so far; 0 once healthy again. */
  retrying(attempts: number): void {
    this.retries = attempts;
    this.retry.set(attempts);
  }

  connectionFailed(): void {
    this.connectionFailures.inc(1);
  }

  connectionLost(): void {
    this.connectionLosses.inc(1);
  }

  closed(): void {
    this.running.set(0);
  }
}

/** The output side: counts and times each write, with a child span per message. */
export class OutputProbe implements ConnectionWatcher {
  private readonly sent: Counter;
  private readonly connectionFailures: Counter;
  private readonly connectionLosses: Counter;
  private readonly batchSent: Counter;
  private readonly errors: Counter;
  private readonly batchErrors: Counter;
  private readonly timer: StageTimer;
  private readonly retry: Gauge;
  private readonly running: Gauge;
  /** A tracer is configured. */
  private readonly traced: boolean;
  private readonly attributes: SpanAttributes;

  constructor(private readonly c: Common) {
    const m = c.metrics;
    this.sent = m.standard('output_sent', c.path, c.label);
    this.batchSent = m.standard('output_batch_sent', c.path, c.label);
    this.errors = m.standard('output_error', c.path, c.label);
    this.batchErrors = m.standard('output_batch_error', c.path, c.label);
    this.timer = new StageTimer(m.standard('output_latency', c.path, c.label), m.standard('output_batch_latency', c.path, c.label), m.enabled);
    this.retry = m.standard('output_retry', c.path, c.label);
    this.connectionFailures = m.standard('output_connection_failed', c.path, c.label);
    this.connectionLosses = m.standard('output_connection_lost', c.path, c.label);
    this.running = m.standard('output_running', c.path, c.label);
    m.standard<Gauge>('output_count', c.path, c.label).set(1);
    this.running.set(1);
    this.traced = c.tracer !== undefined;
    this.attributes = attributesOf('output', c);
  }

  watch(status: ComponentStatus): void {
    mirrorConnection(status, this.c.metrics.standard('output_connection_up', this.c.path, this.c.label));
  }

  /**
   * True when a batch may carry spans: a tracer is configured and some root span is open on this
   * thread. Checked before any call, so that a stream whose every trace is sampled out pays one
   * comparison a write for tracing.
   */
  get tracing(): boolean {
    return this.traced && liveRoots > 0;
  }

  /** Starts the write spans of a batch (call only when `tracing`). */
  startSpans(batch: Batch): Array<Span | undefined> | undefined {
    return childSpans(this.c.tracer!, this.c.label, this.attributes, batch);
  }

  /** A write attempt starts: the clock when it is timed, else -1 (see `weight`). */
  begin(): number {
    return this.timer.begin();
  }

  /** What the attempt `begin()` just chose to time stands for; read it right after. */
  get weight(): number {
    return this.timer.weight;
  }

  /** One write attempt of `n` messages ended; `t0` and `weight` from `begin()`. */
  attempted(n: number, t0: number, weight: number, err: unknown, batches = 1): void {
    if (err === undefined) {
      this.sent.inc(n);
      this.batchSent.inc(batches);
    } else {
      this.errors.inc(n);
      this.batchErrors.inc(1);
    }
    this.timer.end(t0, n, weight);
  }

  /** The batch was finally delivered (or given up on). */
  finished(spans: Array<Span | undefined> | undefined, err: unknown): void {
    if (spans !== undefined) endSpans(spans, undefined, err === undefined ? undefined : err instanceof Error ? err.message : String(err));
  }

  retrying(attempts: number): void {
    this.retry.set(attempts);
  }

  connectionFailed(): void {
    this.connectionFailures.inc(1);
  }

  connectionLost(): void {
    this.connectionLosses.inc(1);
  }

  closed(): void {
    this.running.set(0);
  }
}

/** What a processor's calls did, added up call by call and counted at once. */
class Tally {
  n = 0;
  batches = 0;
  outN = 0;
  outBatches = 0;
  dropped = 0;
  batchesDropped = 0;
  errs = 0;
  batchesWithErrors = 0;

  reset(): this {
    this.n = this.batches = this.outN = this.outBatches = this.dropped = this.batchesDropped = this.errs = this.batchesWithErrors = 0;
    return this;
  }

  /** A call on `batch` gave `out` (undefined: it threw, and the chain flags and passes on the batch). */
  add(batch: Batch, flaggedBefore: number, out: Batch[] | undefined): void {
    const n = batch.length;
    this.n += n;
    this.batches++;
    let outN = n;
    let outBatches = 1;
    // A throw: the chain is about to flag every message of the batch not flagged yet.
    const errs = flaggedCount() - flaggedBefore + (out === undefined ? unflagged(batch) : 0);
    if (out !== undefined) {
      outN = 0;
      outBatches = 0;
      for (let i = 0; i < out.length; i++) {
        const k = out[i]!.length;
        outN += k;
        if (k > 0) outBatches++;
      }
    }
    this.outN += outN;
    this.outBatches += outBatches;
    if (outN < n) {
      this.dropped += n - outN;
      if (outN === 0) this.batchesDropped++;
    }
    if (errs > 0) {
      this.errs += errs;
      this.batchesWithErrors++;
    }
  }
}

/** The processor side: wraps a processor to count, time and trace each call. */
export class ProcessorProbe {
  private readonly processed: Counter;
  private readonly batchProcessed: Counter;
  private readonly received: Counter;
  private readonly batchReceived: Counter;
  private readonly sent: Counter;
  private readonly batchSent: Counter;
  private readonly dropped: Counter;
  private readonly batchDropped: Counter;
  private readonly errors: Counter;
  private readonly batchErrors: Counter;
  private readonly timer: StageTimer;
  private readonly running: Gauge;
  private readonly attributes: SpanAttributes;

  constructor(
    private readonly c: Common,
    /** On a pipeline worker with tracing on: calls are logged for the main thread's spans. */
    private readonly calls: CallRecorder | undefined,
  ) {
    const m = c.metrics;
    this.processed = m.standard('processor_processed', c.path, c.label);
    this.batchProcessed = m.standard('processor_batch_processed', c.path, c.label);
    this.received = m.standard('processor_received', c.path, c.label);
    this.batchReceived = m.standard('processor_batch_received', c.path, c.label);
    this.sent = m.standard('processor_sent', c.path, c.label);
    this.batchSent = m.standard('processor_batch_sent', c.path, c.label);
    this.dropped = m.standard('processor_dropped', c.path, c.label);
    this.batchDropped = m.standard('processor_batch_dropped', c.path, c.label);
    this.errors = m.standard('processor_error', c.path, c.label);
    this.batchErrors = m.standard('processor_batch_error', c.path, c.label);
    this.timer = new StageTimer(m.standard('processor_latency', c.path, c.label), m.standard('processor_batch_latency', c.path, c.label), m.enabled);
    this.running = m.standard('processor_running', c.path, c.label);
    m.standard<Gauge>('processor_count', c.path, c.label).set(1);
    this.running.set(1);
    this.attributes = attributesOf('processor', c);
  }

  wrap(p: Processor): PartsProcessor {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the wrapper's own `this` is the processor
    const probe = this;
    const tracer = this.c.tracer;
    const calls = this.calls;
    const wrapped: PartsProcessor = {
      process(batch) {
        const n = batch.length;
        // Messages this call flags: the thread's flag count after minus before, no scan. (An
        // async processor's count may take in flags another one set on this thread meanwhile.)
        const errs = flaggedCount();
        // Checked here, before any call: with every trace sampled out, tracing costs this comparison.
        const spans = tracer !== undefined && liveRoots > 0 ? childSpans(tracer, probe.c.label, probe.attributes, batch) : undefined;
        const log = calls !== undefined ? calls.start(batch, probe.c) : undefined;
        const t0 = probe.timer.begin();
        const w = probe.timer.weight;
        let r: ReturnType<Processor['process']>;
        try {
          r = p.process(batch);
        } catch (err) {
          probe.done(batch, n, errs, undefined, t0, w, spans, log, err);
          throw err;
        }
        if (r instanceof Promise) {
          return r.then(
            (out) => {
              probe.done(batch, n, errs, out, t0, w, spans, log, undefined);
              return out;
            },
            (err: unknown) => {
              probe.done(batch, n, errs, undefined, t0, w, spans, log, err);
              throw err;
            },
          );
        }
        probe.done(batch, n, errs, r, t0, w, spans, log, undefined);
        return r;
      },
      processParts(batches) {
        // Traced batches get their spans (or a worker's call log) one call at a time.
        if (calls !== undefined || (tracer !== undefined && liveRoots > 0)) return eachPart(wrapped, batches);
        return probe.parts(p, batches, 0, [], new Tally());
      },
    };
    return wrapped;
  }

  /**
   * `p` on each of `batches` from `from` on, counted as {@link wrap}'s `process` counts each call,
   * into `t`, which goes to the counters once at the end.
   */
  private parts(p: Processor, batches: readonly Batch[], from: number, to: Batch[], t: Tally): Promise<Batch[]> | Batch[] {
    for (let b = from; b < batches.length; b++) {
      const batch = batches[b]!;
      const errs = flaggedCount();
      const t0 = this.timer.begin();
      const w = this.timer.weight;
      let r: ReturnType<Processor['process']>;
      try {
        r = p.process(batch);
      } catch (err) {
        this.timer.end(t0, batch.length, w);
        t.add(batch, errs, undefined);
        flagThrown(batch, err);
        to.push(batch);
        continue;
      }
      if (r instanceof Promise) {
        return r.then(
          (out) => {
            this.timer.end(t0, batch.length, w);
            t.add(batch, errs, out);
            appendBatches(to, out);
            return this.parts(p, batches, b + 1, to, t);
          },
          (err: unknown) => {
            this.timer.end(t0, batch.length, w);
            t.add(batch, errs, undefined);
            flagThrown(batch, err);
            to.push(batch);
            return this.parts(p, batches, b + 1, to, t);
          },
        );
      }
      this.timer.end(t0, batch.length, w);
      t.add(batch, errs, r);
      appendBatches(to, r);
    }
    this.count(t);
    return to;
  }

  private done(
    batch: Batch,
    n: number,
    flaggedBefore: number,
    out: Batch[] | undefined,
    t0: number,
    weight: number,
    spans: Array<Span | undefined> | undefined,
    log: ((failure: string | undefined) => void) | undefined,
    thrown: unknown,
  ): void {
    this.timer.end(t0, n, weight);
    const t = this.single.reset();
    t.add(batch, flaggedBefore, out);
    this.count(t);
    const failure = thrown === undefined ? undefined : thrown instanceof Error ? thrown.message : String(thrown);
    if (spans !== undefined) endSpans(spans, batch, failure);
    if (log !== undefined) log(failure);
  }

  /** The one call's tally of `process` (counted at once, so one will do). */
  private readonly single = new Tally();

  private count(t: Tally): void {
    this.processed.inc(t.n);
    this.batchProcessed.inc(t.batches);
    this.received.inc(t.n);
    this.batchReceived.inc(t.batches);
    this.sent.inc(t.outN);
    this.batchSent.inc(t.outBatches);
    if (t.dropped > 0) this.dropped.inc(t.dropped);
    if (t.batchesDropped > 0) this.batchDropped.inc(t.batchesDropped);
    if (t.errs > 0) {
      this.errors.inc(t.errs);
      this.batchErrors.inc(t.batchesWithErrors);
    }
  }

  closed(): void {
    this.running.set(0);
  }
}

/** Counts the failed accesses of a rate limit resource (`resource_rate_limit_error`). */
export function countRateLimitErrors(rl: RateLimit, metrics: StreamMetrics, path: string, label: string): RateLimit {
  const errors = metrics.standard<Counter>('resource_rate_limit_error', path, label);
  const failed = (err: unknown): never => {
    errors.inc(1);
    throw err;
  };
  return {
    access(key, cost) {
      try {
        const r = rl.access(key, cost);
        return typeof r === 'number' ? r : r.catch(failed);
      } catch (err) {
        return failed(err);
      }
    },
    close: rl.close ? () => rl.close!() : undefined,
  };
}
