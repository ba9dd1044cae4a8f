/**
 * Go's text/template, the subset Tyk's body transforms are written in (`transform`,
 * `transform_response`; Tyk v5.14.0 parses them with sprig's functions and its own `jsonMarshal`),
 * run on a JSON body decoded as Go decodes it (objects, arrays, strings, float64 numbers, bools, nil):
 *
 * - text and actions `{{ }}` with `{{-` / `-}}` trimming, and comment actions;
 * - `if` / `else if` / `else`, `range` (slices, and maps in key order; `$v :=`, `$k, $v :=`;
 *   `else`), `with` / `else`, `end`; variables (`$`, `$x := ...`, `$x = ...`), fields (`.a.b`,
 *   `$x.a`), literals (strings, raw strings, numbers, `true`, `false`, `nil`), pipes and
 *   parentheses;
 * - functions: Go's `and`, `or`, `not`, `len`, `index`, `print`, `printf` (`%v %s %d %q %f %t %%`),
 *   `println`, `eq`, `ne`, `lt`, `le`, `gt`, `ge`, `urlquery`, `html`, `js`; Tyk's `jsonMarshal`;
 *   sprig's `upper`, `lower`, `title`, `trim`, `trimPrefix`, `trimSuffix`, `replace`, `contains`,
 *   `hasPrefix`, `hasSuffix`, `quote`, `squote`, `default`, `empty`, `coalesce`, `toJson`,
 *   `toString`, `join`, `b64enc`, `b64dec`, `repeat`.
 *
 * Values print as Go's fmt `%v` does (`1e+06`, `map[a:1 b:x]`, `[1 2]`, `<nil>`, a missing key
 * `<no value>`). Anything else (`define`, `template`, `block`, `break`, other functions) is an
 * error at load (`parseTemplate` throws), never a template served differently.
 */
import { goString } from './go-shape.js';
import { goFloat } from './json-schema.js';

type Value = unknown;

/** An int (a template's integer literal, `len`, a range index): JSON numbers are float64 to Go, and the two print and compare apart. */
class GoInt {
  constructor(readonly n: number) {}
}
/** A map key that is absent: prints `<no value>`, is false, and stops a field chain with Go's error. */
const MISSING: unique symbol = Symbol('missing');

interface Text {
  kind: 'text';
  text: string;
}
interface Action {
  kind: 'action';
  pipe: Pipeline;
}
interface Branch {
  kind: 'if' | 'with' | 'range';
  pipe: Pipeline;
  body: Node[];
  otherwise: Node[];
}
type Node = Text | Action | Branch;

interface Pipeline {
  /** Variables declared (`:=`) or assigned (`=`) with the pipeline's value. */
  decl: string[];
  assign: boolean;
  commands: Operand[][];
}

type Operand =
  | { kind: 'dot'; fields: string[] }
  | { kind: 'var'; name: string; fields: string[] }
  | { kind: 'literal'; value: Value }
  | { kind: 'func'; name: string }
  | { kind: 'pipe'; pipe: Pipeline; fields: string[] };

/** A template error, worded as Go's text/template words it where it matters. */
export class TemplateError extends Error {}

const BUILTINS = ['and', 'or', 'not', 'len', 'index', 'print', 'printf', 'println', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'urlquery', 'html', 'js'];
const TYK = ['jsonMarshal'];
const SPRIG = [
  'upper',
  'lower',
  'title',
  'trim',
  'trimPrefix',
  'trimSuffix',
  'replace',
  'contains',
  'hasPrefix',
  'hasSuffix',
  'quote',
  'squote',
  'default',
  'empty',
  'coalesce',
  'toJson',
  'toString',
  'join',
  'b64enc',
  'b64dec',
  'repeat',
];
const FUNCTIONS = new Set([...BUILTINS, ...TYK, ...SPRIG]);

// ---- parsing ----

interface Token {
  t: 'text' | 'action';
  s: string;
}

/** Splits the template into text and action bodies, applying `{{-` / `-}}` trimming. */
function split(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const open = src.indexOf('{{', i);
    if (open < 0) {
      out.push({ t: 'text', s: src.slice(i) });
      break;
    }
    let text = src.slice(i, open);
    let start = open + 2;
    if (src.startsWith('- ', start) || src.startsWith('-\t', start) || src.startsWith('-\n', start) || src.startsWith('-\r', start)) {
      text = text.replace(/[ \t\r\n]+$/, '');
      start += 1;
    }
    out.push({ t: 'text', s: text });
    // The action ends at the first `}}` outside a string or comment.
    let j = start;
    let quote = '';
    while (j < src.length) {
      const c = src[j]!;
      if (quote !== '') {
        if (c === '\\' && quote === '"') j++;
        else if (c === quote) quote = '';
      } else if (c === '"' || c === '`' || c === "'") quote = c;
      else if (src.startsWith('/*', j)) {
        const end = src.indexOf('*/', j + 2);
        if (end < 0) throw new TemplateError('unclosed comment');
        j = end + 1;
      } else if (src.startsWith('}}', j)) break;
      j++;
    }
    if (j >= src.length) throw new TemplateError('unclosed action');
    let body = src.slice(start, j);
    i = j + 2;
    if (/[ \t\r\n]-$/.test(body)) {
      body = body.slice(0, -1);
      const m = /^[ \t\r\n]+/.exec(src.slice(i));
      if (m) i += m[0].length;
    }
    out.push({ t: 'action', s: body });
  }
  return out;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*/;

/** The lexemes of an action body. */
function lex(s: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (s.startsWith('/*', i)) {
      const end = s.indexOf('*/', i + 2);
      i = end + 2;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
      out.push(s.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    if (c === '`' || c === "'") {
      const j = s.indexOf(c, i + 1);
      if (j < 0) throw new TemplateError('unterminated quoted string');
      out.push(s.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    if (s.startsWith(':=', i)) {
      out.push(':=');
      i += 2;
      continue;
    }
    if ('()|=,'.includes(c)) {
      out.push(c);
      i++;
      continue;
    }
    // A word: identifiers, fields, variables, numbers, joined chains (`.a.b`, `$x.y`, `(..).a` handled by the parser).
    const m = /^[^\s()|=,"`']+/.exec(s.slice(i))!;
    out.push(m[0]);
    i += m[0].length;
  }
  return out;
}

function fieldsOf(word: string): string[] {
  const parts = word.split('.').slice(1);
  for (const p of parts) if (!IDENT.test(p) || IDENT.exec(p)![0] !== p) throw new TemplateError(`bad field ${JSON.stringify(word)}`);
  return parts;
}

function literal(word: string): Value | typeof MISSING {
  if (word === 'true') return true;
  if (word === 'false') return false;
  if (word === 'nil') return null;
  if (word.startsWith('"')) {
    try {
      return JSON.parse(
        word
          .replace(/\\x([0-9a-fA-F]{2})/g, '\\u00$1')
          .replace(/\\a/g, '\\u0007')
          .replace(/\\v/g, '\\u000b'),
      ) as string;
    } catch {
      throw new TemplateError(`bad string ${word}`);
    }
  }
  if (word.startsWith('`')) return word.slice(1, -1);
  if (word.startsWith("'")) {
    const ch = word.slice(1, -1);
    if ([...ch].length !== 1) throw new TemplateError(`bad character constant ${word}`);
    return new GoInt(ch.codePointAt(0)!);
  }
  if (/^[-+]?(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO]?[0-7_]*|\d[\d_]*(\.\d*)?([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)$/.test(word)) {
    const n = Number(word.replace(/_/g, '').replace(/^([-+]?)0[oO]/, '$10o'));
    if (Number.isNaN(n)) throw new TemplateError(`bad number ${word}`);
    return /^[-+]?(0[xXbBoO]|\d+$)/.test(word.replace(/_/g, '')) && Number.isInteger(n) ? new GoInt(n) : n;
  }
  return MISSING;
}

class Parser {
  private pos = 0;
  constructor(private readonly toks: string[]) {}

  private peek(): string | undefined {
    return this.toks[this.pos];
  }

  pipeline(stopAt: string[] = []): Pipeline {
    const p: Pipeline = { decl: [], assign: false, commands: [] };
    // Declarations: `$x :=`, `$i, $v :=`, `$x =`.
    const save = this.pos;
    const names: string[] = [];
    while (this.peek()?.startsWith('$') && IDENT.test(this.peek()!.slice(1) || 'x') && !this.peek()!.includes('.')) {
      names.push(this.toks[this.pos++]!);
      if (this.peek() === ',') {
        this.pos++;
        continue;
      }
      break;
    }
    if (names.length > 0 && (this.peek() === ':=' || this.peek() === '=')) {
      p.assign = this.toks[this.pos++] === '=';
      p.decl = names;
    } else this.pos = save;
    let cmd: Operand[] = [];
    for (;;) {
      const tok = this.peek();
      if (tok === undefined || stopAt.includes(tok)) break;
      if (tok === '|') {
        if (cmd.length === 0) throw new TemplateError('missing command before |');
        p.commands.push(cmd);
        cmd = [];
        this.pos++;
        continue;
      }
      cmd.push(this.operand());
    }
    if (cmd.length === 0) throw new TemplateError(p.commands.length > 0 ? 'missing command after |' : 'missing value for command');
    p.commands.push(cmd);
    for (const c of p.commands) {
      const [head, format] = c;
      if (head?.kind === 'func' && head.name === 'printf' && format?.kind === 'literal' && typeof format.value === 'string') checkFormat(format.value);
    }
    return p;
  }

  private operand(): Operand {
    const tok = this.toks[this.pos++]!;
    if (tok === '(') {
      const pipe = this.pipeline([')']);
      if (this.toks[this.pos++] !== ')') throw new TemplateError('unclosed left paren');
      // `(...).field`
      const next = this.peek();
      if (next?.startsWith('.') && next.length > 1) {
        this.pos++;
        return { kind: 'pipe', pipe, fields: fieldsOf(next) };
      }
      return { kind: 'pipe', pipe, fields: [] };
    }
    if (tok === '.') return { kind: 'dot', fields: [] };
    if (tok.startsWith('.')) return { kind: 'dot', fields: fieldsOf(tok) };
    if (tok.startsWith('$')) {
      const dot = tok.indexOf('.');
      const name = dot < 0 ? tok : tok.slice(0, dot);
      return { kind: 'var', name, fields: dot < 0 ? [] : fieldsOf(tok.slice(dot)) };
    }
    const lit = literal(tok);
    if (lit !== MISSING) return { kind: 'literal', value: lit };
    if (IDENT.exec(tok)?.[0] === tok) {
      if (!FUNCTIONS.has(tok))
        throw new TemplateError(`function ${JSON.stringify(tok)} not supported by svc's body transforms (supported: ${[...FUNCTIONS].join(', ')})`);
      return { kind: 'func', name: tok };
    }
    throw new TemplateError(`unexpected ${JSON.stringify(tok)} in command`);
  }

  done(): void {
    if (this.pos < this.toks.length) throw new TemplateError(`unexpected ${JSON.stringify(this.toks[this.pos])}`);
  }
}

/** A parsed template, ready to run. */
export interface GoTemplate {
  nodes: Node[];
}

/** Parses `src` (throws a TemplateError for what Go refuses or svc does not run). */
export function parseTemplate(src: string): GoTemplate {
  const tokens = split(src);
  let i = 0;
  // Returns the nodes up to an `end` / `else` (which it leaves for the caller, with its words).
  const block = (inside: boolean): { nodes: Node[]; stop?: string[] } => {
    const nodes: Node[] = [];
    while (i < tokens.length) {
      const tok = tokens[i++]!;
      if (tok.t === 'text') {
        if (tok.s !== '') nodes.push({ kind: 'text', text: tok.s });
        continue;
      }
      const words = lex(tok.s);
      if (words.length === 0) {
        // A comment action writes nothing.
        if (/^\s*\/\*[\s\S]*\*\/\s*$/.test(tok.s)) continue;
        throw new TemplateError('missing value for command');
      }
      const head = words[0]!;
      if (head === 'end' || head === 'else') {
        if (!inside) throw new TemplateError(`unexpected {{${head}}}`);
        return { nodes, stop: words };
      }
      if (head === 'if' || head === 'with' || head === 'range') {
        nodes.push(branch(head, words.slice(1)));
        continue;
      }
      if (['define', 'template', 'block', 'break', 'continue'].includes(head)) throw new TemplateError(`{{${head}}} is not supported by svc's body transforms`);
      const p = new Parser(words);
      const pipe = p.pipeline();
      p.done();
      nodes.push({ kind: 'action', pipe });
    }
    if (inside) throw new TemplateError('unexpected EOF');
    return { nodes };
  };
  const branch = (kind: Branch['kind'], words: string[]): Branch => {
    const p = new Parser(words);
    const pipe = p.pipeline();
    p.done();
    const body = block(true);
    const node: Branch = { kind, pipe, body: body.nodes, otherwise: [] };
    const stop = body.stop!;
    if (stop[0] === 'else') {
      if (stop.length > 1) {
        // `else if ...` / `else with ...`: a branch nested in the else, closed by the same end.
        if ((stop[1] !== 'if' && stop[1] !== 'with') || kind === 'range') throw new TemplateError(`unexpected ${stop.join(' ')}`);
        node.otherwise = [branch(stop[1], stop.slice(2))];
      } else {
        const rest = block(true);
        if (rest.stop![0] !== 'end') throw new TemplateError('expected end; found else');
        node.otherwise = rest.nodes;
      }
    } else if (stop.length > 1) throw new TemplateError('unexpected words after end');
    return node;
  };
  return { nodes: block(false).nodes };
}

// ---- running ----

const isObj = (v: Value): v is Record<string, Value> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Go's truth (`if`, `with`, `and`, `or`, `not`). */
function truthy(v: Value): boolean {
  if (v === MISSING || v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (v instanceof GoInt) return v.n !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (isObj(v)) return Object.keys(v).length > 0;
  return true;
}

/** A value as fmt's `%v` prints it. */
export function goPrint(v: Value): string {
  if (v === MISSING) return '<no value>';
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goFloat(v);
  if (v instanceof GoInt) return String(v.n);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map((x) => goPrint(x)).join(' ')}]`;
  if (isObj(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goPrint(v[k])}`).join(' ')}]`;
  }
  return String(v);
}

/** Go's json.Marshal of a decoded value: keys sorted, `<`, `>`, `&` escaped. */
function goJsonMarshal(v: Value): string {
  if (v === MISSING || v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(goJsonMarshal).join(',')}]`;
  if (isObj(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${goString(k)}:${goJsonMarshal(v[k])}`)
      .join(',')}}`;
  if (typeof v === 'string') return goString(v);
  if (typeof v === 'number') return goJsonNumber(v);
  if (v instanceof GoInt) return String(v.n);
  return String(v);
}

/** encoding/json's float64: 'f' form, 'e' below 1e-6 or from 1e21 (`1e-07`, `1e+21`). */
function goJsonNumber(n: number): string {
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e21)) {
    const [m, e = '0'] = n.toExponential().split('e');
    const exp = Number(e);
    return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(n);
}

/** Go's fmt.Sprint: operands joined, a space between two when neither is a string. */
function sprint(args: Value[]): string {
  let out = '';
  args.forEach((a, i) => {
    if (i > 0 && typeof a !== 'string' && typeof args[i - 1] !== 'string') out += ' ';
    out += goPrint(a);
  });
  return out;
}

const VERB = /%([-+# 0]*)(\d*)(?:\.(\d+))?([a-zA-Z%])/g;
const VERBS = new Set(['v', 's', 'd', 'f', 'q', 't', '%']);

/** A printf format svc does not print as Go does: refused at load when the format is written in the template. */
function checkFormat(format: string): void {
  for (const m of format.matchAll(VERB))
    if (!VERBS.has(m[4]!) || /[+# ]/.test(m[1]!))
      throw new TemplateError(`printf ${m[0]} is not supported by svc's body transforms (verbs: %v %s %d %f %q %t, width, precision, - and 0)`);
}

function sprintf(format: string, args: Value[]): string {
  checkFormat(format);
  let n = 0;
  return format.replace(VERB, (_whole, flags: string, width: string, prec: string | undefined, verb: string) => {
    if (verb === '%') return '%';
    if (n >= args.length) return `%!${verb}(MISSING)`;
    const a = args[n++];
    let text: string;
    switch (verb) {
      case 'd':
        text = a instanceof GoInt ? String(a.n) : `%!d(${goTypeName(a)}=${goPrint(a)})`;
        break;
      case 'f':
        text = typeof a === 'number' ? a.toFixed(prec === undefined ? 6 : Number(prec)) : `%!f(${goTypeName(a)}=${goPrint(a)})`;
        break;
      case 'q':
        text = typeof a === 'string' ? JSON.stringify(a) : `%!q(${goTypeName(a)}=${goPrint(a)})`;
        break;
      case 't':
        text = typeof a === 'boolean' ? String(a) : `%!t(${goTypeName(a)}=${goPrint(a)})`;
        break;
      case 's':
        text = typeof a === 'string' ? (prec === undefined ? a : [...a].slice(0, Number(prec)).join('')) : `%!s(${goTypeName(a)}=${goPrint(a)})`;
        break;
      default:
        text = goPrint(a);
    }
    const w = width === '' ? 0 : Number(width);
    const len = [...text].length;
    if (len >= w) return text;
    if (flags.includes('-')) return text + ' '.repeat(w - len);
    if (flags.includes('0') && verb !== 's' && verb !== 'q') {
      const sign = text.startsWith('-') ? '-' : '';
      return sign + '0'.repeat(w - len) + text.slice(sign.length);
    }
    return ' '.repeat(w - len) + text;
  });
}

function goTypeName(v: Value): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'float64';
  if (v instanceof GoInt) return 'int';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  if (isObj(v)) return 'map[string]interface {}';
  return '<nil>';
}

/** A basic value as `eq` and `lt` compare it: its kind and its JavaScript value. */
function basic(v: Value): [string, Value] {
  if (v instanceof GoInt) return ['int', v.n];
  if (v === MISSING || v === null || v === undefined) return ['nil', null];
  if (typeof v === 'object') throw new TemplateError('invalid type for comparison');
  return [typeof v, v];
}

function compare(name: string, x: Value, y: Value): boolean {
  const [ka, a] = basic(x);
  const [kb, b] = basic(y);
  if (ka !== kb) throw new TemplateError(`error calling ${name}: incompatible types for comparison`);
  if (ka !== 'number' && ka !== 'int' && ka !== 'string') throw new TemplateError(`error calling ${name}: invalid type for comparison`);
  switch (name) {
    case 'lt':
      return (a as number) < (b as number);
    case 'le':
      return (a as number) <= (b as number);
    case 'gt':
      return (a as number) > (b as number);
    default:
      return (a as number) >= (b as number);
  }
}

function basicEqual(x: Value, y: Value): boolean {
  const [ka, a] = basic(x);
  const [kb, b] = basic(y);
  if (ka === 'nil' && kb === 'nil') return true;
  if (ka !== kb) throw new TemplateError('error calling eq: incompatible types for comparison');
  return a === b;
}

function htmlEscape(s: string): string {
  return s.replace(/[&'<>"\0]/g, (c) => ({ '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;', '"': '&#34;', '\0': '\uFFFD' })[c]!);
}

/** Go's template.JSEscapeString: `\\ ' "` backslashed, `< > & =` and control characters as `\u00XX`. */
function jsEscape(s: string): string {
  let out = '';
  for (const c of s) {
    const code = c.charCodeAt(0);
    if (c === '\\' || c === "'" || c === '"') out += `\\${c}`;
    else if (c === '<' || c === '>' || c === '&' || c === '=' || code < 0x20) out += `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += c;
  }
  return out;
}

function call(name: string, args: Value[]): Value {
  const str = (i: number): string => {
    const a = args[i];
    return typeof a === 'string' ? a : goPrint(a);
  };
  const arity = (n: number): void => {
    if (args.length !== n) throw new TemplateError(`wrong number of args for ${name}: want ${n} got ${args.length}`);
  };
  switch (name) {
    case 'and':
      for (const a of args) if (!truthy(a)) return a;
      return args[args.length - 1];
    case 'or':
      for (const a of args) if (truthy(a)) return a;
      return args[args.length - 1];
    case 'not':
      arity(1);
      return !truthy(args[0]);
    case 'len': {
      arity(1);
      const a = args[0];
      if (typeof a === 'string') return new GoInt(Buffer.byteLength(a));
      if (Array.isArray(a)) return new GoInt(a.length);
      if (isObj(a)) return new GoInt(Object.keys(a).length);
      throw new TemplateError(`error calling len: len of ${a === null || a === MISSING ? 'nil pointer' : `type ${goTypeName(a)}`}`);
    }
    case 'index': {
      let v = args[0];
      for (const k of args.slice(1)) {
        if (Array.isArray(v)) {
          if (!(k instanceof GoInt)) throw new TemplateError(`error calling index: cannot index slice/array with type ${goTypeName(k)}`);
          if (k.n < 0 || k.n >= v.length) throw new TemplateError(`error calling index: index out of range: ${k.n}`);
          v = v[k.n];
        } else if (isObj(v)) {
          if (typeof k !== 'string') throw new TemplateError('error calling index: value has type int; should be string');
          v = Object.hasOwn(v, k) ? v[k] : MISSING;
        } else if (v === null || v === MISSING) throw new TemplateError('error calling index: index of untyped nil');
        else throw new TemplateError(`error calling index: can't index item of type ${goTypeName(v)}`);
      }
      return v;
    }
    case 'print':
      return sprint(args);
    case 'println':
      return `${args.map((a) => goPrint(a)).join(' ')}\n`;
    case 'printf':
      if (typeof args[0] !== 'string') throw new TemplateError('printf: the format must be a string');
      return sprintf(args[0], args.slice(1));
    case 'eq':
      if (args.length < 2) throw new TemplateError('missing argument for comparison');
      return args.slice(1).some((b) => basicEqual(args[0], b));
    case 'ne':
      arity(2);
      return !basicEqual(args[0], args[1]);
    case 'lt':
    case 'le':
    case 'gt':
    case 'ge':
      arity(2);
      return compare(name, args[0], args[1]);
    case 'urlquery':
      return encodeURIComponent(sprint(args))
        .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
        .replace(/%20/g, '+');
    case 'html':
      return htmlEscape(sprint(args));
    case 'js':
      return jsEscape(sprint(args));
    case 'jsonMarshal':
    case 'toJson':
      arity(1);
      return goJsonMarshal(args[0]);
    case 'upper':
      return str(0).toUpperCase();
    case 'lower':
      return str(0).toLowerCase();
    case 'title':
      return str(0).replace(/(^|[^\p{L}\p{N}_'])(\p{L})/gu, (_m, pre: string, c: string) => pre + c.toUpperCase());
    case 'trim':
      return str(0).trim();
    case 'trimPrefix':
      arity(2);
      return str(1).startsWith(str(0)) ? str(1).slice(str(0).length) : str(1);
    case 'trimSuffix':
      arity(2);
      return str(0) !== '' && str(1).endsWith(str(0)) ? str(1).slice(0, -str(0).length) : str(1);
    case 'replace':
      arity(3);
      return str(0) === '' ? str(2) : str(2).split(str(0)).join(str(1));
    case 'contains':
      arity(2);
      return str(1).includes(str(0));
    case 'hasPrefix':
      arity(2);
      return str(1).startsWith(str(0));
    case 'hasSuffix':
      arity(2);
      return str(1).endsWith(str(0));
    case 'quote':
      return args
        .filter((a) => a !== null && a !== MISSING)
        .map((a) => JSON.stringify(typeof a === 'string' ? a : goPrint(a)))
        .join(' ');
    case 'squote':
      return args
        .filter((a) => a !== null && a !== MISSING)
        .map((a) => `'${typeof a === 'string' ? a : goPrint(a)}'`)
        .join(' ');
    case 'default':
      if (args.length < 1) throw new TemplateError('wrong number of args for default');
      return args.length > 1 && truthy(args[1]) ? args[1] : args[0];
    case 'empty':
      arity(1);
      return !truthy(args[0]);
    case 'coalesce':
      return args.find(truthy) ?? null;
    case 'toString':
      arity(1);
      return str(0);
    case 'join': {
      arity(2);
      const list = args[1];
      const items = Array.isArray(list) ? list : typeof list === 'string' ? [list] : [];
      return items.map((x) => (x === null ? '' : typeof x === 'string' ? x : goPrint(x))).join(str(0));
    }
    case 'b64enc':
      return Buffer.from(str(0)).toString('base64');
    case 'b64dec':
      return Buffer.from(str(0), 'base64').toString();
    case 'repeat':
      arity(2);
      if (!(args[0] instanceof GoInt)) throw new TemplateError('repeat: the count must be an int');
      return str(1).repeat(Math.max(0, args[0].n));
  }
  throw new TemplateError(`function ${JSON.stringify(name)} not defined`);
}

class Scope {
  private readonly vars: Array<Map<string, Value>> = [new Map()];
  push(): void {
    this.vars.push(new Map());
  }
  pop(): void {
    this.vars.pop();
  }
  declare(name: string, v: Value): void {
    this.vars[this.vars.length - 1]!.set(name, v);
  }
  assign(name: string, v: Value): void {
    for (let i = this.vars.length - 1; i >= 0; i--)
      if (this.vars[i]!.has(name)) {
        this.vars[i]!.set(name, v);
        return;
      }
    throw new TemplateError(`undefined variable: ${name}`);
  }
  get(name: string): Value {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i]!.has(name)) return this.vars[i]!.get(name);
    throw new TemplateError(`undefined variable: ${name}`);
  }
}

/** Max output (bytes of text) a template may write: bounded as every body is. */
const MAX_OUTPUT = 64 * 1024 * 1024;

class Run {
  out = '';
  constructor(private readonly scope: Scope) {}

  private field(v: Value, fields: string[]): Value {
    for (const f of fields) {
      if (isObj(v)) v = Object.hasOwn(v, f) ? v[f] : MISSING;
      // A missing key's field is missing too (Go's zero Value); a null's is an error.
      else if (v === MISSING) return MISSING;
      else if (v === null) throw new TemplateError(`nil pointer evaluating interface {}.${f}`);
      else throw new TemplateError(`can't evaluate field ${f} in type ${goTypeName(v)}`);
    }
    return v;
  }

  private operand(o: Operand, dot: Value): Value {
    switch (o.kind) {
      case 'dot':
        return this.field(dot, o.fields);
      case 'var':
        return this.field(this.scope.get(o.name), o.fields);
      case 'literal':
        return o.value;
      case 'pipe':
        return this.field(this.pipeline(o.pipe, dot), o.fields);
      case 'func':
        return call(o.name, []);
    }
  }

  pipeline(p: Pipeline, dot: Value): Value {
    let value: Value = undefined;
    let first = true;
    for (const cmd of p.commands) {
      const [head, ...rest] = cmd as [Operand, ...Operand[]];
      const args = rest.map((o) => this.operand(o, dot));
      if (!first) args.push(value);
      if (head.kind === 'func') value = call(head.name, args);
      else {
        if (args.length > 0) throw new TemplateError(`can't give argument to non-function`);
        value = this.operand(head, dot);
      }
      first = false;
    }
    if (p.decl.length === 1) {
      if (p.assign) this.scope.assign(p.decl[0]!, value);
      else this.scope.declare(p.decl[0]!, value);
    }
    return value;
  }

  nodes(list: Node[], dot: Value): void {
    for (const n of list) {
      if (n.kind === 'text') this.write(n.text);
      else if (n.kind === 'action') {
        const v = this.pipeline(n.pipe, dot);
        // text/template's printValue: a nil interface (a JSON null) prints as a missing value does.
        if (n.pipe.decl.length === 0) this.write(v === null ? '<no value>' : goPrint(v));
      } else this.branch(n, dot);
    }
  }

  private write(s: string): void {
    this.out += s;
    if (this.out.length > MAX_OUTPUT) throw new TemplateError('template output too large');
  }

  private branch(n: Branch, dot: Value): void {
    this.scope.push();
    try {
      if (n.kind === 'range') return this.range(n, dot);
      const decl = n.pipe.decl.length > 1 ? n.pipe : undefined;
      if (decl !== undefined) throw new TemplateError('too many declarations');
      const v = this.pipeline(n.pipe, dot);
      if (truthy(v)) this.nodes(n.body, n.kind === 'with' ? v : dot);
      else this.nodes(n.otherwise, dot);
    } finally {
      this.scope.pop();
    }
  }

  private range(n: Branch, dot: Value): void {
    const decl = n.pipe.decl;
    const v = this.pipeline({ ...n.pipe, decl: [] }, dot);
    const each = (key: Value, item: Value): void => {
      this.scope.push();
      try {
        if (decl.length === 1) this.scope.declare(decl[0]!, item);
        else if (decl.length === 2) {
          this.scope.declare(decl[0]!, key);
          this.scope.declare(decl[1]!, item);
        }
        this.nodes(n.body, item);
      } finally {
        this.scope.pop();
      }
    };
    if (Array.isArray(v)) {
      if (v.length === 0) return this.nodes(n.otherwise, dot);
      v.forEach((item, i) => each(new GoInt(i), item));
    } else if (isObj(v)) {
      const keys = Object.keys(v).sort();
      if (keys.length === 0) return this.nodes(n.otherwise, dot);
      for (const k of keys) each(k, v[k]);
    } else if (v === null || v === MISSING) this.nodes(n.otherwise, dot);
    else throw new TemplateError(`range can't iterate over ${goPrint(v)}`);
  }
}

/**
 * Runs the template on `data`: the text it writes, and the error that stopped it (Go's Execute
 * writes what it produced before the error).
 */
export function runTemplate(t: GoTemplate, data: Value): { text: string; error?: string } {
  const scope = new Scope();
  scope.declare('$', data);
  const run = new Run(scope);
  try {
    run.nodes(t.nodes, data);
    return { text: run.out };
  } catch (err) {
    if (err instanceof TemplateError) return { text: run.out, error: err.message };
    throw err;
  }
}
