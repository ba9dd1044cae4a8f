/**
 * A classic definition's `error_overrides` (Tyk v5.14.0: apidef/error_overrides.go, compiled as
 * gateway/error_overrides.go compiles them): status code ("401", or a class "4xx") → rules, the
 * first rule that matches wins, an exact code before its class. What svc does not run is refused
 * at load rather than skipped: `match.flag` (Tyk's error classification), `response.template` (a
 * template file), a JSON path beyond dotted names and indexes, a body template with actions other
 * than `{{.StatusCode}}` and `{{.Message}}`, a pattern RE2 refuses (Tyk logs and skips that rule).
 */
import { RE2JS } from 're2js';
import type { Fields } from './fields.js';

/** A body template: literal parts with `{{.StatusCode}}` / `{{.Message}}` between them. */
export type BodyPart = string | { field: 'StatusCode' | 'Message' };

export interface ErrorOverrideRule {
  /** `match.message_pattern` (checked at load; plain data, as a spec crosses threads): on the gateway's message, or the first 4 KiB of the upstream's body. */
  pattern?: string;
  /** `match.body_field` (dotted path, split) and `match.body_value`: upstream JSON bodies only. */
  bodyField?: string[];
  bodyValue?: string;
  /** `response.status_code` (0: the original status). */
  status: number;
  /** `response.body`: written as it is, or (with `{{.`) the parts of its template. */
  body: string;
  template?: BodyPart[];
  /** `response.message`: `{{.Message}}` of the template, or the default error body's message. */
  message: string;
  headers: Array<[string, string]>;
}

export interface ErrorOverrides {
  /** Rules by exact status code (a Map: looked up with the status the gateway or upstream answered). */
  exact: ReadonlyMap<number, ErrorOverrideRule[]>;
  /** Rules by status class (4 for "4xx"). */
  byClass: ReadonlyMap<number, ErrorOverrideRule[]>;
}

/** The definition's overrides, or undefined when there are none or `error_overrides_disabled` is true. */
export function errorOverridesOf(root: Fields): ErrorOverrides | undefined {
  if (root.bool('error_overrides_disabled')) return undefined;
  const map = root.obj('error_overrides');
  if (map === undefined) return undefined;
  const exact = new Map<number, ErrorOverrideRule[]>();
  const byClass = new Map<number, ErrorOverrideRule[]>();
  for (const code of Object.keys(map.value)) {
    if (map.raw(code) === undefined || code === '') continue;
    const rules = map.list(code).map(ruleOf);
    if (rules.length === 0) continue;
    if (/^[+-]?\d+$/.test(code)) exact.set(Number(code), rules);
    else if (/^\dxx$/.test(code)) byClass.set(Number(code[0]), rules);
    else map.fail(code, 'not a status code: expected a code such as "401" or a class such as "4xx"');
  }
  return exact.size + byClass.size === 0 ? undefined : { exact, byClass };
}

function ruleOf(rule: Fields): ErrorOverrideRule {
  const match = rule.obj('match');
  const response = rule.obj('response') ?? rule.fail('response', 'required (an object with status_code, body, message or headers)');
  if (match?.str('flag'))
    match.fail('flag', 'not supported: matching by error classification flag; svc does not implement it: match on message_pattern or body_field instead');
  if (response.str('template')) response.fail('template', 'not supported: an error template file; svc does not implement it: use body or message');
  const out: ErrorOverrideRule = {
    status: response.count('status_code'),
    body: response.str('body'),
    message: response.str('message'),
    headers: Object.entries(response.stringMap('headers')),
  };
  const pattern = match?.str('message_pattern') ?? '';
  if (pattern !== '') {
    try {
      RE2JS.compile(pattern);
      out.pattern = pattern;
    } catch (err) {
      match!.fail('message_pattern', `not a valid regular expression (RE2 syntax): ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const field = match?.str('body_field') ?? '';
  if (field !== '') {
    if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(field))
      match!.fail('body_field', 'not supported: only dotted names and array indexes (error.code, items.0.id) of the JSON path syntax');
    out.bodyField = field.split('.');
    out.bodyValue = match!.str('body_value');
  }
  // Tyk's test for a template: the body holds "{{." (else it is written as it is).
  if (out.body.includes('{{.')) out.template = templateOf(out.body, response);
  return out;
}

const ACTION = /\{\{\s*\.(StatusCode|Message)\s*\}\}/g;

function templateOf(body: string, response: Fields): BodyPart[] {
  const parts: BodyPart[] = [];
  let at = 0;
  for (const m of body.matchAll(ACTION)) {
    parts.push(body.slice(at, m.index));
    parts.push({ field: m[1] as 'StatusCode' | 'Message' });
    at = m.index + m[0].length;
  }
  parts.push(body.slice(at));
  if (parts.some((p) => typeof p === 'string' && p.includes('{{')))
    response.fail('body', 'not supported: template actions other than {{.StatusCode}} and {{.Message}} in an error override body');
  return parts.filter((p) => p !== '');
}
