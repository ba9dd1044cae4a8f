/**
 * One URL rewrite as Tyk's `urlRewrite` does it: the basic pattern gates everything (matched on
 * the path and query as received, then, failing that, on their percent-decoded form); the first
 * advanced trigger that fires gives the `rewriteTo`, else the basic one's; `$1`… take the basic
 * match's groups; then `$svc_context.*` and `$svc_meta.*` fill in. References (`$secret_*`,
 * `env://`) resolve in the configured `rewriteTo` before any client value is in it: a group or a
 * context variable that reads `env://X` reaches the upstream as that text (Tyk resolves after).
 */
import { compiledRe2 } from '@svc/engine/kit';
import type { UrlRewriteRule } from '../apis/api-spec.js';
import type { References } from '../refs/references.js';
import { ownValue } from '../kernel/own-value.js';
import { type ContextData } from '../kernel/context-data.js';
import { firstMatch } from './patterns.js';
import { fires, type TriggerInput } from './triggers.js';

const DOLLAR = /\$\d+/g;
const CONTEXT = /\$svc_context\.([A-Za-z0-9_\-.]+)/g;
const META = /\$svc_meta\.([A-Za-z0-9_\-.]+)/g;

/** A value as Tyk's valToStr gives it. */
function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v))
    return v
      .map(text)
      .filter((s) => s !== '')
      .map((s) => encodeURIComponent(s))
      .join(',');
  return '';
}

/** Go's url.QueryEscape (spaces as `+`), applied to variables that are not URLs. */
function queryEscape(s: string): string {
  return encodeURIComponent(s).replace(/%20/g, '+');
}

function substitute(input: string, re: RegExp, lookup: (key: string) => unknown): string {
  return input.replace(re, (_all, key: string) => {
    const v = lookup(key);
    if (v === undefined) return '';
    const s = text(v);
    return s.startsWith('http') ? s : queryEscape(s);
  });
}

/**
 * The rewritten URL (path and query, a full URL, or `svc://…`), or undefined when the basic
 * pattern does not match. `data` collects the triggers' matches (`trigger-{n}-…`).
 */
export async function rewriteUrl(rule: UrlRewriteRule, url: string, input: TriggerInput, data: ContextData, refs: References): Promise<string | undefined> {
  const basic = compiledRe2(await refs.resolveInline(rule.matchPattern));
  if (basic === null) throw new Error(`the URL rewrite pattern of ${rule.method || 'any method'} ${rule.path} is not a valid regular expression once resolved`);
  let target = rule.rewriteTo;
  for (let n = 0; n < rule.triggers.length; n++) {
    const t = rule.triggers[n]!;
    if (fires(t, n, input, data)) {
      target = t.rewriteTo;
      break;
    }
  }
  let groups = firstMatch(basic, url);
  if (groups === undefined && url.includes('%')) {
    let decoded: string | undefined;
    try {
      decoded = decodeURIComponent(url);
    } catch {
      decoded = undefined;
    }
    if (decoded !== undefined) groups = firstMatch(basic, decoded);
  }
  if (groups === undefined) return undefined;
  let out = (await refs.resolveInline(target)).replace(DOLLAR, (ref) => groups![Number(ref.slice(1))] ?? '');
  if (out.includes('$svc_context.')) out = substitute(out, CONTEXT, (k) => ownValue(data, k) ?? ownValue(input.context(), k));
  if (out.includes('$svc_meta.')) out = substitute(out, META, (k) => ownValue(input.sessionMeta, k));
  return out;
}

/**
 * Why a rewritten URL must not be sent, or undefined when it may. Tyk leaves a substituted value
 * that starts with `http` unescaped (a whole URL taken from a header or a claim), so a value such
 * as `http/../../admin#` puts dot segments and a fragment in the upstream URL: the upstream path
 * climbs out of the API's prefix, and the rest is cut at the `#`. svc refuses such a result
 * rather than normalising it, because a normalised `..` still climbs out of the prefix, and a
 * value is never changed behind its sender's back.
 */
export function unsafeRewrite(result: string): string | undefined {
  if (result.includes('#')) return 'it has a fragment (#)';
  let rest = result;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(rest);
  if (scheme) rest = rest.slice(scheme[0].length);
  const q = rest.indexOf('?');
  const path = q < 0 ? rest : rest.slice(0, q);
  for (const seg of path.split('/')) {
    const s = seg.replace(/%2e/gi, '.');
    if (s === '.' || s === '..') return `its path has a dot segment (${JSON.stringify(seg)})`;
  }
  return undefined;
}
