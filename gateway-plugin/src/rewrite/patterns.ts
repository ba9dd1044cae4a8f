/**
 * The rewriter's regular expressions: RE2 (re2js), as Tyk's Go regexp, so matching takes time
 * linear in the input whatever the pattern: a hostile pattern or path cannot hang the gateway.
 * Compiled once per pattern text (patterns resolved per request included) by @svc/engine/kit's
 * bounded `compiledRe2`.
 */
import { RE2JS } from 're2js';

/** Go's FindStringSubmatch: the first match and its groups ('' for a group that took no part), or undefined. */
export function firstMatch(re: RE2JS, input: string): string[] | undefined {
  const m = re.matcher(input);
  if (!m.find()) return undefined;
  const out: string[] = [];
  for (let g = 0; g <= m.groupCount(); g++) out.push(m.group(g) ?? '');
  return out;
}

/** Go's FindAllStringSubmatch(s, -1): every non-overlapping match with its groups. */
export function allMatches(re: RE2JS, input: string, max = 1000): string[][] {
  const m = re.matcher(input);
  const out: string[][] = [];
  while (out.length < max && m.find()) {
    const one: string[] = [];
    for (let g = 0; g <= m.groupCount(); g++) one.push(m.group(g) ?? '');
    out.push(one);
  }
  return out;
}
