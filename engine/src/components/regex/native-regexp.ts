/**
 * A Go (RE2) pattern run on V8's own RegExp where that provably gives RE2's answer in bounded
 * time, for hot paths where re2js is too slow (grok's large default patterns: 3 ms a line).
 *
 * Bounded: V8 is told (once, process-wide) to leave a match that backtracks too much for its
 * linear-time engine (`--enable-experimental-regexp-engine-on-excessive-backtracks`), and a
 * pattern is only translated when that engine accepts it (compiling it with the `l` flag
 * succeeds), so no input can make it backtrack catastrophically.
 *
 * The same answer: the translation keeps Go's meanings (`.` is `[^\n]`, `\s` is `[\t\n\f\r ]`,
 * `\d \w \b` ASCII, `^ $` the text's ends, leftmost-first alternation, capture numbers) and gives
 * up (undefined: keep re2js) on what could differ: flags (`(?i)`), Unicode classes, POSIX
 * classes, octal, `\Q`, runes beyond the BMP, and a repeated group that can match empty or holds
 * a capture some repetition may skip (JavaScript clears those each time round, Go keeps them).
 * The caller matches only text without surrogates (see {@link bmpOnly}), where a UTF-16 unit is
 * a rune.
 */
import v8 from 'node:v8';

v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
// Lets `new RegExp(src, 'l')` ask the linear engine whether it can run a pattern.
v8.setFlagsFromString('--enable-experimental-regexp-engine');

const SURROGATE = /[\ud800-\udfff]/;

/** True when every rune of the text is one UTF-16 unit, so a translated pattern sees what Go sees. */
export function bmpOnly(text: string): boolean {
  return !SURROGATE.test(text);
}

/** The pattern on V8's RegExp (capture numbers as Go's), or undefined when that could differ from RE2. */
export function nativeRegExp(pattern: string): RegExp | undefined {
  let src: string;
  try {
    const t = new Translator(pattern);
    src = t.alternation().src;
    if (t.i !== pattern.length) return undefined;
  } catch (err) {
    if (err === UNSUPPORTED) return undefined;
    throw err;
  }
  try {
    // eslint-disable-next-line no-invalid-regexp -- V8's `l` (linear) flag, enabled above
    new RegExp(src, 'l');
  } catch {
    return undefined; // the linear engine cannot run it: no bound on backtracking
  }
  return new RegExp(src);
}

const UNSUPPORTED = Symbol('unsupported');

interface Node {
  src: string;
  /** It can match the empty string. */
  nullable: boolean;
  /** The captures inside it. */
  groups: Set<number>;
  /** The captures every match of it sets. */
  always: Set<number>;
}

/** A bound on the source that written-out repetitions may make (nested counts multiply). */
const MAX_SOURCE = 64 * 1024;

const unit = (c: number): string => `\\u${c.toString(16).padStart(4, '0')}`;
const CLASSES: Record<string, string> = { d: '0-9', w: 'A-Za-z0-9_', s: '\\t\\n\\f\\r ' };
const CONTROL: Record<string, number> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };

class Translator {
  i = 0;
  private groupCount = 0;
  /** Source written out by repetitions so far. */
  private size = 0;
  constructor(private readonly p: string) {}

  private fail(): never {
    throw UNSUPPORTED;
  }

  alternation(): Node {
    const branches = [this.concat()];
    while (this.p[this.i] === '|') {
      this.i++;
      branches.push(this.concat());
    }
    if (branches.length === 1) return branches[0]!;
    const groups = new Set(branches.flatMap((b) => [...b.groups]));
    const always = new Set([...branches[0]!.always].filter((g) => branches.every((b) => b.always.has(g))));
    return { src: branches.map((b) => b.src).join('|'), nullable: branches.some((b) => b.nullable), groups, always };
  }

  private concat(): Node {
    const out: Node = { src: '', nullable: true, groups: new Set(), always: new Set() };
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') {
      const n = this.repeat(this.atom());
      out.src += n.src;
      out.nullable &&= n.nullable;
      for (const g of n.groups) out.groups.add(g);
      for (const g of n.always) out.always.add(g);
    }
    return out;
  }

  private repeat(atom: Node): Node {
    const rest = this.p.slice(this.i);
    let min: number;
    let max: number;
    let op: string;
    const braces = /^\{(\d+)(,(\d*))?\}/.exec(rest);
    if (rest[0] === '*' || rest[0] === '+' || rest[0] === '?') {
      op = rest[0];
      [min, max] = op === '*' ? [0, Infinity] : op === '+' ? [1, Infinity] : [0, 1];
    } else if (braces) {
      op = braces[0];
      min = Number(braces[1]);
      max = braces[2] === undefined ? min : braces[3] === '' ? Infinity : Number(braces[3]);
    } else {
      return atom;
    }
    this.i += op.length;
    if (this.p[this.i] === '?') {
      op += '?';
      this.i++;
    }
    // JavaScript clears a repeated group's captures each time round and stops a loop on an empty
    // iteration; Go does neither: only repetitions where that cannot show are translated.
    if (max > 1 && (atom.nullable || [...atom.groups].some((g) => !atom.always.has(g)))) this.fail();
    const nullable = atom.nullable || min === 0;
    if (atom.groups.size > 0 || max <= 1 || (min <= 1 && max === Infinity)) {
      return { src: atom.src + op, nullable, groups: atom.groups, always: min === 0 ? new Set() : atom.always };
    }
    // Written out (`x{1,3}` is `x(?:x(?:x)?)?`, the same greedy or lazy choices), as V8's linear
    // engine refuses nested counts whose product passes 16 (IPv6's `(x{1,4}:){7}`).
    const lazy = op.endsWith('?') ? '?' : '';
    let src = atom.src.repeat(Math.max(min - (max === Infinity ? 1 : 0), 0));
    if (max === Infinity) src += `${atom.src}+${lazy}`;
    else src += `(?:${atom.src}`.repeat(max - min) + `)?${lazy}`.repeat(max - min);
    this.size += src.length;
    if (this.size > MAX_SOURCE) this.fail();
    return { src: `(?:${src})`, nullable, groups: atom.groups, always: new Set() };
  }

  private atom(): Node {
    const c = this.p[this.i]!;
    const plain = (src: string, nullable = false): Node => ({ src, nullable, groups: new Set(), always: new Set() });
    switch (c) {
      case '(':
        return this.group();
      case '[':
        return plain(this.charClass());
      case '.':
        this.i++;
        return plain('[^\\n]');
      case '^':
      case '$':
        this.i++;
        return plain(c, true);
      case '\\':
        return this.escape();
      case '*':
      case '+':
      case '?':
        return this.fail();
      default: {
        const cp = this.p.codePointAt(this.i)!;
        if (cp > 0xffff) this.fail();
        this.i++;
        return plain(unit(cp));
      }
    }
  }

  private group(): Node {
    const rest = this.p.slice(this.i);
    let capture: number | undefined;
    const named = /^\(\?P?<\w+>/.exec(rest);
    if (named) {
      capture = ++this.groupCount;
      this.i += named[0].length;
    } else if (rest.startsWith('(?:')) {
      this.i += 3;
    } else if (rest.startsWith('(?')) {
      this.fail(); // flags
    } else {
      capture = ++this.groupCount;
      this.i++;
    }
    const body = this.alternation();
    if (this.p[this.i] !== ')') this.fail();
    this.i++;
    if (capture === undefined) return { ...body, src: `(?:${body.src})` };
    return { src: `(${body.src})`, nullable: body.nullable, groups: new Set([...body.groups, capture]), always: new Set([...body.always, capture]) };
  }

  private escape(): Node {
    const e = this.p[this.i + 1];
    if (e === undefined) this.fail();
    this.i += 2;
    const plain = (src: string, nullable = false): Node => ({ src, nullable, groups: new Set(), always: new Set() });
    switch (e) {
      case 'd':
      case 'w':
      case 's':
        return plain(`[${CLASSES[e]}]`);
      case 'D':
      case 'W':
      case 'S':
        return plain(`[^${CLASSES[e.toLowerCase()]}]`);
      case 'b':
      case 'B':
        return plain(`\\${e}`, true);
      case 'A':
        return plain('^', true);
      case 'z':
        return plain('$', true);
      default:
        return plain(unit(this.escapedRune(e)));
    }
  }

  /** The rune an escape (already consumed, `e` its letter) stands for; gives up on octal, \p, \Q, \C. */
  private escapedRune(e: string): number {
    if (Object.hasOwn(CONTROL, e)) return CONTROL[e]!;
    if (e === 'x') {
      const m = /^(?:\{([0-9A-Fa-f]{1,6})\}|([0-9A-Fa-f]{2}))/.exec(this.p.slice(this.i));
      if (!m) this.fail();
      this.i += m[0].length;
      const cp = parseInt(m[1] ?? m[2]!, 16);
      return cp > 0xffff ? this.fail() : cp;
    }
    // Go lets any ASCII punctuation be escaped to stand for itself.
    if (/^[!-/:-@[-`{-~]$/.test(e)) return e.charCodeAt(0);
    return this.fail();
  }

  private charClass(): string {
    this.i++;
    let out = '[';
    if (this.p[this.i] === '^') {
      out += '^';
      this.i++;
    }
    let first = true;
    while (first || this.p[this.i] !== ']') {
      first = false;
      if (this.i >= this.p.length || this.p.startsWith('[:', this.i)) this.fail();
      const lo = this.classItem();
      if (typeof lo === 'string') {
        out += lo;
        continue;
      }
      if (this.p[this.i] === '-' && this.p[this.i + 1] !== ']' && this.i + 1 < this.p.length) {
        this.i++;
        const hi = this.classItem();
        if (typeof hi === 'string') this.fail();
        out += `${unit(lo)}-${unit(hi)}`;
      } else {
        out += unit(lo);
      }
    }
    this.i++;
    return out + ']';
  }

  /** A rune of a class, or a class escape's ranges as source. */
  private classItem(): number | string {
    const c = this.p[this.i]!;
    if (c === '\\') {
      const e = this.p[this.i + 1];
      if (e === undefined) this.fail();
      this.i += 2;
      if (e === 'd' || e === 'w' || e === 's') return CLASSES[e]!;
      return this.escapedRune(e);
    }
    const cp = this.p.codePointAt(this.i)!;
    if (cp > 0xffff) this.fail();
    this.i++;
    return cp;
  }
}
