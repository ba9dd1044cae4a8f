/**
 * Regular expression methods on RE2 (re2js): matching time is linear in the input, so a
 * user's pattern cannot hang the process (no catastrophic backtracking). The syntax is Go's
 * regexp syntax, which is what Bloblang patterns are written in. A constant pattern is
 * compiled once per call site; dynamic patterns go through a small cache.
 */
import { RE2JS } from 're2js';
import { QueryError, typeError } from '../errors.js';
import { type Args, asString, defineMethod } from '../registry.js';
import type { State } from '../state.js';
import { type Obj, setKey, toStr } from '../values.js';

const cache = new Map<string, RE2JS>();
const CACHE_MAX = 256;

/** Compiles a pattern (cached); a bad pattern is a QueryError naming the pattern. */
export function compileRegex(pattern: string): RE2JS {
  let re = cache.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern);
    } catch (e) {
      throw new QueryError(`error parsing regexp ${JSON.stringify(pattern)}: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
    cache.set(pattern, re);
  }
  return re;
}

/** The regex of argument 0: compiled now when constant, else per call (cached). */
function regexArg(a: Args): (c: State, self: unknown) => RE2JS {
  if (a.isConst(0)) {
    const re = compileRegex(asString(a.const(0)));
    return () => re;
  }
  return (c, self) => compileRegex(asString(a.get(0, c, self)));
}

function target(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return toStr(v);
  throw typeError(v, 'string');
}

/** The width of the character at `i` in UTF-16 units (a surrogate pair is one rune). */
function runeWidth(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
}

/**
 * Successive non-overlapping matches as Go's FindAll finds them (regexp.allMatches): an empty match
 * right after the previous match is skipped (`"abc".re_find_all("b*")` is `["", "b", ""]`).
 */
function* goMatches(re: RE2JS, s: string): Generator<(string | undefined)[]> {
  const m = re.matcher(s);
  const n = re.groupCount();
  let prevEnd = -1;
  for (let pos = 0; pos <= s.length;) {
    if (!m.find(pos)) break;
    const start = m.start();
    const end = m.end();
    let accept = true;
    if (end === pos) {
      if (start === prevEnd) accept = false; // empty, abutting the previous match
      pos += runeWidth(s, pos);
    } else {
      pos = end;
    }
    prevEnd = end;
    if (accept) {
      const groups: (string | undefined)[] = [];
      for (let g = 0; g <= n; g++) groups.push(m.group(g) ?? undefined);
      yield groups;
    }
  }
}

/**
 * Go's ReplaceAllString: every match replaced, except an empty match right after a match
 * (`"abc".re_replace_all("b*", "X")` is `XaXcX`).
 */
function goReplaceAll(re: RE2JS, s: string, repl: (groups: (string | undefined)[]) => string): string {
  const m = re.matcher(s);
  const n = re.groupCount();
  let out = '';
  let lastEnd = 0;
  for (let pos = 0; pos <= s.length;) {
    if (!m.find(pos)) break;
    const start = m.start();
    const end = m.end();
    out += s.slice(lastEnd, start);
    if (end > lastEnd || start === 0) {
      const groups: (string | undefined)[] = [];
      for (let g = 0; g <= n; g++) groups.push(m.group(g) ?? undefined);
      out += repl(groups);
    }
    lastEnd = end;
    const w = runeWidth(s, pos);
    if (pos + w > end) pos += w;
    else if (pos + 1 > end) pos++;
    else pos = end;
  }
  return out + s.slice(lastEnd);
}

/**
 * Go's Regexp.Expand template: `$1`, `${1}`, `$name`, `${name}`; `$$` is a dollar. A name is
 * the longest run of letters, digits and underscores, so `$1x` means group "1x" (empty).
 */
export function expandTemplate(template: string, groups: (string | undefined)[], named: Record<string, number>): string {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const d = template.indexOf('$', i);
    if (d < 0) {
      out += template.slice(i);
      break;
    }
    out += template.slice(i, d);
    i = d + 1;
    if (template[i] === '$') {
      out += '$';
      i++;
      continue;
    }
    let name: string;
    if (template[i] === '{') {
      const close = template.indexOf('}', i);
      const inner = close < 0 ? '' : template.slice(i + 1, close);
      if (close < 0 || !/^[A-Za-z0-9_]+$/.test(inner)) {
        out += '$';
        continue;
      }
      name = inner;
      i = close + 1;
    } else {
      const m = /^[A-Za-z0-9_]+/.exec(template.slice(i));
      if (!m) {
        out += '$';
        continue;
      }
      name = m[0];
      i += name.length;
    }
    let idx = -1;
    if (/^[0-9]+$/.test(name)) idx = Number(name);
    else if (Object.hasOwn(named, name)) idx = named[name]!;
    if (idx >= 0 && idx < groups.length) out += groups[idx] ?? '';
  }
  return out;
}

function replacer(a: Args): (v: unknown, c: State, self: unknown) => unknown {
  const reOf = regexArg(a);
  return (v, c, self) => {
    const s = target(v);
    const re = reOf(c, self);
    const tmpl = asString(a.get(1, c, self));
    if (!tmpl.includes('$')) return goReplaceAll(re, s, () => tmpl);
    const named = re.namedGroups() as Record<string, number>;
    return goReplaceAll(re, s, (groups) => expandTemplate(tmpl, groups, named));
  };
}

defineMethod('re_match', {
  params: [{ name: 'pattern', type: 'string' }],
  build(a) {
    const reOf = regexArg(a);
    return (v, c, self) => reOf(c, self).test(target(v));
  },
});

defineMethod('re_replace_all', {
  params: [
    { name: 'pattern', type: 'string' },
    { name: 'value', type: 'string' },
  ],
  build: (a) => replacer(a),
});

/** Older name of re_replace_all. */
defineMethod('re_replace', {
  params: [
    { name: 'pattern', type: 'string' },
    { name: 'value', type: 'string' },
  ],
  build: (a) => replacer(a),
});

defineMethod('re_find_all', {
  params: [{ name: 'pattern', type: 'string' }],
  build(a) {
    const reOf = regexArg(a);
    return (v, c, self) => {
      const out: string[] = [];
      for (const g of goMatches(reOf(c, self), target(v))) out.push(g[0] ?? '');
      return out;
    };
  },
});

defineMethod('re_find_all_submatch', {
  params: [{ name: 'pattern', type: 'string' }],
  build(a) {
    const reOf = regexArg(a);
    return (v, c, self) => {
      const out: string[][] = [];
      for (const g of goMatches(reOf(c, self), target(v))) out.push(g.map((x) => x ?? ''));
      return out;
    };
  },
});

/**
 * A group of a match: on bytes, bytes, and null when the group took no part (Go's nil slice; a
 * string target gets "" there, as Go's FindStringSubmatch gives).
 */
function groupValue(m: string | undefined | null, bytes: boolean): unknown {
  if (!bytes) return m ?? '';
  return m === undefined || m === null ? null : Buffer.from(m, 'utf8');
}

/** `re_find_object(pattern)`: the first match as an object of groups (`"0"` is the whole match). */
defineMethod('re_find_object', {
  params: [{ name: 'pattern', type: 'string' }],
  build(a) {
    const reOf = regexArg(a);
    return (v, c, self) => {
      const re = reOf(c, self);
      const m = re.exec(target(v));
      const out: Obj = {};
      if (m === null) return out;
      const names: string[] = [];
      for (const [name, idx] of Object.entries(re.namedGroups() as Record<string, number>)) names[idx] = name;
      // bytes in, bytes out, as Benthos' []byte case
      const bytes = v instanceof Uint8Array;
      for (let i = 0; i < m.length; i++) setKey(out, names[i] ?? String(i), groupValue(m[i], bytes));
      return out;
    };
  },
});

/** `re_find_all_object(pattern)`: every match as an object of its groups (`"0"` is the whole match). */
defineMethod('re_find_all_object', {
  params: [{ name: 'pattern', type: 'string' }],
  build(a) {
    const reOf = regexArg(a);
    return (v, c, self) => {
      const re = reOf(c, self);
      const names: string[] = [];
      for (const [name, idx] of Object.entries(re.namedGroups() as Record<string, number>)) names[idx] = name;
      const bytes = v instanceof Uint8Array;
      const out: Obj[] = [];
      for (const g of goMatches(re, target(v))) {
        const o: Obj = {};
        g.forEach((m, i) => setKey(o, names[i] ?? String(i), groupValue(m, bytes)));
        out.push(o);
      }
      return out;
    };
  },
});
