/**
 * jq's grammar, as gojq (Benthos' jq) parses it, into a small AST: pipes, comma, `//`, the
 * update operators, `or`/`and`, comparisons, arithmetic, postfix paths (`.a`, `.[e]`, `.[a:b]`,
 * `.[]`, `?`), `as` bindings with array and object destructuring, `reduce`, `foreach`, `if`,
 * `try`/`catch`, `label`/`break`, `def` with filter and `$value` parameters, string
 * interpolation and `@format` strings. Modules (`import`, `include`) and `?//` are refused.
 */
import { type Value, numberText } from './value.js';

export type Pattern =
  { t: 'var'; name: string } | { t: 'array'; items: Pattern[] } | { t: 'object'; entries: { key: Node; bind?: string; pattern?: Pattern }[] };

export interface FuncDef {
  name: string;
  params: string[];
  body: Node;
}

export type Node =
  | { t: 'identity' }
  | { t: 'recurse' }
  | { t: 'literal'; v: Value }
  | { t: 'string'; parts: (string | Node)[]; format?: string }
  | { t: 'format'; name: string }
  | { t: 'index'; target: Node; key: Node }
  | { t: 'slice'; target: Node; from?: Node; to?: Node }
  | { t: 'iterate'; target: Node }
  | { t: 'try'; body: Node; handler?: Node }
  | { t: 'pipe' | 'comma' | 'and' | 'or' | 'alt'; l: Node; r: Node }
  | { t: 'binop'; op: string; l: Node; r: Node }
  | { t: 'update'; op: string; l: Node; r: Node }
  | { t: 'neg'; body: Node }
  | { t: 'array'; body?: Node }
  | { t: 'object'; entries: { key: Node; value: Node }[] }
  | { t: 'if'; cond: Node; then: Node; else?: Node }
  | { t: 'reduce'; source: Node; pattern: Pattern; init: Node; update: Node }
  | { t: 'foreach'; source: Node; pattern: Pattern; init: Node; update: Node; extract?: Node }
  | { t: 'call'; name: string; args: Node[] }
  | { t: 'var'; name: string }
  | { t: 'as'; source: Node; pattern: Pattern; body: Node }
  | { t: 'label'; name: string; body: Node }
  | { t: 'break'; name: string }
  | { t: 'def'; def: FuncDef; body: Node };

type Token =
  | { k: 'num'; v: string; at: number }
  | { k: 'str'; parts: (string | Token[])[]; at: number }
  | { k: 'ident' | 'field' | 'var' | 'format' | 'op'; v: string; at: number }
  | { k: 'eof'; at: number };

/** A query that does not parse: the message says where, as gojq's does. */
export class JqSyntaxError extends Error {}

const OPS = [
  '?//',
  '|=',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '//=',
  '==',
  '!=',
  '<=',
  '>=',
  '//',
  '..',
  '|',
  ',',
  '+',
  '-',
  '*',
  '/',
  '%',
  '=',
  '<',
  '>',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ':',
  ';',
  '?',
  '.',
];
const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** Tokens from `pos`; inside an interpolation it stops at the `)` that closes it. */
function tokenize(src: string, pos: number, nested: boolean): { tokens: Token[]; end: number } {
  const tokens: Token[] = [];
  let depth = 0;
  const fail = (what: string): never => {
    throw new JqSyntaxError(`unexpected ${what} at offset ${pos}`);
  };
  while (pos < src.length) {
    const c = src[pos]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      pos++;
      continue;
    }
    if (c === '#') {
      while (pos < src.length && src[pos] !== '\n') pos++;
      continue;
    }
    const at = pos;
    if (c === '"') {
      const parts: (string | Token[])[] = [];
      let text = '';
      pos++;
      for (;;) {
        if (pos >= src.length) fail('end of query in string');
        const d = src[pos]!;
        if (d === '"') break;
        if (d !== '\\') {
          text += d;
          pos++;
          continue;
        }
        const e = src[pos + 1];
        if (e === '(') {
          parts.push(text);
          text = '';
          const inner = tokenize(src, pos + 2, true);
          parts.push(inner.tokens);
          pos = inner.end + 1;
        } else if (e === 'u') {
          const hex = src.slice(pos + 2, pos + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('escape in string');
          text += String.fromCharCode(parseInt(hex, 16));
          pos += 6;
        } else if (e !== undefined && Object.hasOwn(ESCAPES, e)) {
          text += ESCAPES[e];
          pos += 2;
        } else fail('escape in string');
      }
      pos++;
      parts.push(text);
      tokens.push({ k: 'str', parts, at });
      continue;
    }
    IDENT.lastIndex = pos + 1;
    if ((c === '.' || c === '$' || c === '@') && IDENT.test(src)) {
      const v = src.slice(pos + 1, IDENT.lastIndex);
      pos = IDENT.lastIndex;
      if (c === '$' && src.startsWith('::', pos)) fail('module variable');
      tokens.push({ k: c === '.' ? 'field' : c === '$' ? 'var' : 'format', v, at });
      continue;
    }
    NUMBER.lastIndex = pos;
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[pos + 1] ?? '')) ? NUMBER.test(src) : false) {
      tokens.push({ k: 'num', v: src.slice(pos, NUMBER.lastIndex), at });
      pos = NUMBER.lastIndex;
      continue;
    }
    IDENT.lastIndex = pos;
    if (IDENT.test(src)) {
      tokens.push({ k: 'ident', v: src.slice(pos, IDENT.lastIndex), at });
      pos = IDENT.lastIndex;
      if (src.startsWith('::', pos)) fail('module reference');
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, pos));
    if (op === undefined) fail(`character ${JSON.stringify(c)}`);
    if (nested && op === '(') depth++;
    if (nested && op === ')' && depth-- === 0) return { tokens: [...tokens, { k: 'eof', at }], end: pos };
    tokens.push({ k: 'op', v: op!, at });
    pos += op!.length;
  }
  if (nested) fail('end of query in string interpolation');
  tokens.push({ k: 'eof', at: pos });
  return { tokens, end: pos };
}

const KEYWORDS = new Set([
  'def',
  'if',
  'then',
  'elif',
  'else',
  'end',
  'as',
  'reduce',
  'foreach',
  'try',
  'catch',
  'label',
  'import',
  'include',
  'and',
  'or',
  '__loc__',
]);
const COMPARE = new Set(['==', '!=', '<', '<=', '>', '>=']);
const UPDATE = new Set(['=', '|=', '+=', '-=', '*=', '/=', '%=', '//=']);
const IDENTITY: Node = { t: 'identity' };

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.i]!;
  }
  private next(): Token {
    return this.tokens[this.i++]!;
  }
  private isOp(v: string): boolean {
    const t = this.peek();
    return t.k === 'op' && t.v === v;
  }
  private isWord(v: string): boolean {
    const t = this.peek();
    return t.k === 'ident' && t.v === v;
  }
  private fail(t: Token = this.peek()): never {
    const what =
      t.k === 'eof'
        ? 'end of query'
        : t.k === 'str'
          ? 'string'
          : t.k === 'op' || t.k === 'ident'
            ? `token ${JSON.stringify(t.v)}`
            : `token ${JSON.stringify(t.k === 'num' ? t.v : t.v)}`;
    throw new JqSyntaxError(`unexpected ${what} at offset ${t.at}`);
  }
  private expectOp(v: string): void {
    if (!this.isOp(v)) this.fail();
    this.i++;
  }
  private expectWord(v: string): void {
    if (!this.isWord(v)) this.fail();
    this.i++;
  }
  private variable(): string {
    const t = this.next();
    if (t.k !== 'var') this.fail(t);
    return t.v;
  }

  program(): Node {
    const n = this.pipe();
    if (this.peek().k !== 'eof') this.fail();
    return n;
  }

  pipe(): Node {
    if (this.isWord('def')) {
      const def = this.funcDef();
      return { t: 'def', def, body: this.pipe() };
    }
    if (this.isWord('label')) {
      this.i++;
      const name = this.variable();
      this.expectOp('|');
      return { t: 'label', name, body: this.pipe() };
    }
    if (this.isWord('import') || this.isWord('include')) throw new JqSyntaxError('modules (import, include) are not supported');
    const l = this.comma();
    if (this.isOp('|')) {
      this.i++;
      return { t: 'pipe', l, r: this.pipe() };
    }
    return l;
  }

  private funcDef(): FuncDef {
    this.expectWord('def');
    const t = this.next();
    if (t.k !== 'ident' || KEYWORDS.has(t.v)) this.fail(t);
    const params: string[] = [];
    if (this.isOp('(')) {
      this.i++;
      for (;;) {
        const p = this.next();
        if (p.k === 'ident') params.push(p.v);
        else if (p.k === 'var') params.push('$' + p.v);
        else this.fail(p);
        if (this.isOp(')')) break;
        this.expectOp(';');
      }
      this.i++;
    }
    this.expectOp(':');
    const body = this.pipe();
    this.expectOp(';');
    return { name: t.v, params, body };
  }

  private comma(): Node {
    let l = this.alt();
    while (this.isOp(',')) {
      this.i++;
      l = { t: 'comma', l, r: this.alt() };
    }
    return l;
  }

  private alt(): Node {
    const l = this.update();
    if (this.isOp('//')) {
      this.i++;
      return { t: 'alt', l, r: this.alt() };
    }
    if (this.isOp('?//')) throw new JqSyntaxError('destructuring alternatives (?//) are not supported');
    return l;
  }

  private update(): Node {
    const l = this.or();
    const t = this.peek();
    if (t.k === 'op' && UPDATE.has(t.v)) {
      this.i++;
      return { t: 'update', op: t.v, l, r: this.alt() };
    }
    return l;
  }

  private or(): Node {
    let l = this.and();
    while (this.isWord('or')) {
      this.i++;
      l = { t: 'or', l, r: this.and() };
    }
    return l;
  }

  private and(): Node {
    let l = this.compare();
    while (this.isWord('and')) {
      this.i++;
      l = { t: 'and', l, r: this.compare() };
    }
    return l;
  }

  private compare(): Node {
    const l = this.additive();
    const t = this.peek();
    if (t.k === 'op' && COMPARE.has(t.v)) {
      this.i++;
      const r = this.additive();
      const u = this.peek();
      if (u.k === 'op' && COMPARE.has(u.v)) this.fail(u);
      return { t: 'binop', op: t.v, l, r };
    }
    return l;
  }

  private additive(): Node {
    let l = this.multiplicative();
    for (let t = this.peek(); t.k === 'op' && (t.v === '+' || t.v === '-'); t = this.peek()) {
      this.i++;
      l = { t: 'binop', op: t.v, l, r: this.multiplicative() };
    }
    return l;
  }

  private multiplicative(): Node {
    let l = this.postfix(true);
    for (let t = this.peek(); t.k === 'op' && (t.v === '*' || t.v === '/' || t.v === '%'); t = this.peek()) {
      this.i++;
      l = { t: 'binop', op: t.v, l, r: this.postfix(true) };
    }
    return l;
  }

  /** A term with its suffixes; `allowAs` is false where `as` belongs to reduce/foreach. */
  private postfix(allowAs: boolean): Node {
    if (this.isOp('-')) {
      this.i++;
      return { t: 'neg', body: this.postfix(allowAs) };
    }
    if (this.isOp('+')) {
      this.i++;
      return this.postfix(allowAs);
    }
    let n = this.primary();
    for (;;) {
      const t = this.peek();
      if (t.k === 'field') {
        this.i++;
        n = { t: 'index', target: n, key: { t: 'literal', v: t.v } };
      } else if (t.k === 'op' && t.v === '.' && this.tokens[this.i + 1]?.k === 'str') {
        this.i++;
        n = { t: 'index', target: n, key: this.stringNode(this.next() as Token & { k: 'str' }) };
      } else if (t.k === 'op' && t.v === '.' && this.tokens[this.i + 1]?.k === 'op' && (this.tokens[this.i + 1] as { v: string }).v === '[') {
        this.i++;
      } else if (t.k === 'op' && t.v === '[') {
        n = this.bracket(n);
      } else if (t.k === 'op' && t.v === '?') {
        this.i++;
        n = { t: 'try', body: n };
      } else if (allowAs && t.k === 'ident' && t.v === 'as') {
        this.i++;
        const pattern = this.pattern();
        this.expectOp('|');
        return { t: 'as', source: n, pattern, body: this.pipe() };
      } else return n;
    }
  }

  private bracket(target: Node): Node {
    this.expectOp('[');
    if (this.isOp(']')) {
      this.i++;
      return { t: 'iterate', target };
    }
    if (this.isOp(':')) {
      this.i++;
      const to = this.pipe();
      this.expectOp(']');
      return { t: 'slice', target, to };
    }
    const key = this.pipe();
    if (this.isOp(':')) {
      this.i++;
      const to = this.isOp(']') ? undefined : this.pipe();
      this.expectOp(']');
      return { t: 'slice', target, from: key, to };
    }
    this.expectOp(']');
    return { t: 'index', target, key };
  }

  private stringNode(t: Token & { k: 'str' }, format?: string): Node {
    const parts = t.parts.filter((p) => p !== '').map((p) => (typeof p === 'string' ? p : new Parser(p).program()));
    if (parts.length === 1 && typeof parts[0] === 'string' && format === undefined) return { t: 'literal', v: parts[0] };
    return { t: 'string', parts, ...(format === undefined ? {} : { format }) };
  }

  private primary(): Node {
    const t = this.next();
    switch (t.k) {
      case 'num':
        return { t: 'literal', v: /^\d+$/.test(t.v) ? numberText(t.v) : Number(t.v) };
      case 'str':
        return this.stringNode(t);
      case 'field':
        return { t: 'index', target: IDENTITY, key: { t: 'literal', v: t.v } };
      case 'var':
        return { t: 'var', name: t.v };
      case 'format':
        if (this.peek().k === 'str') return this.stringNode(this.next() as Token & { k: 'str' }, t.v);
        return { t: 'format', name: t.v };
      case 'op':
        return this.primaryOp(t.v, t);
      case 'ident':
        return this.primaryWord(t.v, t);
      default:
        return this.fail(t);
    }
  }

  private primaryOp(v: string, t: Token): Node {
    if (v === '.') {
      if (this.peek().k === 'str') return { t: 'index', target: IDENTITY, key: this.stringNode(this.next() as Token & { k: 'str' }) };
      return IDENTITY;
    }
    if (v === '..') return { t: 'recurse' };
    if (v === '(') {
      const n = this.pipe();
      this.expectOp(')');
      return n;
    }
    if (v === '[') {
      if (this.isOp(']')) {
        this.i++;
        return { t: 'array' };
      }
      const body = this.pipe();
      this.expectOp(']');
      return { t: 'array', body };
    }
    if (v === '{') return this.object();
    return this.fail(t);
  }

  private primaryWord(v: string, t: Token): Node {
    switch (v) {
      case 'null':
        return { t: 'literal', v: null };
      case 'true':
        return { t: 'literal', v: true };
      case 'false':
        return { t: 'literal', v: false };
      case 'if':
        return this.ifThen();
      case 'try': {
        const body = this.postfix(false);
        if (!this.isWord('catch')) return { t: 'try', body };
        this.i++;
        return { t: 'try', body, handler: this.postfix(false) };
      }
      case 'reduce':
      case 'foreach': {
        const source = this.postfix(false);
        this.expectWord('as');
        const pattern = this.pattern();
        this.expectOp('(');
        const init = this.pipe();
        this.expectOp(';');
        const update = this.pipe();
        let extract: Node | undefined;
        if (v === 'foreach' && this.isOp(';')) {
          this.i++;
          extract = this.pipe();
        }
        this.expectOp(')');
        if (v === 'reduce') return { t: 'reduce', source, pattern, init, update };
        return { t: 'foreach', source, pattern, init, update, ...(extract ? { extract } : {}) };
      }
      case 'break':
        return { t: 'break', name: this.variable() };
      case 'def': {
        this.i--;
        const def = this.funcDef();
        return { t: 'def', def, body: this.pipe() };
      }
      case 'label': {
        const name = this.variable();
        this.expectOp('|');
        return { t: 'label', name, body: this.pipe() };
      }
    }
    if (KEYWORDS.has(v)) return this.fail(t);
    const args: Node[] = [];
    if (this.isOp('(')) {
      this.i++;
      for (;;) {
        args.push(this.pipe());
        if (this.isOp(')')) break;
        this.expectOp(';');
      }
      this.i++;
    }
    return { t: 'call', name: v, args };
  }

  private ifThen(): Node {
    const cond = this.pipe();
    this.expectWord('then');
    const then = this.pipe();
    if (this.isWord('elif')) {
      this.i++;
      return { t: 'if', cond, then, else: this.ifThen() };
    }
    if (this.isWord('else')) {
      this.i++;
      const otherwise = this.pipe();
      this.expectWord('end');
      return { t: 'if', cond, then, else: otherwise };
    }
    this.expectWord('end');
    return { t: 'if', cond, then };
  }

  private object(): Node {
    const entries: { key: Node; value: Node }[] = [];
    while (!this.isOp('}')) {
      const t = this.next();
      let key: Node;
      let value: Node | undefined;
      if (t.k === 'var') {
        key = { t: 'literal', v: t.v };
        value = { t: 'var', name: t.v };
      } else if (t.k === 'ident') key = { t: 'literal', v: t.v };
      else if (t.k === 'num') key = { t: 'literal', v: t.v };
      else if (t.k === 'str') key = this.stringNode(t);
      else if (t.k === 'format' && this.peek().k === 'str') key = this.stringNode(this.next() as Token & { k: 'str' }, t.v);
      else if (t.k === 'op' && t.v === '(') {
        key = this.pipe();
        this.expectOp(')');
      } else return this.fail(t);
      if (this.isOp(':')) {
        this.i++;
        value = this.objectValue();
      } else if (value === undefined) {
        if (t.k === 'op') this.fail();
        value = { t: 'index', target: IDENTITY, key };
      }
      entries.push({ key, value });
      if (!this.isOp(',')) break;
      this.i++;
    }
    this.expectOp('}');
    return { t: 'object', entries };
  }

  private objectValue(): Node {
    let v = this.alt();
    while (this.isOp('|')) {
      this.i++;
      v = { t: 'pipe', l: v, r: this.alt() };
    }
    return v;
  }

  private pattern(): Pattern {
    const t = this.next();
    if (t.k === 'var') return { t: 'var', name: t.v };
    if (t.k === 'op' && t.v === '[') {
      const items: Pattern[] = [];
      for (;;) {
        items.push(this.pattern());
        if (this.isOp(']')) break;
        this.expectOp(',');
      }
      this.i++;
      return { t: 'array', items };
    }
    if (t.k === 'op' && t.v === '{') {
      const entries: { key: Node; bind?: string; pattern?: Pattern }[] = [];
      for (;;) {
        const k = this.next();
        let key: Node;
        let bind: string | undefined;
        if (k.k === 'var') {
          key = { t: 'literal', v: k.v };
          bind = k.v;
        } else if (k.k === 'ident') key = { t: 'literal', v: k.v };
        else if (k.k === 'str') key = this.stringNode(k);
        else if (k.k === 'op' && k.v === '(') {
          key = this.pipe();
          this.expectOp(')');
        } else return this.fail(k);
        let pattern: Pattern | undefined;
        if (this.isOp(':')) {
          this.i++;
          pattern = this.pattern();
        } else if (bind === undefined) this.fail();
        entries.push({ key, ...(bind === undefined ? {} : { bind }), ...(pattern ? { pattern } : {}) });
        if (this.isOp('}')) break;
        this.expectOp(',');
      }
      this.i++;
      return { t: 'object', entries };
    }
    return this.fail(t);
  }
}

/** Parses a jq program; a JqSyntaxError says what was unexpected and where. */
export function parseJq(src: string): Node {
  return new Parser(tokenize(src, 0, false).tokens).program();
}
