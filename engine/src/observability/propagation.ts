/**
 * Trace context propagation, independent of the tracing backend: W3C `traceparent` /
 * `tracestate` and Jaeger's `uber-trace-id`, read from HTTP headers and from the text maps of
 * `extract_tracing_map` / `inject_tracing_map` (Kafka headers). Inputs call the extract
 * functions in `read()`; the runtime then starts each message's root span as a child of what
 * was extracted. Outputs call the inject functions in `write()`.
 */
import type { Mapping } from '../interp/mapping.js';
import { Message } from '../message/message.js';
import { isSpan, setTraceParent, traceContextOf, type Span, type TraceContext } from './tracer.js';

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;
const ZERO32 = '0'.repeat(32);
const ZERO16 = '0'.repeat(16);

/** Parses a W3C `traceparent` value (`00-<trace-id>-<span-id>-<flags>`); undefined when invalid. */
export function parseTraceparent(value: string | undefined, traceState?: string): TraceContext | undefined {
  if (!value) return undefined;
  const parts = value.trim().toLowerCase().split('-');
  if (parts.length < 4) return undefined;
  const [version, traceId, spanId, flags] = parts as [string, string, string, string];
  if (!/^[0-9a-f]{2}$/.test(version) || version === 'ff') return undefined;
  // Version 00 has exactly four fields; later versions may append more.
  if (version === '00' && parts.length !== 4) return undefined;
  if (!HEX32.test(traceId) || traceId === ZERO32 || !HEX16.test(spanId) || spanId === ZERO16) return undefined;
  if (!/^[0-9a-f]{2}$/.test(flags)) return undefined;
  const ctx: TraceContext = { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 };
  if (traceState) ctx.traceState = traceState;
  return ctx;
}

/** Formats a context as a W3C `traceparent` value. */
export function formatTraceparent(ctx: TraceContext): string {
  return `00-${ctx.traceId}-${ctx.spanId}-${ctx.sampled ? '01' : '00'}`;
}

/**
 * Parses Jaeger's `uber-trace-id` (`{trace-id}:{span-id}:{parent-span-id}:{flags}`, hex, leading
 * zeros optional, sometimes URL-encoded); undefined when invalid.
 */
export function parseUberTraceId(value: string | undefined): TraceContext | undefined {
  if (!value) return undefined;
  let v = value.trim();
  if (v.includes('%')) {
    try {
      v = decodeURIComponent(v);
    } catch {
      return undefined;
    }
  }
  const parts = v.toLowerCase().split(':');
  if (parts.length !== 4) return undefined;
  const [traceId, spanId, , flags] = parts as [string, string, string, string];
  if (!/^[0-9a-f]{1,32}$/.test(traceId) || !/^[0-9a-f]{1,16}$/.test(spanId) || !/^[0-9a-f]{1,2}$/.test(flags)) return undefined;
  const t = traceId.padStart(32, '0');
  const s = spanId.padStart(16, '0');
  if (t === ZERO32 || s === ZERO16) return undefined;
  // Bit 1: sampled; bit 2: debug (which implies sampled).
  const f = parseInt(flags, 16);
  return { traceId: t, spanId: s, sampled: (f & 1) === 1 || (f & 2) === 2 };
}

/** Formats a context as an `uber-trace-id` value (128-bit trace ids keep all 32 digits). */
export function formatUberTraceId(ctx: TraceContext): string {
  const traceId = ctx.traceId.startsWith(ZERO16) ? ctx.traceId.slice(16) : ctx.traceId;
  return `${traceId}:${ctx.spanId}:0:${ctx.sampled ? '1' : '0'}`;
}

/** Headers as node's `IncomingHttpHeaders`, a plain record in any case, or a fetch `Headers`. */
export type HeaderCarrier = Record<string, string | string[] | undefined> | { get(name: string): string | null | undefined };

function header(headers: HeaderCarrier, name: string, keysLowerCase: boolean): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null | undefined }).get(name) ?? undefined;
  }
  const rec = headers as Record<string, string | string[] | undefined>;
  let v = rec[name];
  if (v === undefined && !keysLowerCase) {
    for (const k in rec) {
      if (k.toLowerCase() === name) {
        v = rec[k];
        break;
      }
    }
  }
  if (Array.isArray(v)) return v[0];
  return typeof v === 'string' ? v : v === undefined || v === null ? undefined : String(v);
}

/**
 * Extracts the remote parent from HTTP headers: W3C `traceparent` (with `tracestate`) first,
 * else `uber-trace-id`. Undefined when neither holds a valid context. `keysLowerCase`: the
 * record's names are lower-case already (node's `req.headers`), so an absent header is not
 * looked for in other cases (a request without trace headers costs three lookups, not a scan).
 */
export function extractTraceHeaders(headers: HeaderCarrier, keysLowerCase = false): TraceContext | undefined {
  const traceparent = header(headers, 'traceparent', keysLowerCase);
  const w3c = traceparent === undefined ? undefined : parseTraceparent(traceparent, header(headers, 'tracestate', keysLowerCase));
  return w3c ?? parseUberTraceId(header(headers, 'uber-trace-id', keysLowerCase));
}

/** The propagation fields of a context, as a text map: `traceparent`, `tracestate`, `uber-trace-id`. */
export function traceTextMap(ctx: TraceContext): Record<string, string> {
  const map: Record<string, string> = { traceparent: formatTraceparent(ctx), 'uber-trace-id': formatUberTraceId(ctx) };
  if (ctx.traceState) map.tracestate = ctx.traceState;
  return map;
}

function contextOf(from: Message | Span | TraceContext): TraceContext | undefined {
  if (from instanceof Message) return traceContextOf(from);
  return isSpan(from) ? from.context() : from;
}

/**
 * Injects a message's trace context (its span, else the parent it came with) into outgoing
 * HTTP headers, in both the W3C and the Jaeger format. Does nothing when the message is not
 * traced. Returns `headers`.
 */
export function injectTraceHeaders<H extends Record<string, string | string[] | undefined>>(from: Message | Span | TraceContext, headers: H): H {
  const ctx = contextOf(from);
  if (ctx) Object.assign(headers, traceTextMap(ctx));
  return headers;
}

/**
 * `extract_tracing_map`: runs the mapping on the message; its result is a text map (for example
 * `root = @`, all metadata) from which the parent context is read, as from headers. The message's
 * root span then continues that trace. Returns what was extracted; throws when the mapping fails.
 */
export function extractTracingMap(message: Message, mapping: Mapping): TraceContext | undefined {
  const { root } = mapping.exec(message, { batch: [message], index: 0 });
  if (root === null || typeof root !== 'object' || Array.isArray(root)) return undefined;
  const map: Record<string, string | string[] | undefined> = {};
  for (const [k, v] of Object.entries(root as Record<string, unknown>)) {
    if (typeof v === 'string') map[k] = v;
    else if (Buffer.isBuffer(v)) map[k] = v.toString('utf8');
  }
  const ctx = extractTraceHeaders(map);
  setTraceParent(message, ctx);
  return ctx;
}

/**
 * `inject_tracing_map`: runs the mapping with `this` = the message's text map (see
 * {@link traceTextMap}) and `@` = its metadata, and applies the result onto the message: new
 * metadata when the mapping assigns it (`meta = @.merge(this)`), new content when it assigns
 * `root`. Does nothing when the message is not traced; throws when the mapping fails.
 */
export function injectTracingMap(message: Message, mapping: Mapping): void {
  const ctx = traceContextOf(message);
  if (!ctx) return;
  const carrier = new Message();
  carrier.setJson(traceTextMap(ctx));
  for (const [k, v] of message.metaEntries()) carrier.setMeta(k, v);
  const res = mapping.exec(carrier, { batch: [carrier], index: 0 });
  if (res.meta !== undefined) {
    message.clearMeta();
    for (const [k, v] of res.meta) message.setMeta(k, v);
  }
  if (res.root !== undefined) {
    if (typeof res.root === 'string') message.content = Buffer.from(res.root, 'utf8');
    else if (res.root instanceof Uint8Array) message.content = Buffer.from(res.root);
    else message.setJson(res.root);
  }
}
