/**
 * Body transforms as Tyk v5.14.0 runs them (`gateway/mw_transform.go` for the request,
 * `res_handler_transform.go` for the answer): the body decoded as JSON (empty: `{}`; a top-level
 * array as `.array`; any other value as no fields), the session's metadata as `._svc_meta` with
 * `enable_session`, the request's context variables as `._svc_context` with `enable_context_vars`,
 * then the template (languages/go-template.ts).
 *
 * - Request: a body that is not JSON, or a template that fails, leaves the body as it was (Tyk logs
 *   "Body transform failure"); the output's `$svc_context.*` / `$svc_meta.*` / `$secret_*` are
 *   then filled in, their values query-escaped (Tyk's ReplaceTykVariables with escaping).
 * - Answer: a body that is not JSON is given as no fields; a template that fails sends what it
 *   wrote before failing (Tyk's buffer); gzip / deflate answers are decompressed first when the
 *   client sent Accept-Encoding and compressed again after, as Tyk does.
 */
import { deflateRawSync, gunzipSync, gzipSync, inflateRawSync } from 'node:zlib';
import type { EndpointBodyTransform } from '../apis/api-spec.js';
import { parseTemplate, runTemplate, type GoTemplate } from '../languages/go-template.js';

/** Parsed templates by their text (each thread parses a template once). */
const parsed = new Map<string, GoTemplate>();

function templateOf(text: string): GoTemplate {
  let t = parsed.get(text);
  if (t === undefined) {
    // Checked at load: parsing again cannot fail.
    t = parseTemplate(text);
    if (parsed.size > 1000) parsed.clear();
    parsed.set(text, t);
  }
  return t;
}

/** A reference's value as literal text of a Go template: a `{{` in it is printed, not parsed. */
export function templateText(value: string): string {
  return value.replaceAll('{{', '{{"{{"}}');
}

/** The body as the template's data (Go's json.Unmarshal into interface{}: float64 numbers); undefined when it is not JSON. */
export function templateData(body: Buffer): Record<string, unknown> | undefined {
  if (body.length === 0) return {};
  let v: unknown;
  try {
    v = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (Array.isArray(v)) return { array: v };
  if (v !== null && typeof v === 'object') return v as Record<string, unknown>;
  return {};
}

/** What a transform adds to the body's fields. */
export interface TransformExtras {
  /** The request's context variables (only with `enable_context_vars`). */
  context?: Record<string, unknown>;
  /** The session's metadata (only with the transform's `enable_session` and a session). */
  meta?: Record<string, unknown>;
}

/** Runs `t` on `data` with the extras: the text, and the error that stopped the template. */
export function runBodyTransform(
  t: Pick<EndpointBodyTransform, 'template'>,
  data: Record<string, unknown>,
  extras: TransformExtras,
): { text: string; error?: string } {
  const fields = { ...data };
  if (extras.meta !== undefined) fields['_svc_meta'] = extras.meta;
  if (extras.context !== undefined) fields['_svc_context'] = extras.context;
  return runTemplate(templateOf(t.template), fields);
}

/**
 * The answer's body transformed (ResponseTransformMiddleware): `encoding` is the answer's
 * Content-Encoding, `clientAccepts` whether the request had Accept-Encoding.
 */
export function transformAnswer(
  t: Pick<EndpointBodyTransform, 'template'>,
  body: Buffer,
  encoding: string,
  clientAccepts: boolean,
  extras: TransformExtras,
): { body: Buffer; error?: string } {
  let plain = body;
  if (clientAccepts && (encoding === 'gzip' || encoding === 'deflate')) {
    try {
      plain = encoding === 'gzip' ? gunzipSync(body) : inflateRawSync(body);
    } catch {
      plain = Buffer.alloc(0);
    }
  }
  const r = runBodyTransform(t, templateData(plain) ?? {}, extras);
  const text = Buffer.from(r.text);
  const out = encoding === 'gzip' ? gzipSync(text) : encoding === 'deflate' ? deflateRawSync(text, { level: 1 }) : text;
  return r.error === undefined ? { body: out } : { body: out, error: r.error };
}
