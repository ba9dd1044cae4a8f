/**
 * Evaluates a parsed jq program as gojq does: every expression is a generator of values, and in
 * path mode (`path(f)`, the left of `|=`, `del`, `paths`) of values with the path they came from.
 * Errors are JqError values that `try` catches; `break` is a signal `try` never catches.
 */
import { type FuncDef, type Node, type Pattern } from './parser.js';
import { compare, encode, isInt, isNumber, isObject, JqError, type JqObject, normInt, sortedKeys, toFloat, typeErrorPreview, type Value } from './value.js';

export type Path = Value[];
export type Out = [Value, Path | null];

/** A filter argument: the expression with the scope of the call that passed it. */
export interface Closure {
  node: Node;
  env: Env;
}

interface FuncScope {
  key: string;
  def: FuncDef | Closure;
  env: Env;
  parent: FuncScope | null;
}

interface VarScope {
  name: string;
  value: Value | symbol;
  parent: VarScope | null;
}

export interface Env {
  vars: VarScope | null;
  funcs: FuncScope | null;
}

/** A built-in written in TypeScript: it gets the input, its argument closures and the path. */
export type Native = (input: Value, args: Closure[], path: Path | null) => Iterable<Out>;

class BreakSignal {
  constructor(readonly label: symbol) {}
}

export const truthy = (v: Value): boolean => v !== null && v !== false;

export function bindVar(env: Env, name: string, value: Value | symbol): Env {
  return { vars: { name, value, parent: env.vars }, funcs: env.funcs };
}

function lookupVar(env: Env, name: string): Value | symbol {
  for (let s = env.vars; s; s = s.parent) if (s.name === name) return s.value;
  throw new JqError(`variable not defined: $${name}`);
}

export class Interpreter {
  constructor(
    readonly natives: Map<string, Native>,
    readonly prelude: Map<string, { def: FuncDef; env: Env }>,
  ) {}

  /** Every value `node` yields for `input` (value mode). */
  *values(node: Node, input: Value, env: Env): Generator<Value> {
    const fast = single(node);
    if (fast) {
      yield fast(input, env);
      return;
    }
    for (const [v] of this.ev(node, input, env, null)) yield v;
  }

  /** The values as an array; a query of one value each step runs without generators. */
  all(node: Node, input: Value, env: Env): Value[] {
    const fast = single(node);
    return fast ? [fast(input, env)] : [...this.values(node, input, env)];
  }

  /** Every value of a closure for `input`, in value mode. */
  *run(c: Closure, input: Value): Generator<Value> {
    for (const [v] of this.ev(c.node, input, c.env, null)) yield v;
  }

  /** Every path of a closure for `input` (path mode). */
  *paths(c: Closure, input: Value): Generator<Out> {
    yield* this.ev(c.node, input, c.env, []);
  }

  *ev(n: Node, v: Value, env: Env, p: Path | null): Generator<Out> {
    switch (n.t) {
      case 'identity':
        yield [v, p];
        return;
      case 'recurse':
        yield* recurse(v, p);
        return;
      case 'literal':
        yield [n.v, this.valuePath(n.v, p)];
        return;
      case 'var': {
        const x = lookupVar(env, n.name);
        if (typeof x === 'symbol') throw new JqError(`variable not defined: $${n.name}`);
        yield [x, this.valuePath(x, p)];
        return;
      }
      case 'index':
        for (const [t, tp] of this.ev(n.target, v, env, p)) {
          for (const k of this.values(n.key, v, env)) yield [index(t, k), tp && [...tp, k]];
        }
        return;
      case 'slice':
        for (const [t, tp] of this.ev(n.target, v, env, p)) {
          for (const to of n.to ? this.values(n.to, v, env) : [null]) {
            for (const from of n.from ? this.values(n.from, v, env) : [null]) {
              const key: JqObject = new Map([
                ['start', from],
                ['end', to],
              ]);
              yield [slice(t, from, to), tp && [...tp, key]];
            }
          }
        }
        return;
      case 'iterate':
        for (const [t, tp] of this.ev(n.target, v, env, p)) yield* iterate(t, tp);
        return;
      case 'pipe':
        for (const [x, xp] of this.ev(n.l, v, env, p)) yield* this.ev(n.r, x, env, xp);
        return;
      case 'comma':
        yield* this.ev(n.l, v, env, p);
        yield* this.ev(n.r, v, env, p);
        return;
      case 'try':
        yield* this.tryCatch(n.body, n.handler, v, env, p);
        return;
      case 'alt': {
        let any = false;
        try {
          for (const out of this.ev(n.l, v, env, p)) {
            if (truthy(out[0])) {
              any = true;
              yield out;
            }
          }
        } catch (err) {
          if (!(err instanceof JqError)) throw err;
        }
        if (!any) yield* this.ev(n.r, v, env, p);
        return;
      }
      case 'and':
      case 'or':
        for (const l of this.values(n.l, v, env)) {
          if (n.t === 'and' ? !truthy(l) : truthy(l)) {
            yield [n.t === 'or', this.valuePath(n.t === 'or', p)];
            continue;
          }
          for (const r of this.values(n.r, v, env)) yield [truthy(r), this.valuePath(truthy(r), p)];
        }
        return;
      case 'binop':
        for (const r of this.values(n.r, v, env)) {
          for (const l of this.values(n.l, v, env)) {
            const x = binop(n.op, l, r);
            yield [x, this.valuePath(x, p)];
          }
        }
        return;
      case 'neg':
        for (const x of this.values(n.body, v, env)) {
          if (!isNumber(x)) throw new JqError(`cannot negate: ${typeErrorPreview(x)}`);
          const y = typeof x === 'bigint' ? normInt(-x) : x === 0 ? 0 : -x;
          yield [y, this.valuePath(y, p)];
        }
        return;
      case 'update':
        yield* this.update(n.op, n.l, n.r, v, env, p);
        return;
      case 'array': {
        const a = n.body ? [...this.values(n.body, v, env)] : [];
        yield [a, this.valuePath(a, p)];
        return;
      }
      case 'object':
        for (const o of this.object(n.entries, 0, v, env, new Map())) yield [o, this.valuePath(o, p)];
        return;
      case 'string':
        for (const s of this.interpolate(n.parts, 0, n.format, v, env, '')) yield [s, this.valuePath(s, p)];
        return;
      case 'format':
        yield* this.call('@' + n.name, [], v, env, p);
        return;
      case 'if':
        for (const c of this.values(n.cond, v, env)) {
          if (truthy(c)) yield* this.ev(n.then, v, env, p);
          else if (n.else) yield* this.ev(n.else, v, env, p);
          else yield [v, p];
        }
        return;
      case 'as':
        for (const x of this.values(n.source, v, env)) {
          for (const e of this.bind(n.pattern, x, env, env)) yield* this.ev(n.body, v, e, p);
        }
        return;
      case 'reduce':
        for (const init of this.values(n.init, v, env)) {
          let acc: Value = init;
          for (const x of this.values(n.source, v, env)) {
            for (const e of this.bind(n.pattern, x, env, env)) {
              let last: Value = null;
              for (const y of this.values(n.update, acc, e)) last = y;
              acc = last;
            }
          }
          yield [acc, this.valuePath(acc, p)];
        }
        return;
      case 'foreach':
        for (const init of this.values(n.init, v, env)) {
          let acc: Value = init;
          for (const x of this.values(n.source, v, env)) {
            for (const e of this.bind(n.pattern, x, env, env)) {
              for (const y of this.values(n.update, acc, e)) {
                acc = y;
                if (!n.extract) yield [y, this.valuePath(y, p)];
                else for (const z of this.values(n.extract, y, e)) yield [z, this.valuePath(z, p)];
              }
            }
          }
        }
        return;
      case 'label': {
        const label = Symbol(n.name);
        try {
          yield* this.ev(n.body, v, bindVar(env, '*label*' + n.name, label), p);
        } catch (err) {
          if (!(err instanceof BreakSignal) || err.label !== label) throw err;
        }
        return;
      }
      case 'break': {
        const label = lookupVar(env, '*label*' + n.name);
        throw new BreakSignal(label as symbol);
      }
      case 'def': {
        const scope: FuncScope = { key: `${n.def.name}/${n.def.params.length}`, def: n.def, env, parent: env.funcs };
        const inner: Env = { vars: env.vars, funcs: scope };
        scope.env = inner;
        yield* this.ev(n.body, v, inner, p);
        return;
      }
      case 'call':
        yield* this.call(n.name, n.args, v, env, p);
        return;
    }
  }

  /** A computed value is a path only where jq allows it: `null` (gojq: an empty path). */
  private valuePath(v: Value, p: Path | null): Path | null {
    if (p === null) return null;
    if (v === null) return p;
    throw new JqError(`invalid path against: ${typeErrorPreview(v)}`);
  }

  private *tryCatch(body: Node, handler: Node | undefined, v: Value, env: Env, p: Path | null): Generator<Out> {
    const it = this.ev(body, v, env, p);
    for (;;) {
      let r: IteratorResult<Out>;
      try {
        r = it.next();
      } catch (err) {
        if (!(err instanceof JqError)) throw err;
        // `error(null)` is caught by nothing but an explicit catch, as gojq: `try error(null)` yields nothing.
        if (handler) yield* this.ev(handler, err.value, env, null);
        return;
      }
      if (r.done) return;
      yield r.value;
    }
  }

  private *object(entries: { key: Node; value: Node }[], i: number, v: Value, env: Env, acc: JqObject): Generator<JqObject> {
    if (i === entries.length) {
      yield acc;
      return;
    }
    const e = entries[i]!;
    for (const k of this.values(e.key, v, env)) {
      if (typeof k !== 'string') throw new JqError(`expected a string for object key but got: ${typeErrorPreview(k)}`);
      for (const x of this.values(e.value, v, env)) yield* this.object(entries, i + 1, v, env, new Map(acc).set(k, x));
    }
  }

  private *interpolate(parts: (string | Node)[], i: number, format: string | undefined, v: Value, env: Env, acc: string): Generator<string> {
    if (i === parts.length) {
      yield acc;
      return;
    }
    const part = parts[i]!;
    if (typeof part === 'string') {
      yield* this.interpolate(parts, i + 1, format, v, env, acc + part);
      return;
    }
    for (const x of this.values(part, v, env)) {
      let s: Value;
      if (format === undefined) s = typeof x === 'string' ? x : encode(x);
      else s = [...this.call('@' + format, [], x, env, null)][0]![0];
      yield* this.interpolate(parts, i + 1, format, v, env, acc + (s as string));
    }
  }

  /** Binds a destructuring pattern; keys of object patterns are evaluated in `keyEnv` with `.` the outer input. */
  *bind(pt: Pattern, x: Value, env: Env, keyEnv: Env): Generator<Env> {
    if (pt.t === 'var') {
      yield bindVar(env, pt.name, x);
      return;
    }
    if (pt.t === 'array') {
      if (x !== null && !Array.isArray(x)) throw new JqError(`expected an array but got: ${typeErrorPreview(x)}`);
      yield* this.bindAll(
        pt.items.map((item, i) => [item, x === null ? null : (x[i] ?? null)] as const),
        0,
        env,
        keyEnv,
      );
      return;
    }
    if (x !== null && !isObject(x)) throw new JqError(`expected an object but got: ${typeErrorPreview(x)}`);
    yield* this.bindObject(pt.entries, 0, x, env, keyEnv);
  }

  private *bindAll(items: readonly (readonly [Pattern, Value])[], i: number, env: Env, keyEnv: Env): Generator<Env> {
    if (i === items.length) {
      yield env;
      return;
    }
    const [pt, x] = items[i]!;
    for (const e of this.bind(pt, x, env, keyEnv)) yield* this.bindAll(items, i + 1, e, keyEnv);
  }

  private *bindObject(entries: { key: Node; bind?: string; pattern?: Pattern }[], i: number, x: JqObject | null, env: Env, keyEnv: Env): Generator<Env> {
    if (i === entries.length) {
      yield env;
      return;
    }
    const e = entries[i]!;
    for (const k of this.values(e.key, x, env)) {
      if (typeof k !== 'string') throw new JqError(`expected a string for object key but got: ${typeErrorPreview(k)}`);
      const val = x === null ? null : (x.get(k) ?? null);
      let next = e.bind === undefined ? env : bindVar(env, e.bind, val);
      if (!e.pattern) {
        yield* this.bindObject(entries, i + 1, x, next, keyEnv);
        continue;
      }
      for (next of this.bind(e.pattern, val, next, keyEnv)) yield* this.bindObject(entries, i + 1, x, next, keyEnv);
    }
  }

  private *update(op: string, l: Node, r: Node, v: Value, env: Env, p: Path | null): Generator<Out> {
    const lhs: Closure = { node: l, env };
    if (op === '|=') {
      const out = this.modify(lhs, v, (old) => this.values(r, old, env));
      yield [out, this.valuePath(out, p)];
      return;
    }
    for (const rv of this.values(r, v, env)) {
      let out: Value;
      if (op === '=') {
        out = v;
        for (const [, path] of this.paths(lhs, v)) out = setpath(out, path!, rv);
      } else if (op === '//=') {
        out = v;
        for (const [, path] of this.paths(lhs, v)) {
          const old = getpath(out, path!);
          out = setpath(out, path!, truthy(old) ? old : rv);
        }
      } else {
        const arith = op.slice(0, -1);
        out = this.modify(lhs, v, (old) => [binop(arith, old, rv)]);
      }
      yield [out, this.valuePath(out, p)];
    }
  }

  /** gojq's _modify: each path set to the first value of `f` on it, or deleted when `f` is empty. */
  modify(lhs: Closure, v: Value, f: (old: Value) => Iterable<Value>): Value {
    let out = v;
    for (const [, path] of this.paths(lhs, v)) {
      let first: { value: Value } | undefined;
      for (const x of f(getpath(out, path!))) {
        first = { value: x };
        break;
      }
      out = first ? setpath(out, path!, first.value) : delpaths(out, [path!]);
    }
    return out;
  }

  private *call(name: string, args: Node[], v: Value, env: Env, p: Path | null): Generator<Out> {
    const key = `${name}/${args.length}`;
    for (let s = env.funcs; s; s = s.parent) {
      if (s.key !== key) continue;
      if (!('name' in s.def)) {
        yield* this.ev(s.def.node, v, s.def.env, p);
        return;
      }
      yield* this.callDef(s.def, s.env, args, v, env, p);
      return;
    }
    const pre = this.prelude.get(key);
    if (pre) {
      yield* this.callDef(pre.def, pre.env, args, v, env, p);
      return;
    }
    const native = this.natives.get(key);
    if (!native) throw new JqError(`function not defined: ${key}`);
    yield* native(
      v,
      args.map((node) => ({ node, env })),
      p,
    );
  }

  private *callDef(def: FuncDef, defEnv: Env, args: Node[], v: Value, callerEnv: Env, p: Path | null): Generator<Out> {
    let env = defEnv;
    const valueParams: [string, Closure][] = [];
    def.params.forEach((param, i) => {
      const closure: Closure = { node: args[i]!, env: callerEnv };
      const name = param.startsWith('$') ? param.slice(1) : param;
      env = { vars: env.vars, funcs: { key: `${name}/0`, def: closure, env: callerEnv, parent: env.funcs } };
      if (param.startsWith('$')) valueParams.push([name, closure]);
    });
    // the function itself is in scope in its body (recursion)
    const self: FuncScope = { key: `${def.name}/${def.params.length}`, def, env: defEnv, parent: env.funcs };
    env = { vars: env.vars, funcs: self };
    yield* this.bindParams(valueParams, 0, def.body, v, env, p);
  }

  private *bindParams(params: [string, Closure][], i: number, body: Node, v: Value, env: Env, p: Path | null): Generator<Out> {
    if (i === params.length) {
      yield* this.ev(body, v, env, p);
      return;
    }
    const [name, c] = params[i]!;
    for (const x of this.run(c, v)) yield* this.bindParams(params, i + 1, body, v, bindVar(env, name, x), p);
  }
}

type Single = (v: Value, env: Env) => Value;
const singles = new WeakMap<Node, Single | null>();

/**
 * A plain function for an expression that yields exactly one value whatever its input (paths,
 * literals, variables, arithmetic, objects with fixed keys, ...): most queries are such, and a
 * function call costs far less than a generator per step. Undefined for anything that may yield
 * none or many (`.[]`, `,`, `empty`, calls, `//`, `try`, ...).
 */
export function single(n: Node): Single | undefined {
  let f = singles.get(n);
  if (f === undefined) {
    f = compileSingle(n) ?? null;
    singles.set(n, f);
  }
  return f ?? undefined;
}

function compileSingle(n: Node): Single | undefined {
  switch (n.t) {
    case 'identity':
      return (v) => v;
    case 'literal': {
      const x = n.v;
      return () => x;
    }
    case 'var': {
      const name = n.name;
      return (_v, env) => {
        const x = lookupVar(env, name);
        if (typeof x === 'symbol') throw new JqError(`variable not defined: $${name}`);
        return x;
      };
    }
    case 'index': {
      const t = single(n.target);
      const k = single(n.key);
      return t && k ? (v, env) => index(t(v, env), k(v, env)) : undefined;
    }
    case 'pipe': {
      const l = single(n.l);
      const r = single(n.r);
      return l && r ? (v, env) => r(l(v, env), env) : undefined;
    }
    case 'binop': {
      const l = single(n.l);
      const r = single(n.r);
      const op = n.op;
      // the right side first, as the generator path (and gojq) evaluates it
      return l && r
        ? (v, env) => {
            const rv = r(v, env);
            return binop(op, l(v, env), rv);
          }
        : undefined;
    }
    case 'and':
    case 'or': {
      const l = single(n.l);
      const r = single(n.r);
      if (!l || !r) return undefined;
      return n.t === 'and' ? (v, env) => truthy(l(v, env)) && truthy(r(v, env)) : (v, env) => truthy(l(v, env)) || truthy(r(v, env));
    }
    case 'neg': {
      const b = single(n.body);
      if (!b) return undefined;
      return (v, env) => {
        const x = b(v, env);
        if (!isNumber(x)) throw new JqError(`cannot negate: ${typeErrorPreview(x)}`);
        return typeof x === 'bigint' ? normInt(-x) : x === 0 ? 0 : -x;
      };
    }
    case 'array': {
      if (!n.body) return () => [];
      const b = single(n.body);
      return b ? (v, env) => [b(v, env)] : undefined;
    }
    case 'object': {
      const entries: [Single, Single][] = [];
      for (const e of n.entries) {
        const k = single(e.key);
        const x = single(e.value);
        if (!k || !x) return undefined;
        entries.push([k, x]);
      }
      return (v, env) => {
        const o: JqObject = new Map();
        for (const [k, x] of entries) {
          const key = k(v, env);
          if (typeof key !== 'string') throw new JqError(`expected a string for object key but got: ${typeErrorPreview(key)}`);
          o.set(key, x(v, env));
        }
        return o;
      };
    }
    case 'string': {
      if (n.format !== undefined) return undefined;
      const parts: (string | Single)[] = [];
      for (const p of n.parts) {
        if (typeof p === 'string') parts.push(p);
        else {
          const f = single(p);
          if (!f) return undefined;
          parts.push(f);
        }
      }
      return (v, env) => {
        let s = '';
        for (const p of parts) {
          if (typeof p === 'string') s += p;
          else {
            const x = p(v, env);
            s += typeof x === 'string' ? x : encode(x);
          }
        }
        return s;
      };
    }
    default:
      return undefined;
  }
}

function* recurse(v: Value, p: Path | null): Generator<Out> {
  yield [v, p];
  if (Array.isArray(v)) for (let i = 0; i < v.length; i++) yield* recurse(v[i]!, p && [...p, i]);
  else if (isObject(v)) for (const k of sortedKeys(v)) yield* recurse(v.get(k)!, p && [...p, k]);
}

function* iterate(t: Value, tp: Path | null): Generator<Out> {
  if (Array.isArray(t)) {
    for (let i = 0; i < t.length; i++) yield [t[i]!, tp && [...tp, i]];
  } else if (isObject(t)) {
    for (const k of sortedKeys(t)) yield [t.get(k)!, tp && [...tp, k]];
  } else throw new JqError(`cannot iterate over: ${typeErrorPreview(t)}`);
}

function arrayIndex(a: unknown[], k: number | bigint): number | undefined {
  const f = Math.floor(toFloat(k));
  const i = f < 0 ? a.length + f : f;
  return i >= 0 && i < a.length ? i : undefined;
}

/** `.[k]` as gojq: null for a missing key or index, errors naming the types otherwise. */
export function index(t: Value, k: Value): Value {
  if (typeof k === 'string') {
    if (isObject(t)) return t.get(k) ?? null;
    if (t === null) return null;
    throw new JqError(`expected an object but got: ${typeErrorPreview(t)}`);
  }
  if (isNumber(k)) {
    if (Array.isArray(t)) {
      const i = arrayIndex(t, k);
      return i === undefined ? null : t[i]!;
    }
    if (t === null) return null;
    throw new JqError(`expected an array but got: ${typeErrorPreview(t)}`);
  }
  if (isObject(k) && (Array.isArray(t) || t === null || typeof t === 'string')) return slice(t, k.get('start') ?? null, k.get('end') ?? null);
  if (Array.isArray(k) && Array.isArray(t)) return indices(t, k);
  if (Array.isArray(t)) throw new JqError(`expected a number for indexing an array but got: ${typeErrorPreview(k)}`);
  if (isObject(t)) throw new JqError(`expected a string for object key but got: ${typeErrorPreview(k)}`);
  if (t === null) return null;
  throw new JqError(`expected an object but got: ${typeErrorPreview(t)}`);
}

/** Where `sub` occurs in `a` (arrays) as jq's `indices`. */
export function indices(a: Value[], sub: Value[]): Value[] {
  const out: Value[] = [];
  if (sub.length === 0) return out;
  for (let i = 0; i + sub.length <= a.length; i++) {
    if (sub.every((x, j) => compare(a[i + j]!, x) === 0)) out.push(i);
  }
  return out;
}

function sliceBounds(len: number, from: Value, to: Value): [number, number] {
  const clamp = (x: number) => Math.max(0, Math.min(len, x < 0 ? len + x : x));
  if ((from !== null && !isNumber(from)) || (to !== null && !isNumber(to))) {
    throw new JqError(
      `expected "start" and "end" for slicing but got: ${typeErrorPreview(
        new Map([
          ['start', from],
          ['end', to],
        ]),
      )}`,
    );
  }
  const s = from === null ? 0 : clamp(Math.floor(toFloat(from)));
  const e = to === null ? len : clamp(Math.ceil(toFloat(to)));
  return [s, Math.max(s, e)];
}

export function slice(t: Value, from: Value, to: Value): Value {
  if (t === null) return null;
  if (Array.isArray(t)) {
    const [s, e] = sliceBounds(t.length, from, to);
    return t.slice(s, e);
  }
  if (typeof t === 'string') {
    const cps = [...t];
    const [s, e] = sliceBounds(cps.length, from, to);
    return cps.slice(s, e).join('');
  }
  throw new JqError(`cannot slice: ${typeErrorPreview(t)}`);
}

export function getpath(v: Value, path: Path): Value {
  let x = v;
  for (const k of path) {
    if (x === null) return null;
    x = index(x, k);
  }
  return x;
}

export function setpath(v: Value, path: Path, value: Value, i = 0): Value {
  if (i === path.length) return value;
  const k = path[i]!;
  if (typeof k === 'string') {
    if (v !== null && !isObject(v)) throw new JqError(`expected an object but got: ${typeErrorPreview(v)}`);
    const o: JqObject = new Map(v ?? []);
    return o.set(k, setpath(o.get(k) ?? null, path, value, i + 1));
  }
  if (isNumber(k)) {
    if (v !== null && !Array.isArray(v)) throw new JqError(`expected an array but got: ${typeErrorPreview(v)}`);
    const a = [...(v ?? [])];
    let n = Math.floor(toFloat(k));
    if (n < 0) {
      n += a.length;
      if (n < 0) throw new JqError(`array index should not be negative: ${k}`);
    }
    if (n > 0x3ffffff) throw new JqError(`array index too large: ${k}`);
    while (a.length < n) a.push(null);
    a[n] = setpath(a[n] ?? null, path, value, i + 1);
    return a;
  }
  if (isObject(k)) {
    if (v !== null && !Array.isArray(v)) throw new JqError(`expected an array but got: ${typeErrorPreview(v)}`);
    const a = v ?? [];
    const [s, e] = sliceBounds(a.length, k.get('start') ?? null, k.get('end') ?? null);
    const repl = setpath(a.slice(s, e), path, value, i + 1);
    if (!Array.isArray(repl)) throw new JqError(`expected an array but got: ${typeErrorPreview(repl)}`);
    return [...a.slice(0, s), ...repl, ...a.slice(e)];
  }
  throw new JqError(`invalid path against: ${typeErrorPreview(v)}`);
}

function deletePath(v: Value, path: Path, i: number): Value {
  if (v === null) return null;
  const k = path[i]!;
  const last = i === path.length - 1;
  if (typeof k === 'string') {
    if (!isObject(v)) throw new JqError(`expected an object but got: ${typeErrorPreview(v)}`);
    if (!v.has(k)) return v;
    const o: JqObject = new Map(v);
    if (last) o.delete(k);
    else o.set(k, deletePath(o.get(k)!, path, i + 1));
    return o;
  }
  if (!Array.isArray(v)) throw new JqError(`expected an array but got: ${typeErrorPreview(v)}`);
  if (isNumber(k)) {
    const n = arrayIndex(v, k);
    if (n === undefined) return v;
    const a = [...v];
    if (last) a.splice(n, 1);
    else a[n] = deletePath(a[n]!, path, i + 1);
    return a;
  }
  if (isObject(k)) {
    const [s, e] = sliceBounds(v.length, k.get('start') ?? null, k.get('end') ?? null);
    if (last) return [...v.slice(0, s), ...v.slice(e)];
    const inner = deletePath(v.slice(s, e), path, i + 1) as Value[];
    return [...v.slice(0, s), ...inner, ...v.slice(e)];
  }
  throw new JqError(`invalid path against: ${typeErrorPreview(v)}`);
}

/** Deletes paths longest-sorted-last first, so earlier indexes stay valid (jq's delpaths). */
export function delpaths(v: Value, paths: Path[]): Value {
  const sorted = [...paths].sort((a, b) => compare(b, a));
  let out = v;
  for (const p of sorted) out = p.length === 0 ? null : deletePath(out, p, 0);
  return out;
}

function intOp(op: string, a: number | bigint, b: number | bigint): Value {
  const x = BigInt(a);
  const y = BigInt(b);
  if (op === '+') return normInt(x + y);
  if (op === '-') return normInt(x - y);
  return normInt(x * y);
}

/** Arithmetic and comparison with gojq's types: exact integers, float64s, and the overloads. */
export function binop(op: string, l: Value, r: Value): Value {
  switch (op) {
    case '==':
      return compare(l, r) === 0;
    case '!=':
      return compare(l, r) !== 0;
    case '<':
      return compare(l, r) < 0;
    case '<=':
      return compare(l, r) <= 0;
    case '>':
      return compare(l, r) > 0;
    case '>=':
      return compare(l, r) >= 0;
  }
  if (isNumber(l) && isNumber(r)) return numberOp(op, l, r);
  switch (op) {
    case '+':
      if (l === null) return r;
      if (r === null) return l;
      if (typeof l === 'string' && typeof r === 'string') return l + r;
      if (Array.isArray(l) && Array.isArray(r)) return [...l, ...r];
      if (isObject(l) && isObject(r)) return new Map([...l, ...r]);
      throw new JqError(`cannot add: ${typeErrorPreview(l)} and ${typeErrorPreview(r)}`);
    case '-':
      if (Array.isArray(l) && Array.isArray(r)) return l.filter((x) => !r.some((y) => compare(x, y) === 0));
      throw new JqError(`cannot subtract: ${typeErrorPreview(l)} and ${typeErrorPreview(r)}`);
    case '*':
      if (isObject(l) && isObject(r)) return deepMerge(l, r);
      if (typeof l === 'string' && isNumber(r)) return repeat(l, toFloat(r));
      if (typeof r === 'string' && isNumber(l)) return repeat(r, toFloat(l));
      throw new JqError(`cannot multiply: ${typeErrorPreview(l)} and ${typeErrorPreview(r)}`);
    case '/':
      if (typeof l === 'string' && typeof r === 'string') return l === '' ? [] : l.split(r);
      throw new JqError(`cannot divide: ${typeErrorPreview(l)} and ${typeErrorPreview(r)}`);
    default:
      throw new JqError(`cannot modulo: ${typeErrorPreview(l)} and ${typeErrorPreview(r)}`);
  }
}

function numberOp(op: string, l: number | bigint, r: number | bigint): Value {
  const ints = isInt(l) && isInt(r);
  switch (op) {
    case '+':
    case '-':
    case '*':
      if (ints) return intOp(op, l, r);
      return op === '+' ? toFloat(l) + toFloat(r) : op === '-' ? toFloat(l) - toFloat(r) : toFloat(l) * toFloat(r);
    case '/':
      if (toFloat(r) === 0) throw new JqError(`cannot divide ${typeErrorPreview(l)} by: ${typeErrorPreview(r)}`);
      if (ints && BigInt(l) % BigInt(r) === 0n) return normInt(BigInt(l) / BigInt(r));
      return toFloat(l) / toFloat(r);
    default: {
      const li = ints ? BigInt(l) : BigInt(Math.trunc(toFloat(l)));
      const ri = ints ? BigInt(r) : Number.isFinite(toFloat(r)) ? BigInt(Math.trunc(toFloat(r))) : 0n;
      if (ri === 0n) throw new JqError(`cannot modulo ${typeErrorPreview(l)} by: ${typeErrorPreview(r)}`);
      return normInt(li % ri);
    }
  }
}

function deepMerge(l: JqObject, r: JqObject): JqObject {
  const m: JqObject = new Map(l);
  for (const [k, v] of r) {
    const old = m.get(k);
    m.set(k, old !== undefined && isObject(old) && isObject(v) ? deepMerge(old, v) : v);
  }
  return m;
}

function repeat(s: string, n: number): Value {
  if (n < 0 || Number.isNaN(n) || (s.length > 0 && n > 0x10000000 / Buffer.byteLength(s))) return null;
  return s.repeat(Math.floor(n));
}
