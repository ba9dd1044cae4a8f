/**
 * Synchronous responses, as Benthos has them: a `sync_response` output or processor (or an
 * `http_client` output with `propagate_response`) stores a *response message* as the message's
 * result in the transaction's result store; once the transaction is acked, the http_server input
 * that received the request renders those responses with its own `sync_response` config (status
 * and headers interpolated against the response, `metadata_headers`) and answers with them.
 *
 * A response message is stored as an Answer (plain data, so that it comes back from worker
 * threads) carrying its metadata in `responseMeta`. An Answer without it (the gateway's
 * 401/403/429) is an explicit answer and is sent as it is.
 */
import { Message, compileInterpolation, f, storeResult, type Answer, type Infer, type Interpolation, type MetaValue } from '@svc/engine';
import { MetadataFilter, metadataFilterSpec } from './metadata-filter.js';
import { buildMultipart, canonicalHeader } from './multipart.js';

/** An answer that carries a response message, to be rendered by the receiving input. */
export interface ResponseReply extends Answer {
  responseMeta: Record<string, MetaValue>;
}

export function isResponseReply(r: Answer): r is ResponseReply {
  return typeof (r as Partial<ResponseReply>).responseMeta === 'object' && (r as Partial<ResponseReply>).responseMeta !== null;
}

/** The reply that makes `msg` (its content and metadata, as they are now) the response. */
export function responseReply(msg: Message): ResponseReply {
  return { status: 200, body: msg.content, responseMeta: msg.metaObject() };
}

/** Stores `msg`, as it is now, as the response to the request it came from; it goes on. */
export function storeResponse(msg: Message): void {
  storeResult(msg, responseReply(msg));
}

/** A body as a Buffer (one that came back from a worker thread is a Uint8Array), without a copy. */
export function bodyBuffer(body: Uint8Array | undefined): Buffer {
  if (body === undefined) return Buffer.alloc(0);
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** The response message a reply carries. */
export function responseMessage(r: ResponseReply): Message {
  return new Message(bodyBuffer(r.body), r.responseMeta);
}

export const syncResponseSpec = f
  .object({
    status: f
      .string()
      .interpolated()
      .default('200')
      .describe('The status of synchronous responses; may interpolate the response, e.g. `${! meta("status") }`.'),
    headers: f
      .map(f.string().interpolated())
      .default({ 'Content-Type': 'application/octet-stream' })
      .describe('Headers of synchronous responses; values may interpolate the response.'),
    metadata_headers: metadataFilterSpec('added to synchronous responses as headers'),
  })
  .advanced()
  .describe('How synchronous responses (set by a `sync_response` output or processor) are returned.');

export type SyncResponseConfig = Infer<typeof syncResponseSpec>;

export interface RenderedResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/** Go's http.DetectContentType, for the cases that matter here. */
export function detectContentType(body: Buffer): string {
  if (body.length === 0) return 'text/plain; charset=utf-8';
  const head = body.subarray(0, 512).toString('latin1').trimStart().toLowerCase();
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'text/html; charset=utf-8';
  if (head.startsWith('<?xml')) return 'text/xml; charset=utf-8';
  if (head.startsWith('%pdf-')) return 'application/pdf';
  for (let i = 0; i < Math.min(body.length, 512); i++) {
    const b = body[i]!;
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d && b !== 0x1b) return 'application/octet-stream';
  }
  return 'text/plain; charset=utf-8';
}

/** The answer of a request without replies (shared: never changed). */
const EMPTY_200: RenderedResponse = Object.freeze({ status: 200, headers: Object.freeze({}), body: Buffer.alloc(0) });

/** Turns stored replies into the answer of one request, with the input's `sync_response` config. */
export class ResponseRenderer {
  private readonly status: Interpolation;
  private readonly headers: Array<[string, Interpolation]>;
  private readonly contentType: Interpolation | undefined;
  private readonly metadataHeaders: MetadataFilter;

  constructor(conf: SyncResponseConfig) {
    this.status = compileInterpolation(conf.status);
    this.headers = Object.entries(conf.headers).map(([k, v]) => [canonicalHeader(k), compileInterpolation(v)]);
    this.contentType = this.headers.find(([k]) => k === 'Content-Type')?.[1];
    this.metadataHeaders = new MetadataFilter(conf.metadata_headers);
  }

  /**
   * The answer for the replies stored by a request's messages, in order: none is an empty 200;
   * one explicit reply is sent as is; response messages are rendered (several as a
   * multipart/form-data body, each part with its own Content-Type). Throws when the status
   * interpolation fails or is not a number (the caller answers 502).
   */
  render(replies: Answer[]): RenderedResponse {
    if (replies.length === 0) return EMPTY_200;
    const first = replies[0]!;
    if (!isResponseReply(first)) return { status: first.status, headers: { ...(first.headers ?? {}) }, body: bodyBuffer(first.body) };
    const batch = replies.map((r) => (isResponseReply(r) ? responseMessage(r) : new Message(bodyBuffer(r.body))));
    const ctx0 = { batch, index: 0 };
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of this.headers) {
      try {
        headers[k] = v.value(batch[0]!, ctx0);
      } catch {
        // As Benthos: a header whose interpolation fails is left out.
      }
    }
    const statusText = this.status.value(batch[0]!, ctx0).trim();
    const status = Number(statusText);
    if (!/^\d{3}$/.test(statusText) || status < 100 || status > 599) throw new Error(`sync_response.status "${statusText}" is not an HTTP status code`);
    if (batch.length === 1) {
      const m = batch[0]!;
      for (const [k, v] of this.metadataHeaders.walk(m)) headers[k] = v;
      const body = m.content;
      if (!Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) headers['Content-Type'] = detectContentType(body);
      return { status, headers, body };
    }
    const parts = batch.map((m, i) => {
      for (const [k, v] of this.metadataHeaders.walk(m)) headers[k] = v;
      let type: string;
      try {
        type = this.contentType ? this.contentType.value(m, { batch, index: i }) : detectContentType(m.content);
      } catch {
        type = detectContentType(m.content);
      }
      return { headers: { 'content-type': type }, body: m.content };
    });
    const mp = buildMultipart(parts, 'form-data');
    for (const k of Object.keys(headers)) if (k.toLowerCase() === 'content-type') delete headers[k];
    headers['Content-Type'] = mp.contentType;
    return { status, headers, body: mp.body };
  }
}
