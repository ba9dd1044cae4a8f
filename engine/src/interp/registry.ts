/**
 * How functions and methods are declared: parameters (for arity and named-argument checks at
 * compile time) and a constructor that runs once per call site, so constant arguments
 * (a regex, a hash name, a layout) are prepared once instead of per message.
 */
import { QueryError, typeError } from './errors.js';
import type { Fn, State } from './state.js';
import { JsonNumber, WholeFloat, widen } from './values.js';

export interface ParamSpec {
  name: string;
  /** Missing means required; `undefined` as a default makes the parameter optional without a value. */
  default?: unknown;
  optional?: boolean;
  /** The argument is a query run against values the method supplies (`map_each(x -> ...)`). */
  query?: boolean;
  /** Benthos' declared type: a constant argument of another type is a compile error. */
  type?: 'string' | 'number' | 'bool';
}

/** A query argument: runs its body with `v` as context (or bound to a lambda's name). */
export interface Lambda {
  call(c: State, v: unknown, self: unknown): unknown;
}

/** A compiled argument of a call site, in parameter order. */
export interface CompiledArg {
  fn: Fn;
  ann: string;
  /** True when the argument is a literal (or absent and defaulted). */
  isConst: boolean;
  value: unknown;
  /** False when an optional parameter was not given. */
  given: boolean;
  lambda?: Lambda;
}

/** The arguments of one call site. */
export class Args {
  constructor(readonly list: CompiledArg[]) {}

  get length(): number {
    return this.list.length;
  }

  /** True when every argument is constant: the method can prepare everything now. */
  get allConst(): boolean {
    return this.list.every((a) => a.isConst);
  }

  given(i: number): boolean {
    return this.list[i]?.given ?? false;
  }

  isConst(i: number): boolean {
    return this.list[i]?.isConst ?? true;
  }

  /** The constant value of argument i (only when isConst). */
  const(i: number): unknown {
    return this.list[i]?.value;
  }

  get(i: number, c: State, self: unknown): unknown {
    const a = this.list[i];
    if (a === undefined) return undefined;
    return a.isConst ? a.value : a.fn(c, self);
  }

  lambda(i: number): Lambda {
    return this.list[i]!.lambda!;
  }

  /** All argument values (for variadic methods). */
  all(c: State, self: unknown): unknown[] {
    const out = new Array<unknown>(this.list.length);
    for (let i = 0; i < this.list.length; i++) out[i] = this.get(i, c, self);
    return out;
  }
}

export interface FunctionSpec {
  params: ParamSpec[];
  variadic?: boolean;
  /** Builds the evaluator of one call site; may throw (bad constant arguments) at compile time. */
  build(a: Args): Fn;
}

/** A method whose target is evaluated first; thrown errors are attributed to the target. */
export type SimpleMethod = (v: unknown, c: State, self: unknown) => unknown;

export interface MethodSpec {
  params: ParamSpec[];
  variadic?: boolean;
  build?(a: Args): SimpleMethod;
  /** For methods that handle the target's errors themselves (`catch`, `or`). */
  raw?(target: { fn: Fn; ann: string }, a: Args): Fn;
  /**
   * Benthos registers it as a plugin (`public/bloblang`): its errors do not name the target, and a
   * constructor error is reported without the method's name.
   */
  plugin?: boolean;
}

export const functions = new Map<string, FunctionSpec>();
export const methods = new Map<string, MethodSpec>();

/** The names a mapping may call, sorted: the registered ones and `apply`, which the compiler resolves itself. */
export function languageNames(): { functions: string[]; methods: string[] } {
  return { functions: [...functions.keys()].sort(), methods: [...methods.keys(), 'apply'].sort() };
}

export function defineFunction(name: string, spec: FunctionSpec): void {
  functions.set(name, spec);
}

export function defineMethod(name: string, spec: MethodSpec): void {
  methods.set(name, spec);
}

/** Shorthand for a method with fixed parameters whose arguments are plain values. */
export function simpleMethod(name: string, params: ParamSpec[], impl: (v: unknown, args: unknown[]) => unknown): void {
  defineMethod(name, {
    params,
    build(a) {
      if (a.allConst) {
        const vals = a.list.map((x) => x.value);
        return (v) => impl(v, vals);
      }
      return (v, c, self) => impl(v, a.all(c, self));
    },
  });
}

/**
 * A method as Benthos' plugin API declares one (RegisterMethodV2): a constructor that reads the
 * argument values and returns the method. With constant arguments it runs once, when the mapping
 * compiles, so a bad argument is a compile error there as in Benthos; otherwise once per call.
 */
export function pluginMethod(name: string, params: ParamSpec[], ctor: (args: unknown[]) => (v: unknown) => unknown, variadic = false): void {
  defineMethod(name, {
    params,
    variadic,
    plugin: true,
    build(a) {
      if (a.allConst) {
        const m = ctor(a.list.map((x) => x.value));
        return (v) => m(v);
      }
      return (v, c, self) => ctor(a.all(c, self))(v);
    },
  });
}

// ---------------------------------------------------------------- coercions

export function asString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8');
  throw typeError(v, 'string');
}

/** An integer argument: floats are truncated, as Go's IGetInt does. */
export function asInt(v: unknown): number {
  v = widen(v);
  if (typeof v === 'number') return Math.trunc(v);
  throw typeError(v, 'number');
}

/** A strict integer argument (IToInt): rejects floats with decimals. */
export function asStrictInt(v: unknown): number {
  v = widen(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new QueryError('cannot convert +/-INF or NAN to an integer');
    if (!Number.isInteger(v)) {
      throw new QueryError(
        'float value contains decimals and therefore cannot be cast as a signed integer, if you intend to round the value then call `.round()` explicitly before this cast',
      );
    }
    return v;
  }
  throw typeError(v, 'number');
}

export function asBool(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (v instanceof WholeFloat) return v.value !== 0;
  if (v instanceof JsonNumber) return v.text !== '0';
  throw typeError(v, 'bool');
}
