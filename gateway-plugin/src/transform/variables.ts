/**
 * Values with variables, as Tyk v5.14.0's ReplaceTykVariables fills a header value (no escaping;
 * `gateway/mw_url_rewrite.go`): references first (`$secret_conf.`, `$secret_env.`,
 * `$secret_kvstore.`, `$secret_secretstore.`, `env://`), then `$svc_context.<name>` (the request's
 * context variables: empty without `enable_context_vars`) and `$svc_meta.<key>` (the session's
 * metadata). A variable with no value becomes ''. References resolve in configured text only,
 * before any client value is in it (a body transform's output holds the client's body: it gets
 * {@link fillContext}, its template's references were resolved before it ran).
 */
import type { References } from '../refs/references.js';
import type { ContextData } from '../kernel/context-data.js';
import { ownValue } from '../kernel/own-value.js';

const CONTEXT = /\$svc_context\.([A-Za-z0-9_\-.]+)/g;
const META = /\$svc_meta\.([A-Za-z0-9_\-.]+)/g;

/** Go's url.QueryEscape. */
function queryEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/**
 * Tyk's valToStr: strings as they are, numbers as Go prints them, a list of strings joined with
 * `,` (a leading `,` dropped), a decoded JSON list's items escaped and joined; anything else ''.
 */
function valueText(v: unknown, stringList: boolean): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) {
    if (stringList) return v.join(',').replace(/^,/, '');
    return v
      .map((item) => valueText(item, false))
      .filter((s) => s !== '')
      .map(queryEscape)
      .join(',');
  }
  return '';
}

/** What a value's variables are filled from. */
export interface VariableSource {
  /** The request's context variables (built on first use). */
  context: () => ContextData;
  /** The session's metadata (none without a session). */
  meta: Record<string, unknown> | undefined;
  refs: References;
}

/** `template` (configured text) with its references resolved, then its context and metadata variables filled in. */
export async function fillVariables(template: string, from: VariableSource): Promise<string> {
  if (!template.includes('$') && !template.includes('env://')) return template;
  return fillContext(await from.refs.resolveInline(template), from);
}

/**
 * `text`'s `$svc_context.*` and `$svc_meta.*` filled in, nothing else (it may hold client text);
 * `escape` (a body transform's output, Tyk's ReplaceTykVariables with escaping): the values
 * query-escaped unless they start with `http`.
 */
export function fillContext(text: string, from: Omit<VariableSource, 'refs'>, escape = false): string {
  const escaped = (v: string): string => (escape && !v.startsWith('http') ? queryEscape(v) : v);
  let out = text;
  if (out.includes('$svc_context.')) out = out.replace(CONTEXT, (_all, key: string) => escaped(valueText(ownValue(from.context(), key), true)));
  if (out.includes('$svc_meta.')) out = out.replace(META, (_all, key: string) => escaped(valueText(ownValue(from.meta, key), false)));
  return out;
}
