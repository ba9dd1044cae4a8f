/**
 * Tyk's error overrides applied (gateway/error_overrides.go, handler_error.go tryWriteOverride,
 * res_handler_error_override.go; v5.14.0). The input binds a response to its API's overrides as it
 * routes the request; whoever writes an error on that response then asks here:
 *
 * - the gateway's own errors (Tyk's HandleError: an answer with Tyk's error body), matched by status
 *   and `message_pattern` on the error's message;
 * - the upstream's 4xx/5xx, matched by status, `body_field`/`body_value` and `message_pattern` on
 *   the first {@link MATCH_BYTES} of its body.
 *
 * A body is written as it is, or rendered from its template (`{{.StatusCode}}`, `{{.Message}}`:
 * the rule's message, JS-escaped, or HTML-escaped when the request's Content-Type is XML).
 */
import type { ServerResponse } from 'node:http';
import type { Answer } from '@svc/engine';
import { RE2JS } from 're2js';
import type { ErrorOverrideRule, ErrorOverrides } from '../apis/error-overrides.js';
import { jsEscape, tykErrorBody } from './errors.js';
import { ownValue } from './own-value.js';

/** Tyk's maxBodySizeForMatching: an upstream body is matched on its first 4 KiB. */
export const MATCH_BYTES = 4096;

const bound = new WeakMap<ServerResponse, ErrorOverrides>();

/** Compiled patterns by their text (the definitions' own: as many as the loaded rules hold). */
const compiled = new Map<string, RE2JS>();

function matches(pattern: string, text: string): boolean {
  let re = compiled.get(pattern);
  if (re === undefined) compiled.set(pattern, (re = RE2JS.compile(pattern)));
  return re.test(text);
}

/** `res` answers for an API with `overrides` (undefined: none; a loop rebinds to its target API). */
export function bindOverrides(res: ServerResponse, overrides: ErrorOverrides | undefined): void {
  if (overrides === undefined) bound.delete(res);
  else bound.set(res, overrides);
}

/** The overrides `res` answers with when its upstream answers `status`, if a rule could match. */
export function upstreamOverrides(res: ServerResponse, status: number): ErrorOverrides | undefined {
  const o = status >= 400 ? bound.get(res) : undefined;
  return o !== undefined && (o.exact.has(status) || o.byClass.has(Math.trunc(status / 100))) ? o : undefined;
}

/** First matching rule: the exact code's, then the class's. */
function find(o: ErrorOverrides, status: number, matches: (r: ErrorOverrideRule) => boolean): ErrorOverrideRule | undefined {
  return o.exact.get(status)?.find(matches) ?? o.byClass.get(Math.trunc(status / 100))?.find(matches);
}

const ERROR_BODY = /^\{\n {4}"error": "(.*)"\n\}$/s;

/** The message of one of Tyk's error bodies (undoing jsEscape), or undefined for any other body. */
function messageOf(a: Answer): string | undefined {
  if (a.status < 400 || a.body === undefined) return undefined;
  const m = ERROR_BODY.exec(Buffer.from(a.body.buffer, a.body.byteOffset, a.body.byteLength).toString());
  return m?.[1]!.replace(/\\u([0-9A-F]{4})|\\(.)/g, (_, hex: string | undefined, ch: string | undefined) =>
    hex ? String.fromCharCode(parseInt(hex, 16)) : ch!,
  );
}

/** Whether the request says XML (Tyk's DetectErrorResponseContext), and the Content-Type an override answers with. */
function contextOf(requestType: string | undefined): { xml: boolean; type: string } {
  const t = (requestType ?? '').split(';')[0]!;
  return t === 'application/xml' || t === 'text/xml' ? { xml: true, type: t } : { xml: false, type: 'application/json' };
}

function htmlEscape(s: string): string {
  return s.replace(/[&'<>"]/g, (c) => ({ '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;', '"': '&#34;' })[c]!);
}

function render(rule: ErrorOverrideRule, status: number, xml: boolean): string {
  const message = xml ? htmlEscape(rule.message) : jsEscape(rule.message);
  return rule.template!.map((p) => (typeof p === 'string' ? p : p.field === 'Message' ? message : String(status))).join('');
}

/**
 * `a` as the API bound to `res` overrides it, when `a` is one of the gateway's errors (Tyk's error
 * body) and a rule matches; else `a` itself.
 */
export function overrideAnswer(res: ServerResponse, a: Answer): Answer {
  const o = bound.get(res);
  if (o === undefined) return a;
  const original = messageOf(a);
  if (original === undefined) return a;
  // Tyk matches gateway errors on the flag (refused at load) and message_pattern only.
  const rule = find(o, a.status, (r) => r.pattern === undefined || matches(r.pattern, original));
  if (rule === undefined) return a;
  const status = rule.status || a.status;
  const { xml, type } = contextOf(res.req.headers['content-type']);
  const headers: Record<string, string | string[]> = { ...a.headers, 'content-type': type };
  for (const [k, v] of rule.headers) headers[k.toLowerCase()] = v;
  if (rule.body !== '') return { status, headers, body: Buffer.from(rule.template ? render(rule, status, xml) : rule.body) };
  // The default error body (Content-Type set again by it): the rule's message, else the original.
  headers['content-type'] = 'application/json';
  return { status, headers, body: Buffer.from(tykErrorBody(jsEscape(rule.message !== '' ? rule.message : original))) };
}

/** A path of names and indexes into parsed JSON, as gjson's String(): undefined when absent. */
function fieldText(json: unknown, path: string[]): string | undefined {
  let v = json;
  for (const p of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = ownValue(v as Record<string, unknown>, p);
    if (v === undefined) return undefined;
  }
  if (v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function parsed(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString());
  } catch {
    return undefined;
  }
}

/** What replaces an upstream's error answer: its status, the headers to set, and the new body (undefined: the upstream's stays). */
export interface UpstreamOverride {
  status: number;
  headers: Array<[string, string]>;
  body?: { type: string; text: string };
}

/** The override of the upstream's `status` answer whose body starts with `head` (at most {@link MATCH_BYTES}), or undefined. */
export function overrideUpstream(res: ServerResponse, o: ErrorOverrides, status: number, head: Buffer): UpstreamOverride | undefined {
  let json: unknown;
  const rule = find(o, status, (r) => {
    if (r.bodyField !== undefined && r.bodyValue !== '') {
      json ??= parsed(head) ?? null;
      if (fieldText(json, r.bodyField) === r.bodyValue) return true;
    }
    if (r.pattern !== undefined) return matches(r.pattern, head.toString());
    return r.bodyField === undefined || r.bodyValue === '';
  });
  if (rule === undefined) return undefined;
  const out: UpstreamOverride = { status: rule.status || status, headers: rule.headers };
  if (rule.body === '' && rule.message === '') return out;
  const { xml, type } = contextOf(res.req.headers['content-type']);
  let text: string;
  if (rule.template) text = render(rule, out.status, xml);
  else if (rule.body !== '') text = rule.body;
  else text = xml ? `<?xml version = "1.0" encoding = "UTF-8"?>\n<error>${htmlEscape(rule.message)}</error>\n` : tykErrorBody(jsEscape(rule.message));
  out.body = { type, text };
  return out;
}
