/**
 * An API's domain as Tyk's router matches it (gorilla/mux v1.8.1 `Host`): the whole host, case
 * as written, `{name}` a run of characters other than `.`, `{name:pattern}` the pattern (RE2);
 * without a `:` in the template the request's port is not compared.
 */
import { RE2JS } from 're2js';
import type { Fields } from './fields.js';

/** The domain template, checked (braces balanced, names and patterns present, patterns RE2). */
export function checkedHost(f: Fields, field: string): string {
  const tpl = f.str(field);
  try {
    hostPattern(tpl);
  } catch (err) {
    f.fail(field, `not a host template Tyk's router takes: ${err instanceof Error ? err.message : String(err)}`);
  }
  return tpl;
}

function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}

/** The template as gorilla/mux builds it: an anchored pattern, and whether the port is ignored. */
export function hostPattern(tpl: string): { re: RE2JS; ignorePort: boolean } {
  let pattern = '^';
  let i = 0;
  let vars = 0;
  while (i < tpl.length) {
    const open = tpl.indexOf('{', i);
    if (open < 0) break;
    // mux's braceIndices: nested braces count (a pattern may hold {n,m}).
    let level = 0;
    let close = -1;
    for (let j = open; j < tpl.length; j++) {
      if (tpl[j] === '{') level++;
      else if (tpl[j] === '}' && --level === 0) {
        close = j;
        break;
      }
    }
    if (close < 0) throw new Error(`unbalanced braces in ${JSON.stringify(tpl)}`);
    pattern += quoteMeta(tpl.slice(i, open));
    const inner = tpl.slice(open + 1, close);
    const colon = inner.indexOf(':');
    const name = colon < 0 ? inner : inner.slice(0, colon);
    const patt = colon < 0 ? '[^.]+' : inner.slice(colon + 1);
    if (name === '' || patt === '') throw new Error(`missing name or pattern in ${JSON.stringify(tpl.slice(open, close + 1))}`);
    pattern += `(?P<v${vars++}>${patt})`;
    i = close + 1;
  }
  if (tpl.slice(i).includes('}')) throw new Error(`unbalanced braces in ${JSON.stringify(tpl)}`);
  pattern += `${quoteMeta(tpl.slice(i))}$`;
  return { re: RE2JS.compile(pattern), ignorePort: !pattern.includes(':') };
}

/** True when the request's Host (its header, as Go's r.Host) matches the domain template. */
export function hostMatches(t: { re: RE2JS; ignorePort: boolean }, host: string): boolean {
  let h = host;
  if (t.ignorePort) {
    const colon = h.indexOf(':');
    if (colon >= 0) h = h.slice(0, colon);
  }
  return t.re.matcher(h).matches();
}
