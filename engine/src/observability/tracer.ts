/**
 * The one tracer interface of the engine. Backends are `tracer` components registered by plugins
 * (`registerTracer`; the built-in jaeger-client and OpenTelemetry ones live in
 * `plugins/src/tracing`), and the engine depends on none of them. Components never touch a
 * backend: the runtime starts a root span per message at ingestion, a child span per processor
 * and per output write, and plugins propagate context with the functions of `propagation.ts`.
 * With no tracer configured (`none`, the engine's own) `enabled` is false and the runtime checks
 * nothing else: disabled tracing is one boolean per batch.
 */
import type { Message } from '../message/message.js';
import { contextKey } from '../message/context.js';

/** The identity of a span, as it travels between processes (W3C trace context, uber-trace-id). */
export interface TraceContext {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  sampled: boolean;
  /** The W3C `tracestate` header, passed on untouched. */
  traceState?: string;
}

export type SpanAttributes = Record<string, string | number | boolean>;

/** A span of a tracing backend. */
export interface Span {
  /** Its identity, for propagation to the next process. */
  context(): TraceContext;
  setAttribute(key: string, value: string | number | boolean): void;
  /** Marks the span failed, with why. */
  recordError(message: string): void;
  /** Ends the span; `endTimeMs` is milliseconds since the epoch (fractions allowed), now when absent. */
  end(endTimeMs?: number): void;
}

export interface SpanOptions {
  /** A local span or a remote context; a root span when absent. */
  parent?: Span | TraceContext;
  attributes?: SpanAttributes;
  /** Milliseconds since the epoch (fractions allowed); now when absent. */
  startTimeMs?: number;
}

/** What a `tracer` component's factory returns. */
export interface Tracer {
  /** False only for the `none` tracer: the runtime then skips every tracing step. */
  readonly enabled: boolean;
  /** Starts a span, or returns undefined when its trace is not sampled. */
  startSpan(name: string, options?: SpanOptions): Span | undefined;
  /**
   * Optional: decides for up to `n` next parentless root spans at once, returning how many of
   * them in a row, from the first, are sampled out (the caller starts none for them); 0 when the
   * next one is sampled or the tracer cannot tell ahead. An input then pays nothing per
   * sampled-out message (not even a call).
   */
  skipRoots?(n: number): number;
  /** Sends what is buffered. */
  flush?(): Promise<void>;
  /** Flushes and releases the backend's clients. */
  close?(): Promise<void>;
}

/** The `none` tracer. */
export const NOOP_TRACER: Tracer = {
  enabled: false,
  startSpan: () => undefined,
};

/**
 * The runtime's tracing keys of a message's ctx (not part of the public API: plugins use
 * `spanOf`, `traceContextOf`, `setTraceParent`). Both stay on the main thread: a span is a live
 * object, and spans are made there (a worker logs its calls instead).
 */
export const SPAN_KEY = contextKey<Span>('svc.span');
export const PARENT_KEY = contextKey<TraceContext>('svc.trace_parent');

/**
 * Milliseconds since the epoch with sub-millisecond precision, comparable across threads: the
 * clock of every span time the runtime passes (`startTimeMs`, `end()`). A tracer backend uses it
 * too when a time is absent, so that its spans line up with the runtime's.
 */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * True for a local span (as opposed to a remote context): how a tracer backend's `startSpan`
 * tells a parent it made itself from one an input extracted from another process.
 */
export function isSpan(x: Span | TraceContext): x is Span {
  return typeof (x as Span).context === 'function';
}

/** The root span the runtime started for a message at ingestion, if it was sampled. */
export function spanOf(message: Message): Span | undefined {
  if (!message.hasCtx()) return undefined;
  return message.ctx.get(SPAN_KEY);
}

/**
 * The context a message continues: its span's, else the remote parent an input extracted.
 * This is what an output injects into the next hop.
 */
export function traceContextOf(message: Message): TraceContext | undefined {
  if (!message.hasCtx()) return undefined;
  const span = message.ctx.get(SPAN_KEY);
  if (span) return span.context();
  return message.ctx.get(PARENT_KEY);
}

/**
 * Sets the remote parent of a message (from its request headers, its Kafka headers): the root
 * span the runtime starts at ingestion becomes its child. Call it in `read()`, before returning.
 */
export function setTraceParent(message: Message, parent: TraceContext | undefined): void {
  if (parent) message.ctx.set(PARENT_KEY, parent);
}
