/**
 * Processor spans across threads: a worker cannot make spans (the tracer and the messages' spans
 * live on the main thread), so for a traced task it logs each processor call (component, times,
 * the origins of the messages it processed, their errors) and sends the log back with the
 * result; the main thread makes the spans from it, as children of the origins' spans.
 */
import { contextKey } from '../message/context.js';
import type { Batch } from '../message/message.js';
import type { CallRecorder, ComponentRef } from '../observability/probes.js';
import { epochMs, SPAN_KEY, type SpanAttributes, type Tracer } from '../observability/tracer.js';
import { originOf } from './origin.js';

/** One processor call on a worker, for a traced task. */
export interface ProcessorCall {
  path: string;
  label: string;
  type: string;
  /** Epoch milliseconds. */
  start: number;
  end: number;
  /** Origin indexes (in the task's batch) of the messages the call processed. */
  origins: number[];
  /** The error text per origin, where the message came out flagged. */
  errors?: Array<string | null>;
}

/** Runtime-private, worker-only: the call log of a traced task, set on each of its messages. */
export const CALL_LOG_KEY = contextKey<ProcessorCall[]>('svc.call_log');

/** The worker's recorder: logs calls on batches whose messages carry a call log. */
export const WORKER_CALLS: CallRecorder = {
  start(batch, component) {
    const m = batch[0];
    if (m === undefined || !m.hasCtx()) return undefined;
    const log = m.ctx.get(CALL_LOG_KEY);
    if (log === undefined) return undefined;
    const start = epochMs();
    return (failure) => log.push(callOf(batch, component, start, failure));
  },
};

function callOf(batch: Batch, c: ComponentRef, start: number, failure: string | undefined): ProcessorCall {
  const origins: number[] = [];
  let errors: Array<string | null> | undefined;
  for (const m of batch) {
    const o = originOf(m);
    if (o < 0) continue;
    const err = failure ?? m.error;
    if (err !== undefined) (errors ??= new Array<string | null>(origins.length).fill(null))[origins.length] = err;
    else if (errors) errors[origins.length] = null;
    origins.push(o);
  }
  const t: ProcessorCall = { path: c.path, label: c.label, type: c.type, start, end: epochMs(), origins };
  if (errors) t.errors = errors;
  return t;
}

/** On the main thread: a span per logged call and origin, under that origin's span. */
export function spansFromCalls(tracer: Tracer, batch: Batch, calls: readonly ProcessorCall[]): void {
  for (const t of calls) {
    const attributes: SpanAttributes = {
      'svc.component.kind': 'processor',
      'svc.component.path': t.path,
      'svc.component.label': t.label,
      'svc.component.type': t.type,
    };
    for (let i = 0; i < t.origins.length; i++) {
      const m = batch[t.origins[i]!];
      if (m === undefined || !m.hasCtx()) continue;
      const parent = m.ctx.get(SPAN_KEY);
      if (parent === undefined) continue;
      const s = tracer.startSpan(t.label, { parent, attributes, startTimeMs: t.start });
      if (s === undefined) continue;
      const err = t.errors?.[i];
      if (err) s.recordError(err);
      s.end(t.end);
    }
  }
}
