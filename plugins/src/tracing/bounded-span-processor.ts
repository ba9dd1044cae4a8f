/**
 * The OTLP exporters' span processor: spans wait in a bounded queue and go out in batches, one
 * export at a time, so the stream never waits on a collector. When the queue is full (the
 * collector is slow or gone) a span is dropped and counted in `tracer_spans_dropped`, instead of
 * being held (memory) or making the stream wait. The SDK's BatchSpanProcessor drops the same way
 * but only says so in its debug log.
 */
import type { Counter } from '@svc/engine';
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';

export interface SpanQueueOptions {
  /** Spans held at most; further spans are dropped and counted (the SDK's default, 2048). */
  maxQueue: number;
  /** Spans per export (the SDK's default, 512). */
  maxBatch: number;
  /** How long a partial batch waits before it is exported (the SDK's default, 5 s). */
  delayMs: number;
}

export const DEFAULT_SPAN_QUEUE: SpanQueueOptions = { maxQueue: 2048, maxBatch: 512, delayMs: 5_000 };

export class BoundedSpanProcessor implements SpanProcessor {
  private queue: ReadableSpan[] = [];
  private exporting: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly exporter: SpanExporter,
    private readonly dropped: Counter,
    private readonly opts: SpanQueueOptions = DEFAULT_SPAN_QUEUE,
  ) {}

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if (this.closed) return;
    if (this.queue.length >= this.opts.maxQueue) {
      this.dropped.inc(1);
      return;
    }
    this.queue.push(span);
    if (this.queue.length >= this.opts.maxBatch) this.exportNext();
    else this.timer ??= setTimeout(() => this.exportNext(), this.opts.delayMs).unref();
  }

  /** Starts the next export unless one is running (it starts the next when it ends). */
  private exportNext(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.exporting !== undefined || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.opts.maxBatch);
    // The exporter reports failures through its result (logged by the tracer); never throws here.
    this.exporting = new Promise<void>((resolve) => this.exporter.export(batch, () => resolve())).then(() => {
      this.exporting = undefined;
      if (this.queue.length >= this.opts.maxBatch || (this.closed && this.queue.length > 0)) this.exportNext();
      else if (this.queue.length > 0) this.timer ??= setTimeout(() => this.exportNext(), this.opts.delayMs).unref();
    });
  }

  /** Exports everything queued now (bounded by the exporter's own timeout per export). */
  async forceFlush(): Promise<void> {
    while (this.exporting !== undefined || this.queue.length > 0) {
      this.exportNext();
      await this.exporting;
    }
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    await this.forceFlush();
    await this.exporter.shutdown();
  }
}
