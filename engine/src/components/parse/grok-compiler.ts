/**
 * Grok expressions compiled to one RE2 regex each, as github.com/Jeffail/grok v1.1.0 (Benthos'
 * grok) builds them: `%{NAME}`, `%{NAME:alias}` and `%{NAME:alias:int|float|string}` are replaced
 * by the named pattern's expression, a capture named after the alias when there is one (or every
 * reference, with `named_captures_only: false`). Captures keep Go's order and, since grok lets a
 * name repeat (the last capture wins), they are renamed to unique names for RE2JS and mapped back.
 * RE2 never backtracks, so an expression from a config runs in time linear to the message. Where
 * the expression translates to V8's RegExp with RE2's answers and a bound on backtracking
 * (../regex/native-regexp.ts), that runs instead: re2js took 3 ms a line on `%{IP}`.
 */
import { RE2JS } from 're2js';
import { JsonNumber } from '../../message/json-number.js';
import { bmpOnly, nativeRegExp } from '../regex/native-regexp.js';

/** `%{NAME}`, `%{NAME:alias}`, `%{NAME:alias:type}` (grok's namedReference). */
const REFERENCE = /%\{([\w.-]+(?::[\w.-]+(?::[\w.-]+)?)?)\}/g;
const NON_WORD = /\W/g;

interface GrokPattern {
  expression: string;
  /** Type hint by (safe) capture name: int, float or an unknown name (an error on a match). */
  typeHints: Map<string, string>;
  /** The alias a capture was named by, by the safe name the regex holds (`a.b` is `a_b`). */
  safeAliases: Map<string, string>;
}

export interface GrokOptions {
  namedOnly: boolean;
  removeEmpty: boolean;
}

/** A value a capture gives: a string, or a number by its type hint. */
export type GrokValue = string | number | JsonNumber;

/** One compiled expression: `parse` gives the captures of its first match, by name. */
export class CompiledGrok {
  private readonly native: RegExp | undefined;

  constructor(
    private readonly re: RE2JS,
    /** The expression as one RE2 pattern. */
    readonly source: string,
    /** The capture name of each group, by group number (undefined: an unnamed group). */
    private readonly names: (string | undefined)[],
    private readonly typeHints: Map<string, string>,
    private readonly removeEmpty: boolean,
  ) {
    this.native = nativeRegExp(source);
  }

  /** The captures of the first match (empty when none), or an error when a type hint fails. */
  parse(text: string): Map<string, GrokValue> | Error {
    const out = new Map<string, GrokValue>();
    let group: (g: number) => string | null | undefined;
    if (this.native !== undefined && bmpOnly(text)) {
      const m = this.native.exec(text);
      if (m === null) return out;
      group = (g) => m[g];
    } else {
      const m = this.re.matcher(text);
      if (!m.find()) return out;
      group = (g) => m.group(g);
    }
    for (let g = 1; g < this.names.length; g++) {
      const name = this.names[g];
      if (name === undefined) continue;
      const value = group(g) ?? '';
      if (this.removeEmpty && value === '') continue;
      const typed = castTo(this.typeHints.get(name), value);
      if (typed instanceof Error) return typed;
      out.set(name, typed);
    }
    return out;
  }
}

/** A grok compiler over a pattern set: the defaults (unless skipped) then the config's own. */
export class Grok {
  private readonly known = new Map<string, GrokPattern>();

  /** Throws (`no pattern found for %{X}`) when a definition names a pattern there is not. */
  constructor(
    private readonly options: GrokOptions,
    sets: ReadonlyMap<string, string>[],
  ) {
    for (const set of sets) this.addAll(set);
  }

  /** Compiles an expression; throws when it names an unknown pattern or is not a valid regex. */
  compile(expression: string): CompiledGrok {
    const p = this.pattern(expression);
    const { source, names } = uniqueCaptureNames(p.expression);
    const re = RE2JS.compile(source);
    const byGroup: (string | undefined)[] = new Array<string | undefined>(re.groupCount() + 1).fill(undefined);
    for (const [unique, group] of Object.entries(re.namedGroups() as Record<string, number>)) {
      const name = names.get(unique)!;
      byGroup[group] = p.safeAliases.get(name) ?? name;
    }
    // type hints are keyed by the safe name; the output by the alias as written
    const hints = new Map<string, string>();
    for (const [safe, hint] of p.typeHints) hints.set(p.safeAliases.get(safe) ?? safe, hint);
    return new CompiledGrok(re, source, byGroup, hints, this.options.removeEmpty);
  }

  /** grok's addList: a set's patterns in an order that resolves references first; a known name is kept. */
  private addAll(set: ReadonlyMap<string, string>): void {
    const resolving = new Set<string>();
    const resolve = (key: string, expression: string): void => {
      if (resolving.has(key)) throw new Error(`pattern %{${key}} refers to itself`);
      resolving.add(key);
      for (const ref of expression.matchAll(REFERENCE)) {
        const refKey = ref[1]!.split(':')[0]!;
        if (this.known.has(refKey)) continue;
        const refExpression = set.get(refKey);
        if (refExpression === undefined) throw new Error(`no pattern found for %{${refKey}}`);
        resolve(refKey, refExpression);
      }
      resolving.delete(key);
      this.known.set(key, this.pattern(expression));
    };
    for (const [key, expression] of set) if (!this.known.has(key)) resolve(key, expression);
  }

  /** grok's newPattern: references replaced by their expressions, hints and aliases gathered. */
  private pattern(expression: string): GrokPattern {
    const typeHints = new Map<string, string>();
    const safeAliases = new Map<string, string>();
    let out = expression;
    for (const ref of expression.matchAll(REFERENCE)) {
      const names = ref[1]!.split(':');
      const refKey = names[0]!;
      let alias = names[1] ?? refKey;
      const safe = alias.replace(NON_WORD, '_');
      if (safe !== alias) {
        safeAliases.set(safe, alias);
        alias = safe;
      }
      if (names.length === 3 && names[2] !== 'string') typeHints.set(alias, names[2]!);
      const known = this.known.get(refKey);
      if (known === undefined) throw new Error(`no pattern found for %{${refKey}}`);
      const replacement = !this.options.namedOnly || names.length > 1 ? `(?P<${alias}>${known.expression})` : `(${known.expression})`;
      for (const [k, hint] of known.typeHints) if (!typeHints.has(k)) typeHints.set(k, hint.toLowerCase());
      for (const [k, real] of known.safeAliases) if (!safeAliases.has(k)) safeAliases.set(k, real);
      out = out.split(ref[0]).join(replacement);
    }
    return { expression: out, typeHints, safeAliases };
  }
}

/**
 * Renames every named capture (`(?P<n>`, `(?<n>`) to `g<i>`, skipping escapes and character
 * classes, so that names may repeat as Go's regexp allows; gives the renamed names' originals.
 */
function uniqueCaptureNames(source: string): { source: string; names: Map<string, string> } {
  const names = new Map<string, string>();
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      out += source.slice(i, i + 2);
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      // a `]` first in a class is a literal
      if (source[i + 1] === '^') out += source[++i];
      if (source[i + 1] === ']') out += source[++i];
      continue;
    }
    const named = /^\(\?P?<(\w+)>/.exec(source.slice(i, i + 260));
    if (c === '(' && named) {
      const unique = `g${names.size}`;
      names.set(unique, named[1]!);
      out += `(?P<${unique}>`;
      i += named[0].length - 1;
      continue;
    }
    out += c;
  }
  return { source: out, names };
}

/** grok's typeCast: Go's strconv.Atoi for int, ParseFloat for float. */
function castTo(hint: string | undefined, value: string): GrokValue | Error {
  if (hint === undefined || hint === 'string') return value;
  if (hint === 'int') {
    if (!/^[+-]?\d+$/.test(value)) return new Error(`strconv.Atoi: parsing ${JSON.stringify(value)}: invalid syntax`);
    const n = BigInt(value);
    if (n > 2n ** 63n - 1n || n < -(2n ** 63n)) return new Error(`strconv.Atoi: parsing ${JSON.stringify(value)}: value out of range`);
    return JsonNumber.ofInt(n);
  }
  if (hint === 'float') {
    const n = parseGoFloat(value);
    return n === undefined ? new Error(`strconv.ParseFloat: parsing ${JSON.stringify(value)}: invalid syntax`) : n;
  }
  return new Error(`ERROR the value ${value} cannot be converted to ${hint}. Must be int, float, string or empty`);
}

/** Go's ParseFloat on the decimal forms a capture holds (`1`, `-2.5`, `.5`, `1e3`). */
function parseGoFloat(text: string): number | undefined {
  return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : undefined;
}
