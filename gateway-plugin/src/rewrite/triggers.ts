/**
 * Advanced triggers as Tyk evaluates them (gateway/mw_url_rewrite.go at v5.14.0): each location
 * with rules passes when all its rules match (`all`) or one does (`any`); a trigger `on: any`
 * fires on the first location that passes, `on: all` when every location with rules passes.
 * Every match is kept as a context variable `trigger-{n}-{key}[-{i}]`, its groups as `-{g}`.
 */
import { compiledRe2 } from '@svc/engine/kit';
import type { RewriteMatch, RewriteTrigger } from '../apis/api-spec.js';
import { ownValue } from '../kernel/own-value.js';
import { canonicalHeader, type ContextData } from '../kernel/context-data.js';
import { allMatches, firstMatch } from './patterns.js';

/** What a trigger may look at. */
export interface TriggerInput {
  headers: Record<string, string | string[] | undefined>;
  query: URLSearchParams;
  path: string;
  sessionMeta: Record<string, unknown> | undefined;
  /** The body as text, when it was read for a payload rule. */
  body: string | undefined;
  /** The request's context variables (see context-data.ts), built on first use. */
  context: () => ContextData;
}

/** StringRegexMap.FindStringSubmatch: matched (or, reversed, not matched), and the match. */
function test(rule: RewriteMatch, value: string): { matched: boolean; match: string[] | undefined } {
  const re = compiledRe2(rule.matchRx);
  const match = re === null ? undefined : firstMatch(re, value);
  return { matched: rule.reverse ? match === undefined : match !== undefined, match };
}

function keep(data: ContextData, match: string[] | undefined, n: number, name: string, ...indices: number[]): void {
  if (match === undefined || match.length === 0) return;
  const key = ['trigger', n, name, ...indices].join('-');
  data[key] = match[0]!;
  for (let g = 1; g < match.length; g++) data[`${key}-${g - 1}`] = match[g]!;
}

/** One location's rules: how many matched, against the values `valuesOf` gives for each key. */
function location(
  rules: RewriteMatch[],
  any: boolean,
  valuesOf: (rule: RewriteMatch) => { name: string; values: string[] },
  data: ContextData,
  n: number,
  indexed = true,
): boolean {
  let count = 0;
  for (const rule of rules) {
    const { name, values } = valuesOf(rule);
    values.forEach((v, i) => {
      const { matched, match } = test(rule, v);
      if (!matched) return;
      if (indexed) keep(data, match, n, name, i);
      else keep(data, match, n, name);
      count++;
    });
  }
  return count > 0 && (any || count >= rules.length);
}

/** A session metadata or context value as a rule reads it: a string, else nothing. */
function stringOf(v: unknown): string[] {
  return typeof v === 'string' ? [v] : [];
}

function headerValues(headers: TriggerInput['headers'], key: string): { name: string; values: string[] } {
  // Configured names are hyphenated; a name written with underscores means the hyphenated header.
  const name = canonicalHeader(key.replaceAll('_', '-'));
  const v = ownValue(headers, name.toLowerCase());
  return { name, values: v === undefined ? [] : Array.isArray(v) ? v : [v] };
}

/** True when trigger `n` fires; its matches are added to `data`. */
export function fires(trigger: RewriteTrigger, n: number, input: TriggerInput, data: ContextData): boolean {
  const any = trigger.on === 'any';
  const passed: boolean[] = [];
  const r = trigger.rules;
  const check = (ok: boolean): boolean => {
    passed.push(ok);
    return any && ok;
  };
  if (r.header && check(location(r.header, any, (rule) => headerValues(input.headers, rule.key), data, n))) return true;
  if (r.query && check(location(r.query, any, (rule) => ({ name: rule.key, values: input.query.getAll(rule.key) }), data, n))) return true;
  if (r.pathPart) {
    // Tyk indexes path part matches by how many matched before, across the trigger's rules.
    let count = 0;
    for (const rule of r.pathPart) {
      for (const part of input.path.split('/')) {
        const { matched, match } = test(rule, part);
        if (matched) keep(data, match, n, rule.key, count++);
      }
    }
    if (check(count > 0 && (any || count >= r.pathPart.length))) return true;
  }
  if (r.sessionMeta && input.sessionMeta !== undefined) {
    const meta = input.sessionMeta;
    const values = (rule: RewriteMatch) => ({ name: rule.key, values: stringOf(ownValue(meta, rule.key)) });
    if (check(location(r.sessionMeta, any, values, data, n, false))) return true;
  }
  if (r.requestContext) {
    const snapshot = { ...input.context(), ...data };
    const values = (rule: RewriteMatch) => ({ name: rule.key, values: stringOf(ownValue(snapshot, rule.key)) });
    if (check(location(r.requestContext, any, values, data, n, false))) return true;
  }
  if (r.payload) {
    const rule = r.payload[0]!;
    const re = compiledRe2(rule.matchRx);
    const matches = re === null || input.body === undefined ? [] : allMatches(re, input.body);
    const ok = rule.reverse ? matches.length === 0 && input.body !== undefined : matches.length > 0;
    if (matches.length > 0) {
      data[`trigger-${n}-payload`] = matches[0]![0]!;
      matches.forEach((m, i) => keep(data, m, n, 'payload', i));
    }
    if (check(ok)) return true;
  }
  // `all`: every location that has rules passed (a session location without a session counts as not passed).
  const locations = Object.values(r).filter((list) => list.length > 0).length;
  return !any && passed.length === locations && passed.every(Boolean);
}
