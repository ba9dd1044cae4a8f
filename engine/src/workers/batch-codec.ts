import type { CtxWrites } from '../message/context.js';
import { holdsJsonNumber, parseJson, stringifyJson } from '../message/json.js';
import { Message, type Batch, type MetaValue } from '../message/message.js';
import type { MetricsDelta } from '../observability/worker-metrics.js';
import type { ProcessorCall } from './call-log.js';

/**
 * A batch as it crosses between threads: every content in one buffer plus offsets (the buffer
 * is transferred, not copied, on the way in), metadata and error flags only where present.
 * `origins[i]` is the index of the input message a result message came from (-1 when a
 * processor made it from nothing), so that the main thread re-attaches its `ctx`.
 * On the way in, `ctx[i]` holds the crossing ctx values of message i (by key name).
 */
export interface EncodedBatch {
  buf: ArrayBuffer;
  offsets: Uint32Array;
  metas?: Array<Record<string, MetaValue> | undefined>;
  /**
   * Metadata keys of message i whose values hold a number that keeps its text (a JsonNumber, which
   * structured clone would turn into a plain object): they cross as JSON text and are parsed back.
   */
  metaJson?: Array<string[] | undefined>;
  errors?: Array<string | undefined>;
  origins?: Int32Array;
  ctx?: Array<Array<[string, unknown]> | undefined>;
  /** On the way in: the batch is several batches of these sizes (a transaction's `parts`). */
  parts?: readonly number[];
  /** On the way in: a message of the batch is traced, so the worker logs its processor calls. */
  trace?: boolean;
}

/** What a worker sends back for one task. */
export interface EncodedResult {
  batches: EncodedBatch[];
  /** The worker's metric counts since its last result. */
  metrics?: MetricsDelta;
  /** The processor calls of a traced task, made into spans on the main thread. */
  calls?: ProcessorCall[];
  /**
   * The crossing ctx values processors set or deleted, by origin index: applied to the origin's
   * ctx on the main thread (so a result stored for a message that was then filtered comes back too).
   */
  ctx?: Array<CtxWrites | undefined>;
  /** Nanoseconds the worker spent on the task around them (decoding, ctx, encoding): its share of the hop. */
  overheadNs?: number;
}

/** Encodes a batch; `originOf` gives each message's origin index (only on the way back). */
export function encodeBatch(batch: Batch, originOf?: (m: Message) => number): EncodedBatch {
  const n = batch.length;
  const offsets = new Uint32Array(n + 1);
  let total = 0;
  for (let i = 0; i < n; i++) {
    offsets[i] = total;
    total += batch[i]!.byteLength;
  }
  offsets[n] = total;
  const bytes = Buffer.allocUnsafeSlow(total);
  let metas: EncodedBatch['metas'];
  let metaJson: EncodedBatch['metaJson'];
  let errors: EncodedBatch['errors'];
  let origins: Int32Array | undefined;
  if (originOf) origins = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const m = batch[i]!;
    m.copyContentTo(bytes, offsets[i]!);
    if (m.hasMeta()) {
      const obj = m.metaObject();
      for (const k in obj) {
        const v = obj[k];
        if (typeof v !== 'string' && holdsJsonNumber(v)) {
          obj[k] = stringifyJson(v);
          ((metaJson ??= new Array(n))[i] ??= []).push(k);
        }
      }
      (metas ??= new Array(n))[i] = obj;
    }
    if (m.error !== undefined) (errors ??= new Array(n))[i] = m.error;
    if (origins) origins[i] = originOf!(m);
  }
  const out: EncodedBatch = { buf: bytes.buffer as ArrayBuffer, offsets };
  if (metas) out.metas = metas;
  if (metaJson) out.metaJson = metaJson;
  if (errors) out.errors = errors;
  if (origins) out.origins = origins;
  return out;
}

/** The crossing ctx values of a batch going to a worker (undefined when no message has any). */
export function crossingCtxOf(batch: Batch): EncodedBatch['ctx'] {
  let out: EncodedBatch['ctx'];
  for (let i = 0; i < batch.length; i++) {
    const m = batch[i]!;
    if (!m.hasCtx()) continue;
    const c = m.ctx.crossingEntries();
    if (c !== undefined) (out ??= new Array(batch.length))[i] = c;
  }
  return out;
}

/** Decodes a batch; contents are views of the one buffer (no copy). */
export function decodeBatch(e: EncodedBatch): Batch {
  const n = e.offsets.length - 1;
  const bytes = Buffer.from(e.buf);
  const out = new Array<Message>(n);
  for (let i = 0; i < n; i++) {
    const meta = e.metas?.[i];
    const revive = e.metaJson?.[i];
    if (meta !== undefined && revive !== undefined) for (const k of revive) meta[k] = parseJson(meta[k] as string) as MetaValue;
    const m = Message.slice(bytes, e.offsets[i]!, e.offsets[i + 1]!, meta);
    const err = e.errors?.[i];
    if (err !== undefined) Message.restoreError(m, err); // not a new failure on this thread
    out[i] = m;
  }
  return out;
}
