/**
 * URL rewrite rules as the definitions write them (classic `url_rewrites[]`: `match_pattern`,
 * `rewrite_to`, `triggers[]` with `on` and `options`; OAS `urlRewrite`: `pattern`, `rewriteTo`,
 * `triggers[]` with `condition` and `rules[]` of `{in, name, pattern, negate}`), checked at load:
 * every pattern compiles as RE2 (the syntax Tyk's Go regexp has, matched in linear time), `on`
 * is `all` or `any`, and an unknown option is an error naming it. A pattern holding an `env://`
 * or `$svc_` variable is resolved per request, so it is checked then.
 */
import { RE2JS } from 're2js';
import type { RewriteLocation, RewriteMatch, RewriteTrigger, UrlRewriteRule } from './api-spec.js';
import type { Fields } from './fields.js';

const CLASSIC_OPTIONS: Record<string, RewriteLocation> = {
  header_matches: 'header',
  query_val_matches: 'query',
  path_part_matches: 'pathPart',
  session_meta_matches: 'sessionMeta',
  request_context_matches: 'requestContext',
  payload_matches: 'payload',
};

/** Tyk's OAS `in` values. */
const OAS_LOCATIONS: Record<string, RewriteLocation> = {
  header: 'header',
  query: 'query',
  path: 'pathPart',
  sessionMetadata: 'sessionMeta',
  requestContext: 'requestContext',
  body: 'payload',
};

/** True when the pattern is only known per request (a variable or reference in it). */
const resolvedLater = (p: string) => p.includes('env://') || p.includes('$svc_') || p.includes('$secret_');

export function checkPattern(f: Fields, key: string, pattern: string): string {
  if (resolvedLater(pattern)) return pattern;
  try {
    RE2JS.compile(pattern);
  } catch (err) {
    f.fail(key, `not a valid regular expression (RE2 syntax): ${err instanceof Error ? err.message : String(err)}`);
  }
  return pattern;
}

function onOf(f: Fields, key: string): 'all' | 'any' {
  const on = f.str(key, 'any').toLowerCase();
  if (on !== 'all' && on !== 'any') f.fail(key, `expected "all" or "any", got "${on}"`);
  return on;
}

function classicTrigger(t: Fields): RewriteTrigger {
  const rules: RewriteTrigger['rules'] = {};
  const given = t.obj('options');
  if (given === undefined) return { on: onOf(t, 'on'), rules, rewriteTo: t.str('rewrite_to') };
  const options: Fields = given;
  for (const name of Object.keys(options.value)) {
    const location = CLASSIC_OPTIONS[name];
    if (location === undefined) options.fail(name, `unknown trigger option (expected one of ${Object.keys(CLASSIC_OPTIONS).join(', ')})`);
    if (location === 'payload') {
      const o = options.obj(name)!;
      const rx = o.str('match_rx');
      if (rx !== '') rules.payload = [{ key: 'payload', matchRx: checkPattern(o, 'match_rx', rx), reverse: o.bool('reverse') }];
      continue;
    }
    const list: RewriteMatch[] = [];
    for (const [key, m] of options.objects(name)) list.push({ key, matchRx: checkPattern(m, 'match_rx', m.str('match_rx')), reverse: m.bool('reverse') });
    if (list.length > 0) rules[location] = list;
  }
  return { on: onOf(t, 'on'), rules, rewriteTo: t.str('rewrite_to') };
}

function oasTrigger(t: Fields): RewriteTrigger {
  const rules: RewriteTrigger['rules'] = {};
  for (const r of t.list('rules')) {
    const where = r.required('in');
    const rule: Fields = r;
    const location = OAS_LOCATIONS[where];
    if (location === undefined) rule.fail('in', `unknown rule location "${where}" (expected one of ${Object.keys(OAS_LOCATIONS).join(', ')})`);
    const key = location === 'payload' ? 'payload' : r.required('name');
    (rules[location] ??= []).push({ key, matchRx: checkPattern(r, 'pattern', r.str('pattern')), reverse: r.bool('negate') });
  }
  return { on: onOf(t, 'condition'), rules, rewriteTo: t.str('rewriteTo') };
}

/** A classic `url_rewrites[]` entry. */
export function classicRewrite(e: Fields, path: string): UrlRewriteRule {
  const triggers = e.raw('triggers');
  if (triggers !== undefined && !Array.isArray(triggers)) e.fail('triggers', 'expected an array');
  return {
    path,
    method: e.str('method').toUpperCase(),
    matchPattern: checkPattern(e, 'match_pattern', e.str('match_pattern')),
    rewriteTo: e.str('rewrite_to'),
    triggers: e.list('triggers').map(classicTrigger),
  };
}

/** An OAS `urlRewrite` object of an operation. */
export function oasRewrite(r: Fields, path: string, method: string): UrlRewriteRule {
  const triggers = r.raw('triggers');
  if (triggers !== undefined && !Array.isArray(triggers)) r.fail('triggers', 'expected an array');
  return {
    path,
    method,
    matchPattern: checkPattern(r, 'pattern', r.str('pattern')),
    rewriteTo: r.str('rewriteTo'),
    triggers: r.list('triggers').map(oasTrigger),
  };
}
