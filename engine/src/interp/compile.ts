/**
 * Turns the syntax tree into closures, once. Each node becomes `(state, self) => value` with
 * its paths, operators, constant arguments and regexes resolved up front; literal
 * sub-expressions are folded. Per message only the closures run.
 */
import type { MetaValue } from '../message/message.js';
import type { Arg, Expr, Pos, Stmt } from './ast.js';
import { ArgumentError, AttributedError, InterpError, QueryError, argumentError, asQueryError, errFrom, pluginError, typeError } from './errors.js';
import { ARITH, truthy } from './operators.js';
import { getter, joinPath, setPath } from './paths.js';
import { Args, type CompiledArg, type Lambda, type ParamSpec, functions, methods } from './registry.js';
import { type CompiledMap, type Fn, LAZY, type State, type StmtFn } from './state.js';
import { Timestamp } from './timestamp.js';
import { DELETE, Float32, JsonNumber, NOTHING, type Obj, equals, isNumber, isObject, setKey, toStr, typeOf, widen } from './values.js';

/** Methods that see a float32 as it is; every other method computes with it widened to float64. */
const KEEPS_FLOAT32 = new Set(['string', 'type', 'bytes', 'format_json', 'not_null', 'array']);

/** A compiled expression: its closure, how errors name it, and its value when constant. */
export interface CNode {
  fn: Fn;
  ann: string;
  konst?: boolean;
  value?: unknown;
}

/** Error of one statement, already carrying its line; enclosing statements pass it through. */

/**
 * A non-constant argument as Benthos' ResolveDynamic reads it: an error evaluating it, or a value
 * of the wrong type for its parameter, is `method 'name': failed to extract input arg 'p': ...`
 * (Benthos checks the type there: a string parameter takes a string or bytes, a number one any
 * number, a bool one a bool or a number).
 */
function dynamicArg(what: string, param: string, type: ParamSpec['type'], fn: Fn): Fn {
  const owner = what.replace(/^(method|function) (.*)$/, "$1 '$2'");
  const fail = (err: unknown): never => {
    throw argumentError(`${owner}: failed to extract input arg '${param}': ${asQueryError(err).message}`);
  };
  return (c, self) => {
    let v: unknown;
    try {
      v = fn(c, self);
    } catch (err) {
      fail(err);
    }
    switch (type) {
      case 'string':
        if (typeof v !== 'string' && !(v instanceof Uint8Array)) fail(new QueryError(`wrong argument type, expected string, got ${typeOf(v)}`));
        break;
      case 'number':
        if (!isNumber(v)) fail(typeError(v, 'number'));
        break;
      case 'bool':
        if (typeof v !== 'boolean' && !isNumber(v)) fail(typeError(v, 'bool'));
        break;
    }
    return v;
  };
}

/** A restricted set of names a mapping may call (Benthos' parser context for dynamic mappings). */
export interface Environment {
  functions: ReadonlySet<string>;
  methods: ReadonlySet<string>;
}

/** A failed statement (`failed assignment (line 2): ...`): complete, so passed on unchanged (also out of `apply` and `bloblang`). */
export class AssignmentError extends AttributedError {}

const MAX_MAP_DEPTH = 5000;

function konst(value: unknown, ann: string): CNode {
  return { fn: () => value, ann, konst: true, value };
}

function literalAnn(v: unknown): string {
  return `${typeOf(v)} literal`;
}

function pathAnn(base: string, path: readonly string[]): string {
  return path.length ? `field \`${base}.${joinPath(path)}\`` : `field \`${base}\``;
}

export class Compiler {
  /** Lambda context names in scope; a name's index is its slot in State.slots. */
  private readonly named: string[] = [];
  private readonly compiled = new Map<string, CompiledMap>();

  constructor(
    private readonly mapDefs: Map<string, Stmt[]> = new Map(),
    /** The functions and methods a mapping may call, when fewer than all (Benthos' environments). */
    private readonly env?: Environment,
  ) {}

  get maps(): Map<string, CompiledMap> {
    return this.compiled;
  }

  private fail(reason: string, pos: Pos): never {
    throw new InterpError(reason, pos.line, pos.col);
  }

  // ------------------------------------------------------------- statements

  statements(stmts: Stmt[]): StmtFn[] {
    return stmts.map((s) => this.statement(s));
  }

  private statement(s: Stmt): StmtFn {
    const line = s.pos.line;
    if (s.kind === 'if') {
      const branches = s.branches.map((b) => ({ cond: this.expr(b.cond), body: this.statements(b.body) }));
      const otherwise = s.otherwise ? this.statements(s.otherwise) : undefined;
      return (c, self) => {
        for (let i = 0; i < branches.length; i++) {
          const b = branches[i]!;
          let v: unknown;
          try {
            v = b.cond.fn(c, self);
          } catch (e) {
            throw new AssignmentError(`failed assignment (line ${line}): failed to check if condition: ${asQueryError(e).message}`);
          }
          if (v === true) {
            for (const st of b.body) st(c, self);
            return;
          }
          if (v !== false && v !== null) {
            throw new AssignmentError(`failed assignment (line ${line}): ${b.cond.ann} resolved to a non-boolean value ${toStr(v)} (${typeOf(v)})`);
          }
        }
        if (otherwise) for (const st of otherwise) st(c, self);
      };
    }
    const value = this.expr(s.value);
    const vfn = value.fn;
    const t = s.target;
    let run: StmtFn;
    switch (t.kind) {
      case 'root': {
        const path = t.path;
        if (path.length === 0) {
          run = (c, self) => {
            const v = vfn(c, self);
            if (v === NOTHING) return;
            c.root = v === DELETE ? DELETE : prepare(c, v);
          };
        } else {
          run = (c, self) => {
            const v = vfn(c, self);
            if (v === NOTHING) return;
            c.root = setPath(c.root, path, v === DELETE ? DELETE : prepare(c, v));
          };
        }
        break;
      }
      case 'var': {
        const name = t.name;
        run = (c, self) => {
          const v = vfn(c, self);
          if (v === NOTHING) return;
          const vars = (c.vars ??= Object.create(null) as Record<string, unknown>);
          if (v === DELETE) delete vars[name];
          else vars[name] = v;
        };
        break;
      }
      case 'meta': {
        const key = t.key;
        run = (c, self) => {
          const v = vfn(c, self);
          if (v === NOTHING) return;
          if (!c.hasRoot) throw new QueryError('unable to assign metadata in the current context');
          const m = c.ownMeta();
          if (key !== null) {
            if (v === DELETE) m.delete(key);
            else m.set(key, toMeta(v));
            return;
          }
          if (v === DELETE) {
            m.clear();
            return;
          }
          if (!isObject(v)) throw new QueryError(`setting root meta object requires object value, received: ${typeOf(v)}`);
          m.clear();
          for (const k of Object.keys(v)) m.set(k, toMeta(v[k]));
        };
        break;
      }
    }
    return (c, self) => {
      try {
        run(c, self);
      } catch (e) {
        if (e instanceof AssignmentError) throw e;
        throw new AssignmentError(`failed assignment (line ${line}): ${asQueryError(e).message}`);
      }
    };
  }

  // ------------------------------------------------------------ expressions

  expr(e: Expr): CNode {
    switch (e.kind) {
      case 'lit':
        return konst(e.value, literalAnn(e.value));
      case 'array':
        return this.array(e.items);
      case 'object':
        return this.object(e.entries, e.pos);
      case 'this': {
        const get = getter(e.path);
        const field = joinPath(e.path);
        const ann = pathAnn('this', e.path);
        if (e.path.length === 0) return { fn: (c, self) => (self === LAZY ? c.document() : self), ann };
        return { fn: (c, self) => get(self === LAZY ? c.document(field) : self), ann };
      }
      case 'root': {
        const get = getter(e.path);
        const ann = pathAnn('root', e.path);
        const whole = e.path.length === 0;
        return {
          fn: (c) => {
            if (!c.hasRoot) throw new QueryError('unable to reference `root` from this context');
            const r = c.root;
            // `root` itself before any assignment is nothing (an assignment of it is skipped, as in
            // Benthos); a field of it is null.
            if (r === NOTHING && whole) return NOTHING;
            return get(r === NOTHING || r === DELETE ? null : r);
          },
          ann,
        };
      }
      case 'named': {
        const slot = this.named.lastIndexOf(e.name);
        if (slot < 0) this.fail(`unknown context ${e.name}`, e.pos);
        const get = getter(e.path);
        return { fn: (c) => get(c.slots[slot]), ann: pathAnn(e.name, e.path) };
      }
      case 'var': {
        const name = e.name;
        const get = getter(e.path);
        return {
          fn: (c) => {
            const vars = c.vars;
            if (vars === undefined || !(name in vars)) throw new QueryError(`variable '${name}' undefined`);
            return get(vars[name]);
          },
          ann: `variable \`${name}${e.path.length ? '.' + joinPath(e.path) : ''}\``,
        };
      }
      case 'meta': {
        const key = e.name;
        if (key === '') {
          return {
            fn: (c) => {
              if (c.detached) throw new QueryError('metadata cannot be queried in this context');
              const out: Obj = {};
              const entries = c.meta !== undefined ? c.meta.entries() : c.msg.metaEntries();
              for (const [k, v] of entries) setKey(out, k, v);
              return out;
            },
            ann: 'meta object',
          };
        }
        return {
          fn: (c) => {
            const v = c.getMeta(key);
            return v === undefined ? null : v;
          },
          ann: `meta field ${key}`,
        };
      }
      case 'get': {
        const target = this.expr(e.target);
        const get = getter(e.path);
        const tf = target.fn;
        return { fn: (c, self) => get(tf(c, self)), ann: `path \`${joinPath(e.path)}\`` };
      }
      case 'call':
        return this.call(e.name, e.args, e.pos);
      case 'method':
        return this.method(e.target, e.name, e.args, e.pos);
      case 'mapctx': {
        const target = this.expr(e.target);
        const lam = this.lambda(e.body);
        const tf = target.fn;
        return { fn: (c, self) => lam.call(c, tf(c, self), self), ann: target.ann };
      }
      case 'not': {
        const inner = this.expr(e.expr);
        const f = inner.fn;
        const ann = inner.ann;
        const node: CNode = {
          fn: (c, self) => {
            const v = f(c, self);
            if (typeof v !== 'boolean') throw typeError(v, 'bool').from(ann);
            return !v;
          },
          ann: `not ${ann}`,
        };
        return this.fold(node, inner.konst === true, e.pos);
      }
      case 'binary':
        return this.binary(e);
      case 'if':
        return this.ifExpr(e);
      case 'match':
        return this.match(e);
      case 'lambda': {
        const lam = this.lambda(e);
        return { fn: (c, self) => lam.call(c, self, self), ann: 'lambda' };
      }
    }
  }

  /** Evaluates a node now when all its inputs are constant (errors become compile errors). */
  private fold(node: CNode, allConst: boolean, pos: Pos): CNode {
    if (!allConst) return node;
    try {
      return { ...konst(node.fn(undefined as unknown as State, null), node.ann) };
    } catch (err) {
      return this.fail(asQueryError(err).message, pos);
    }
  }

  private array(items: Expr[]): CNode {
    const nodes = items.map((i) => this.expr(i));
    const fns = nodes.map((n) => n.fn);
    const node: CNode = {
      fn: (c, self) => {
        const out: unknown[] = [];
        for (let i = 0; i < fns.length; i++) {
          const v = fns[i]!(c, self);
          if (v !== DELETE && v !== NOTHING) out.push(v);
        }
        return out;
      },
      ann: 'array literal',
    };
    if (nodes.every((n) => n.konst)) return konst(node.fn(undefined as unknown as State, null), 'array literal');
    return node;
  }

  private object(entries: { key: Expr; value: Expr }[], pos: Pos): CNode {
    const compiled = entries.map((en) => ({ key: this.expr(en.key), value: this.expr(en.value) }));
    for (const en of compiled) {
      if (en.key.konst && typeof en.key.value !== 'string') {
        this.fail(`object keys must be strings, got ${typeOf(en.key.value)}`, pos);
      }
    }
    const node: CNode = {
      fn: (c, self) => {
        const out: Obj = {};
        for (let i = 0; i < compiled.length; i++) {
          const en = compiled[i]!;
          const k = en.key.fn(c, self);
          if (typeof k !== 'string') {
            throw new QueryError(`object keys must be strings, received ${typeOf(k)} from ${en.key.ann}`);
          }
          const v = en.value.fn(c, self);
          if (v !== DELETE && v !== NOTHING) setKey(out, k, v);
        }
        return out;
      },
      ann: 'object literal',
    };
    if (compiled.every((en) => en.key.konst && en.value.konst)) {
      return konst(node.fn(undefined as unknown as State, null), 'object literal');
    }
    return node;
  }

  private binary(e: Extract<Expr, { kind: 'binary' }>): CNode {
    const l = this.expr(e.left);
    const r = this.expr(e.right);
    const lf = l.fn;
    const rf = r.fn;
    const la = l.ann;
    const ra = r.ann;
    const ann = r.ann;
    if (e.op === '|') {
      return {
        fn: (c, self) => {
          let v: unknown;
          try {
            v = lf(c, self);
          } catch {
            return rf(c, self);
          }
          if (v === null || v === undefined || v === DELETE || v === NOTHING) return rf(c, self);
          return v;
        },
        ann,
      };
    }
    if (e.op === '&&' || e.op === '||') {
      const and = e.op === '&&';
      return {
        fn: (c, self) => {
          const lv = truthy(lf(c, self), la);
          if (and ? !lv : lv) return lv;
          return truthy(rf(c, self), ra);
        },
        ann,
      };
    }
    const op = ARITH[e.op]!;
    const node: CNode = { fn: (c, self) => op(lf(c, self), rf(c, self), la, ra), ann };
    return this.fold(node, l.konst === true && r.konst === true, e.pos);
  }

  private ifExpr(e: Extract<Expr, { kind: 'if' }>): CNode {
    const branches = e.branches.map((b) => ({ cond: this.expr(b.cond), then: this.expr(b.then) }));
    const otherwise = e.otherwise ? this.expr(e.otherwise) : undefined;
    return {
      fn: (c, self) => {
        for (let i = 0; i < branches.length; i++) {
          const b = branches[i]!;
          let v: unknown;
          try {
            v = b.cond.fn(c, self);
          } catch (err) {
            throw new QueryError(`failed to check if condition${i ? ' ' + i : ''}: ${asQueryError(err).message}`);
          }
          if (v === true) return b.then.fn(c, self);
          if (v !== false && v !== null) {
            throw new QueryError(`${b.cond.ann} resolved to a non-boolean value ${toStr(v)} (${typeOf(v)})`);
          }
        }
        return otherwise ? otherwise.fn(c, self) : NOTHING;
      },
      ann: 'if expression',
    };
  }

  private match(e: Extract<Expr, { kind: 'match' }>): CNode {
    const subject = e.subject ? this.expr(e.subject) : undefined;
    const cases = e.cases.map((k) => {
      const body = this.expr(k.body);
      if (k.pattern === null) return { test: null, lit: false, value: undefined, body };
      const p = this.expr(k.pattern);
      return { test: p, lit: p.konst === true, value: p.value, body };
    });
    return {
      fn: (c, self) => {
        const v = subject ? subject.fn(c, self) : self === LAZY ? c.document() : self;
        for (let i = 0; i < cases.length; i++) {
          const k = cases[i]!;
          let hit: boolean;
          if (k.test === null) hit = true;
          else if (k.lit)
            hit = equals(v, k.value); // ICompare(value, literal), as Benthos
          else {
            try {
              hit = k.test.fn(c, v) === true;
            } catch (err) {
              throw new QueryError(`failed to check match case ${i}: ${asQueryError(err).message}`);
            }
          }
          if (hit) return k.body.fn(c, v);
        }
        return NOTHING;
      },
      ann: 'match expression',
    };
  }

  /** A query argument: a lambda binds its name, anything else runs with the value as `this`. */
  lambda(e: Expr): Lambda {
    if (e.kind === 'lambda') {
      if (e.name === '_') {
        const body = this.expr(e.body).fn;
        return { call: (c, _v, self) => body(c, self) };
      }
      this.named.push(e.name);
      const slot = this.named.length - 1;
      let body: Fn;
      try {
        body = this.expr(e.body).fn;
      } finally {
        this.named.pop();
      }
      return {
        call: (c, v, self) => {
          const slots = c.slots;
          const prev = slots[slot];
          slots[slot] = v;
          try {
            return body(c, self);
          } finally {
            slots[slot] = prev;
          }
        },
      };
    }
    const body = this.expr(e).fn;
    return { call: (c, v) => body(c, v) };
  }

  // ------------------------------------------------------------ calls

  private args(params: ParamSpec[], variadic: boolean, given: Arg[], what: string, pos: Pos): Args {
    const named = given.filter((a) => a.name !== undefined);
    if (named.length > 0 && named.length !== given.length) this.fail(`${what}: cannot mix named and nameless arguments`, pos);
    const slots: (Arg | undefined)[] = [];
    if (named.length > 0) {
      if (variadic) this.fail(`${what}: does not take named arguments`, pos);
      for (const a of named) {
        const idx = params.findIndex((p) => p.name === a.name);
        if (idx < 0) this.fail(`${what}: unknown named argument '${a.name}' (expected ${params.map((p) => p.name).join(', ') || 'no arguments'})`, a.pos);
        if (slots[idx] !== undefined) this.fail(`${what}: duplicate named argument '${a.name}'`, a.pos);
        slots[idx] = a;
      }
    } else {
      if (!variadic && given.length > params.length) {
        this.fail(`${what}: wrong number of arguments, expected ${expectedCount(params)}, got ${given.length}`, pos);
      }
      given.forEach((a, i) => (slots[i] = a));
    }
    const out: CompiledArg[] = [];
    const n = variadic ? given.length : params.length;
    let dynamic = 0;
    for (let i = 0; i < n; i++) {
      const p = params[i];
      const a = slots[i];
      if (a === undefined) {
        if (p === undefined) continue;
        if (!('default' in p) && !p.optional) {
          if (named.length > 0) this.fail(`${what}: missing required argument '${p.name}'`, pos);
          this.fail(`${what}: wrong number of arguments, expected ${expectedCount(params)}, got ${given.length}`, pos);
        }
        const d = p.default;
        out.push({ fn: () => d, ann: p.name, isConst: true, value: d, given: false });
        continue;
      }
      if (p?.query) {
        const lam = this.lambda(a.value);
        out.push({ fn: (c, self) => lam.call(c, self, self), ann: p.name, isConst: false, value: undefined, given: true, lambda: lam });
        continue;
      }
      if (a.value.kind === 'lambda') this.fail(`${what}: argument '${p?.name ?? i}' does not take a lambda`, a.pos);
      const node = this.expr(a.value);
      let value = node.value;
      if (node.konst === true) {
        if (p?.type !== undefined) value = this.typed(p, value, a.pos);
        out.push({ fn: () => value, ann: node.ann, isConst: true, value, given: true });
      } else {
        // Benthos names a variadic argument by its place among the dynamic ones (ResolveDynamic)
        const fn = dynamicArg(what, p?.name ?? String(dynamic), p?.type, node.fn);
        out.push({ fn, ann: node.ann, isConst: false, value, given: true });
      }
      dynamic += node.konst === true ? 0 : 1;
    }
    return new Args(out);
  }

  /** A constant argument of a typed parameter: the wrong type is a compile error, as Benthos' parser says it. */
  private typed(p: ParamSpec, v: unknown, pos: Pos): unknown {
    switch (p.type) {
      case 'string':
        if (typeof v !== 'string') this.fail(`field ${p.name}: wrong argument type, expected string, got ${typeOf(v)}`, pos);
        return v;
      case 'number':
        if (!isNumber(v)) this.fail(`field ${p.name}: ${typeError(v, 'number').message}`, pos);
        return v;
      case 'bool':
        if (typeof v === 'boolean') return v;
        if (isNumber(v)) return widen(v) !== 0; // Benthos reads a number as a bool here
        return this.fail(`field ${p.name}: ${typeError(v, 'bool').message}`, pos);
      default:
        return v;
    }
  }

  private call(name: string, given: Arg[], pos: Pos): CNode {
    const spec = this.env === undefined || this.env.functions.has(name) ? functions.get(name) : undefined;
    if (spec === undefined) this.fail(`unrecognised function '${name}'`, pos);
    const args = this.args(spec.params, spec.variadic === true, given, `function ${name}`, pos);
    let fn: Fn;
    try {
      fn = spec.build(args);
    } catch (err) {
      return this.fail(`function ${name}: ${asQueryError(err).message}`, pos);
    }
    return { fn, ann: `function ${name}` };
  }

  private method(targetExpr: Expr, name: string, given: Arg[], pos: Pos): CNode {
    if (name === 'apply') return this.apply(targetExpr, given, pos);
    const spec = this.env === undefined || this.env.methods.has(name) ? methods.get(name) : undefined;
    if (spec === undefined) this.fail(`unrecognised method '${name}'`, pos);
    const target = this.expr(targetExpr);
    const args = this.args(spec.params, spec.variadic === true, given, `method ${name}`, pos);
    try {
      if (spec.raw) return { fn: spec.raw(target, args), ann: `method ${name}` };
      const impl = spec.build!(args);
      const tf = target.fn;
      const tann = target.ann;
      const widens = !KEEPS_FLOAT32.has(name);
      const attribute = spec.plugin ? pluginError : errFrom;
      return {
        fn: (c, self) => {
          let v = tf(c, self);
          if (widens && v instanceof Float32) v = v.value;
          try {
            return impl(v, c, self);
          } catch (err) {
            throw attribute(err, tann);
          }
        },
        ann: `method ${name}`,
      };
    } catch (err) {
      if (err instanceof InterpError) throw err;
      return this.fail(spec.plugin || err instanceof ArgumentError ? asQueryError(err).message : `method ${name}: ${asQueryError(err).message}`, pos);
    }
  }

  /** `.apply("name")`: runs a declared map with the target as `this` and a fresh root and variables. */
  private apply(targetExpr: Expr, given: Arg[], pos: Pos): CNode {
    const target = this.expr(targetExpr);
    const args = this.args([{ name: 'mapping' }], false, given, 'method apply', pos);
    if (!args.isConst(0) || typeof args.const(0) !== 'string') this.fail('method apply: the mapping name must be a string literal', pos);
    const name = args.const(0) as string;
    const m = this.compileMap(name, pos);
    const tf = target.fn;
    return {
      fn: (c, self) => {
        const v = tf(c, self);
        if (c.depth >= MAX_MAP_DEPTH) {
          throw new QueryError(`entering map ${name} exceeded maximum allowed stacks of ${MAX_MAP_DEPTH}, this could be due to unbounded recursion`);
        }
        const root = c.root;
        const vars = c.vars;
        c.root = NOTHING;
        c.vars = undefined;
        c.depth++;
        try {
          for (const s of m.stmts) s(c, v);
          return c.root;
        } catch (err) {
          if (err instanceof RangeError) {
            throw new QueryError(`entering map ${name} exceeded the maximum call depth, this could be due to unbounded recursion`);
          }
          throw err;
        } finally {
          c.root = root;
          c.vars = vars;
          c.depth--;
        }
      },
      ann: `map ${name}`,
    };
  }

  /** Compiles declared maps that nothing applies, so their errors are reported too. */
  compileAllMaps(): void {
    for (const name of this.mapDefs.keys()) this.compileMap(name, { line: 1, col: 1 });
  }

  private compileMap(name: string, pos: Pos): CompiledMap {
    let m = this.compiled.get(name);
    if (m) return m;
    const def = this.mapDefs.get(name);
    if (def === undefined) this.fail(`map ${name} was not found`, pos);
    m = { name, stmts: [] };
    this.compiled.set(name, m);
    const saved = this.named.splice(0);
    try {
      m.stmts.push(...this.statements(def));
    } finally {
      this.named.push(...saved);
    }
    return m;
  }
}

function expectedCount(params: ParamSpec[]): string {
  const required = params.filter((p) => !('default' in p) && !p.optional).length;
  return required === params.length ? String(required) : `${required} to ${params.length}`;
}

/** Deep-copies a container into root (as Bloblang clones on assignment) and notes bytes inside. */
function prepare(c: State, v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (v instanceof Uint8Array) {
    c.sawBytes = true;
    return v;
  }
  return copyNoting(c, v);
}

/** One pass: copies containers and flags bytes, which must become base64 before JSON output. */
function copyNoting(c: State, v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copyNoting(c, v[i]);
    return out;
  }
  if (v instanceof Uint8Array) {
    c.sawBytes = true;
    return v;
  }
  if (!isObject(v)) return v;
  const out: Obj = {};
  for (const k in v) setKey(out, k, copyNoting(c, v[k]));
  return out;
}

/** A value as metadata holds it: bytes and timestamps become strings, containers are copied. */
export function toMeta(v: unknown): MetaValue {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'string':
    case 'number':
    case 'boolean':
      return v;
    case 'object':
      if (v instanceof Uint8Array || v instanceof Timestamp) return toStr(v);
      if (v instanceof JsonNumber) return v; // keeps its text, as Benthos' metadata keeps a json.Number
      if (Array.isArray(v)) return v.map(toMeta);
      if (isObject(v)) {
        const out: { [k: string]: MetaValue } = {};
        for (const k of Object.keys(v)) setKey(out, k, toMeta(v[k]));
        return out;
      }
      return toStr(v);
    default:
      return null;
  }
}
