/**
 * Recursive-descent parser for the Bloblang subset: mappings (statements), queries (one
 * expression) and the expression inside an interpolation. Layout follows Bloblang: statements
 * end at a newline, a binary operator must follow its left operand on the same line, and
 * newlines are free inside brackets and after operators and commas.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Arg, AssignTarget, BinaryOp, Expr, Pos, Program, Stmt } from './ast.js';
import { JsonNumber } from '../message/json-number.js';
import { WholeFloat } from './values.js';
import { InterpError } from './errors.js';
import { Lexer, Positions, type Token } from './lexer.js';

const BINARY_OPS = new Set<string>(['+', '-', '*', '/', '%', '==', '!=', '<', '<=', '>', '>=', '&&', '||', '|']);

/** Precedence groups resolved in order, each left to right, as Bloblang does. */
const PRECEDENCE: ReadonlyArray<ReadonlySet<string>> = [
  new Set(['*', '/', '%', '|']),
  new Set(['+', '-']),
  new Set(['==', '!=', '<', '<=', '>', '>=']),
  new Set(['&&', '||']),
];

class Fail extends InterpError {
  constructor(
    reason: string,
    readonly tok: Token,
    /** The statement was recognised and is refused: no other reading of the source applies. */
    readonly definite = false,
  ) {
    super(reason, tok.line, tok.col);
  }
}

/** Files being read by `import`/`from`, so that a file importing itself fails instead of recursing. */
const reading: string[] = [];
const MAX_IMPORT_DEPTH = 16;

/**
 * The mapping in a file named by `import` or `from`: the path is relative to the working directory,
 * as Benthos resolves it. The file is the config author's, read once when the mapping compiles.
 */
function readMappingFile(path: string, at: Token): Program {
  const full = resolve(path);
  if (reading.includes(full) || reading.length >= MAX_IMPORT_DEPTH) throw new Fail(`import cycle or nesting too deep at '${path}'`, at, true);
  let src: string;
  try {
    src = readFileSync(full, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new Fail(`failed to read import: open ${full}: ${err.code === 'ENOENT' ? 'no such file or directory' : err.message}`, at, true);
  }
  reading.push(full);
  try {
    return new Parser(src).parseMapping();
  } catch (e) {
    if (e instanceof InterpError) throw new Fail(`failed to parse import '${path}': ${e.message}`, at, true);
    throw e;
  } finally {
    reading.pop();
  }
}

export class Parser {
  private readonly lexer: Lexer;
  private readonly toks: Token[] = [];
  private i = 0;
  /** Lambda context names in scope, innermost last. */
  private readonly named: string[] = [];
  /** False where a mapping comes from message data (the `bloblang` method): `import` and `from` read no file. */
  imports = true;

  constructor(src: string, positions = new Positions(src), start = 0, end = src.length) {
    this.lexer = new Lexer(src, positions, start, end);
  }

  // ------------------------------------------------------------------ cursor

  private peek(n = 0): Token {
    while (this.toks.length <= this.i + n) {
      const last = this.toks[this.toks.length - 1];
      if (last && last.kind === 'eof') return last;
      this.toks.push(this.lexer.next());
    }
    return this.toks[this.i + n]!;
  }

  private advance(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.i++;
    return t;
  }

  private isOp(text: string, n = 0): boolean {
    const t = this.peek(n);
    return t.kind === 'op' && t.text === text;
  }

  private isIdent(text: string, n = 0): boolean {
    const t = this.peek(n);
    return t.kind === 'ident' && t.text === text;
  }

  private skipNl(): void {
    while (this.peek().kind === 'nl') this.i++;
  }

  private fail(reason: string, tok: Token = this.peek()): never {
    throw new Fail(reason, tok);
  }

  private describe(t: Token): string {
    switch (t.kind) {
      case 'eof':
        return 'end of input';
      case 'nl':
        return 'line break';
      case 'string':
        return JSON.stringify(t.text);
      case 'var':
        return '$' + t.text;
      case 'meta':
        return '@' + t.text;
      default:
        return JSON.stringify(t.text);
    }
  }

  private expectOp(text: string, what = JSON.stringify(text)): Token {
    if (!this.isOp(text)) this.fail(`expected ${what}, got ${this.describe(this.peek())}`);
    return this.advance();
  }

  private pos(t: Token): Pos {
    return { line: t.line, col: t.col };
  }

  /** Token right after the last consumed one: where an interpolation's text resumes. */
  get offset(): number {
    return this.i > 0 ? this.toks[this.i - 1]!.end : 0;
  }

  // ---------------------------------------------------------------- entries

  /** A whole mapping: statements, or a single expression meaning `root = <expr>`. */
  parseMapping(): Program {
    const maps = new Map<string, Stmt[]>();
    this.skipNl();
    if (this.peek().kind === 'eof') return { stmts: [], maps };
    // `from "file"`: the whole mapping is the file's.
    const first = this.peek();
    if (first.kind === 'ident' && first.text === 'from' && this.peek(1).kind === 'string') {
      this.advance();
      if (!this.imports) throw new Fail('failed to read import: imports are disabled in this context', first, true);
      const prog = readMappingFile(this.advance().text, first);
      this.skipNl();
      if (this.peek().kind !== 'eof') throw new Fail(`unexpected content after single root import: ${this.describe(this.peek())}`, this.peek(), true);
      return prog;
    }
    const start = this.i;
    let stmtErr: Fail;
    try {
      const stmts = this.parseStatements(maps, true, false);
      if (this.peek().kind !== 'eof') this.fail(`expected end of input, got ${this.describe(this.peek())}`);
      return { stmts, maps };
    } catch (e) {
      if (!(e instanceof Fail) || e.definite) throw e;
      stmtErr = e;
    }
    // Not statements: maybe the shorthand `<expr>` for `root = <expr>`.
    this.i = start;
    maps.clear();
    try {
      const t = this.peek();
      const value = this.parseExpr();
      this.skipNl();
      if (this.peek().kind !== 'eof') {
        this.fail(
          `expected end of input, got ${this.describe(this.peek())} (a mapping that starts with an expression is shorthand for \`root = <expr>\` and cannot have more statements)`,
        );
      }
      return { stmts: [{ kind: 'assign', target: { kind: 'root', path: [] }, value, pos: this.pos(t) }], maps };
    } catch (e) {
      if (!(e instanceof Fail)) throw e;
      // Report whichever attempt got further into the source.
      throw e.tok.pos > stmtErr.tok.pos ? e : stmtErr;
    }
  }

  /** A single expression filling the whole input (newlines around it allowed). */
  parseQueryOnly(): Expr {
    this.skipNl();
    const e = this.parseExpr();
    this.skipNl();
    if (this.peek().kind !== 'eof') this.fail(`expected end of input, got ${this.describe(this.peek())}`);
    return e;
  }

  /** The expression of an interpolation, up to and including its closing `}`. */
  parseInterpolated(): Expr {
    const e = this.parseExpr();
    if (!this.isOp('}')) this.fail(`expected "}" (end of interpolation), got ${this.describe(this.peek())}`);
    this.advance();
    return e;
  }

  // ------------------------------------------------------------- statements

  private parseStatements(maps: Map<string, Stmt[]> | null, allowMeta: boolean, inBlock: boolean): Stmt[] {
    const stmts: Stmt[] = [];
    while (true) {
      this.skipNl();
      const t = this.peek();
      if (t.kind === 'eof' || (inBlock && this.isOp('}'))) return stmts;
      const s = this.parseStatement(maps, allowMeta);
      if (s) stmts.push(s);
      const after = this.peek();
      if (after.kind === 'nl') continue;
      if (after.kind === 'eof' || (inBlock && this.isOp('}'))) return stmts;
      this.fail(`expected a line break after the statement, got ${this.describe(after)}`);
    }
  }

  private parseStatement(maps: Map<string, Stmt[]> | null, allowMeta: boolean): Stmt | null {
    const t = this.peek();
    if (t.kind === 'ident') {
      const next = this.peek(1);
      switch (t.text) {
        case 'let':
          if (next.kind === 'ident' || next.kind === 'string') {
            this.advance();
            const name = this.advance().text;
            this.expectOp('=', '"=" (let assignment)');
            return this.assign({ kind: 'var', name }, t);
          }
          if (next.kind === 'op' && next.text === '=') this.fail('expected a variable name after let', next);
          break;
        case 'meta':
          if (next.kind === 'ident' || next.kind === 'string' || (next.kind === 'op' && next.text === '=')) {
            if (!allowMeta) this.fail('setting meta fields is not allowed within this block');
            this.advance();
            const key = this.isOp('=') ? null : this.advance().text;
            this.expectOp('=', '"=" (meta assignment)');
            return this.assign({ kind: 'meta', key }, t);
          }
          break;
        case 'map':
          if (next.kind === 'ident' || next.kind === 'string') {
            if (maps === null) this.fail('defining maps is not allowed within this block');
            this.advance();
            const nameTok = this.advance();
            if (maps.has(nameTok.text)) this.fail(`map name collision: ${nameTok.text}`, nameTok);
            this.expectOp('{', '"{" (map body)');
            const body = this.parseStatements(null, false, true);
            this.expectOp('}', '"}" (end of map body)');
            maps.set(nameTok.text, body);
            return null;
          }
          break;
        case 'import':
          if (next.kind === 'string') {
            if (maps === null) this.fail('importing maps is not allowed within this block');
            this.advance();
            if (!this.imports) throw new Fail('failed to read import: imports are disabled in this context', t, true);
            const imported = readMappingFile(this.advance().text, t);
            if (imported.maps.size === 0) throw new Fail(`no maps to import from '${next.text}'`, t, true);
            for (const [name, body] of imported.maps) {
              if (maps.has(name)) throw new Fail(`map name collision: ${name}`, t, true);
              maps.set(name, body);
            }
            return null;
          }
          break;
        case 'from':
          if (next.kind === 'string') throw new Fail(`from must be the only statement of a mapping: use import for maps`, t, true);
          break;
        case 'if':
          return this.parseIfStatement(allowMeta);
      }
      // A path assignment: `root.a.b = ...`, `a.b = ...` (shorthand for root.a.b).
      const path = this.parseTargetPath();
      this.expectOp('=', '"=" (assignment)');
      if (path[0] === 'root') path.shift();
      return this.assign({ kind: 'root', path }, t);
    }
    if (t.kind === 'meta' && this.isOp('=', 1)) {
      if (!allowMeta) this.fail('setting meta fields is not allowed within this block');
      this.advance();
      this.advance();
      return this.assign({ kind: 'meta', key: t.text === '' ? null : t.text }, t);
    }
    return this.fail(`expected an assignment (root = ..., meta key = ..., let name = ...), got ${this.describe(t)}`);
  }

  private assign(target: AssignTarget, t: Token): Stmt {
    const value = this.parseExpr();
    return { kind: 'assign', target, value, pos: this.pos(t) };
  }

  private parseTargetPath(): string[] {
    const path = [this.advance().text];
    while (this.isOp('.')) {
      this.advance();
      const seg = this.peek();
      if (seg.kind !== 'ident' && seg.kind !== 'string') this.fail(`expected a target path segment, got ${this.describe(seg)}`);
      this.advance();
      path.push(seg.text);
    }
    return path;
  }

  private parseIfStatement(allowMeta: boolean): Stmt {
    const ifTok = this.advance();
    const branches: { cond: Expr; body: Stmt[] }[] = [];
    let otherwise: Stmt[] | undefined;
    const block = (): Stmt[] => {
      this.skipNl();
      this.expectOp('{', '"{"');
      const body = this.parseStatements(null, allowMeta, true);
      this.expectOp('}', '"}"');
      return body;
    };
    const cond = this.parseExpr();
    branches.push({ cond, body: block() });
    while (true) {
      const save = this.i;
      this.skipNl();
      if (!this.isIdent('else')) {
        this.i = save;
        break;
      }
      this.advance();
      if (this.isIdent('if')) {
        this.advance();
        const c = this.parseExpr();
        branches.push({ cond: c, body: block() });
        continue;
      }
      otherwise = block();
      break;
    }
    const s: Stmt = { kind: 'if', branches, pos: this.pos(ifTok) };
    if (otherwise) s.otherwise = otherwise;
    return s;
  }

  // ------------------------------------------------------------ expressions

  parseExpr(): Expr {
    const operands: Expr[] = [this.parseOperand()];
    const ops: { op: string; tok: Token }[] = [];
    while (true) {
      const t = this.peek();
      if (t.kind !== 'op' || !BINARY_OPS.has(t.text)) break;
      this.advance();
      this.skipNl();
      ops.push({ op: t.text, tok: t });
      operands.push(this.parseOperand());
    }
    if (ops.length === 0) return operands[0]!;
    let fns = operands;
    let list = ops;
    for (const group of PRECEDENCE) {
      const nf: Expr[] = [fns[0]!];
      const no: { op: string; tok: Token }[] = [];
      for (let k = 0; k < list.length; k++) {
        const { op, tok } = list[k]!;
        if (group.has(op)) {
          const left = nf[nf.length - 1]!;
          nf[nf.length - 1] = { kind: 'binary', op: op as BinaryOp, left, right: fns[k + 1]!, pos: this.pos(tok) };
        } else {
          nf.push(fns[k + 1]!);
          no.push(list[k]!);
        }
      }
      fns = nf;
      list = no;
    }
    return fns[0]!;
  }

  /** An operand of a binary expression: optional unary minus, then a term with its tails. */
  private parseOperand(): Expr {
    if (this.isOp('-')) {
      const t = this.advance();
      this.skipNl();
      const e = this.parseOperand();
      if (e.kind === 'lit' && typeof e.value === 'number') return { kind: 'lit', value: 0 - e.value, pos: this.pos(t) }; // -0.0 is 0, as 0 - 0.0 is in Go
      if (e.kind === 'lit' && e.value instanceof WholeFloat) return { kind: 'lit', value: new WholeFloat(0 - e.value.value), pos: this.pos(t) };
      if (e.kind === 'lit' && e.value instanceof JsonNumber) return { kind: 'lit', value: JsonNumber.ofInt(-e.value.int!), pos: this.pos(t) };
      return { kind: 'binary', op: '-', left: { kind: 'lit', value: 0, pos: this.pos(t) }, right: e, pos: this.pos(t) };
    }
    if (this.isOp('!')) {
      const t = this.advance();
      const e = this.parseTailed();
      return { kind: 'not', expr: e, pos: this.pos(t) };
    }
    return this.parseTailed();
  }

  private parseTailed(): Expr {
    let e = this.parsePrimary();
    while (this.isOp('.')) {
      const dot = this.advance();
      this.skipNl();
      const t = this.peek();
      if (this.isOp('(')) {
        this.advance();
        this.skipNl();
        const body = this.parseExpr();
        this.skipNl();
        this.expectOp(')', '")"');
        e = { kind: 'mapctx', target: e, body, pos: this.pos(dot) };
        continue;
      }
      if (t.kind === 'ident' && this.isOp('(', 1)) {
        this.advance();
        const args = this.parseArgs();
        e = { kind: 'method', target: e, name: t.text, args, pos: this.pos(t) };
        continue;
      }
      if (t.kind === 'ident' || t.kind === 'string') {
        this.advance();
        e = extendPath(e, t.text, this.pos(t));
        continue;
      }
      this.fail(`expected a field name or method after ".", got ${this.describe(t)}`);
    }
    return e;
  }

  private parseArgs(): Arg[] {
    this.expectOp('(');
    this.skipNl();
    const args: Arg[] = [];
    while (!this.isOp(')')) {
      const t = this.peek();
      if (t.kind === 'ident' && this.isOp(':', 1)) {
        this.advance();
        this.advance();
        this.skipNl();
        args.push({ name: t.text, value: this.parseExpr(), pos: this.pos(t) });
      } else {
        args.push({ value: this.parseExpr(), pos: this.pos(t) });
      }
      this.skipNl();
      if (this.isOp(',')) {
        this.advance();
        this.skipNl();
        continue;
      }
      if (!this.isOp(')')) this.fail(`expected "," or ")" in arguments, got ${this.describe(this.peek())}`);
    }
    this.advance();
    return args;
  }

  private parsePrimary(): Expr {
    const t = this.peek();
    const pos = this.pos(t);
    switch (t.kind) {
      case 'number':
        this.advance();
        return { kind: 'lit', value: t.num, pos };
      case 'string':
        this.advance();
        return { kind: 'lit', value: t.text, pos };
      case 'var':
        this.advance();
        return { kind: 'var', name: t.text, path: [], pos };
      case 'meta':
        this.advance();
        return { kind: 'meta', name: t.text, pos };
      case 'op':
        if (t.text === '(') {
          this.advance();
          this.skipNl();
          const e = this.parseExpr();
          this.skipNl();
          this.expectOp(')', '")"');
          return e;
        }
        if (t.text === '[') return this.parseArray();
        if (t.text === '{') return this.parseObject();
        break;
      case 'ident': {
        const next = this.peek(1);
        if (next.kind === 'op' && next.text === '->') return this.parseLambda();
        switch (t.text) {
          case 'true':
          case 'false':
            this.advance();
            return { kind: 'lit', value: t.text === 'true', pos };
          case 'null':
            this.advance();
            return { kind: 'lit', value: null, pos };
          case 'if':
            return this.parseIfExpr();
          case 'match':
            return this.parseMatch();
        }
        if (next.kind === 'op' && next.text === '(' && !next.spaced) {
          this.advance();
          const args = this.parseArgs();
          return { kind: 'call', name: t.text, args, pos };
        }
        this.advance();
        if (t.text === 'this') return { kind: 'this', path: [], pos };
        if (t.text === 'root') return { kind: 'root', path: [], pos };
        if (this.named.includes(t.text)) return { kind: 'named', name: t.text, path: [], pos };
        return { kind: 'this', path: [t.text], pos };
      }
    }
    return this.fail(`expected a query, got ${this.describe(t)}`);
  }

  private parseArray(): Expr {
    const open = this.advance();
    this.skipNl();
    const items: Expr[] = [];
    while (!this.isOp(']')) {
      items.push(this.parseExpr());
      this.skipNl();
      if (this.isOp(',')) {
        this.advance();
        this.skipNl();
        continue;
      }
      if (!this.isOp(']')) this.fail(`expected "," or "]" in array, got ${this.describe(this.peek())}`);
    }
    this.advance();
    return { kind: 'array', items, pos: this.pos(open) };
  }

  private parseObject(): Expr {
    const open = this.advance();
    this.skipNl();
    const entries: { key: Expr; value: Expr }[] = [];
    while (!this.isOp('}')) {
      const kt = this.peek();
      const key: Expr = kt.kind === 'string' && this.isOp(':', 1) ? (this.advance(), { kind: 'lit', value: kt.text, pos: this.pos(kt) }) : this.parseExpr();
      this.skipNl();
      this.expectOp(':', '":" after object key');
      this.skipNl();
      const value = this.parseExpr();
      entries.push({ key, value });
      this.skipNl();
      if (this.isOp(',')) {
        this.advance();
        this.skipNl();
        continue;
      }
      if (!this.isOp('}')) this.fail(`expected "," or "}" in object, got ${this.describe(this.peek())}`);
    }
    this.advance();
    return { kind: 'object', entries, pos: this.pos(open) };
  }

  private parseLambda(): Expr {
    const t = this.advance();
    this.advance(); // ->
    this.skipNl();
    const name = t.text;
    if (name === 'this' || name === 'root') this.fail(`context label \`${name}\` is not allowed`, t);
    if (name !== '_' && this.named.includes(name)) this.fail(`context label \`${name}\` would shadow a parent context`, t);
    if (name !== '_') this.named.push(name);
    try {
      const body = this.parseExpr();
      return { kind: 'lambda', name, body, pos: this.pos(t) };
    } finally {
      if (name !== '_') this.named.pop();
    }
  }

  private block(): Expr {
    this.skipNl();
    this.expectOp('{', '"{"');
    this.skipNl();
    const e = this.parseExpr();
    this.skipNl();
    this.expectOp('}', '"}"');
    return e;
  }

  private parseIfExpr(): Expr {
    const t = this.advance();
    const branches: { cond: Expr; then: Expr }[] = [];
    let otherwise: Expr | undefined;
    const cond = this.parseExpr();
    branches.push({ cond, then: this.block() });
    while (true) {
      const save = this.i;
      this.skipNl();
      if (!this.isIdent('else')) {
        this.i = save;
        break;
      }
      this.advance();
      if (this.isIdent('if')) {
        this.advance();
        const c = this.parseExpr();
        branches.push({ cond: c, then: this.block() });
        continue;
      }
      otherwise = this.block();
      break;
    }
    const e: Expr = { kind: 'if', branches, pos: this.pos(t) };
    if (otherwise) e.otherwise = otherwise;
    return e;
  }

  private parseMatch(): Expr {
    const t = this.advance();
    let subject: Expr | undefined;
    if (!this.isOp('{') && this.peek().kind !== 'nl') subject = this.parseExpr();
    this.skipNl();
    this.expectOp('{', '"{" (match cases)');
    this.skipNl();
    const cases: { pattern: Expr | null; body: Expr }[] = [];
    while (!this.isOp('}')) {
      let pattern: Expr | null;
      if (this.isIdent('_') && this.isOp('=>', 1)) {
        this.advance();
        pattern = null;
      } else {
        pattern = this.parseExpr();
      }
      this.expectOp('=>', '"=>" (match case)');
      this.skipNl();
      const body = this.parseExpr();
      cases.push({ pattern, body });
      if (this.isOp(',')) this.advance();
      else if (this.peek().kind !== 'nl' && !this.isOp('}')) this.fail(`expected "," or a line break between match cases, got ${this.describe(this.peek())}`);
      this.skipNl();
    }
    this.advance();
    const e: Expr = { kind: 'match', cases, pos: this.pos(t) };
    if (subject) e.subject = subject;
    return e;
  }
}

function extendPath(e: Expr, seg: string, pos: Pos): Expr {
  switch (e.kind) {
    case 'this':
    case 'root':
    case 'named':
    case 'var':
    case 'get':
      return { ...e, path: [...e.path, seg] };
    default:
      return { kind: 'get', target: e, path: [seg], pos };
  }
}
