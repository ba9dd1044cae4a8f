/**
 * Arithmetic and comparison with Bloblang's typing: `+` adds numbers or concatenates strings,
 * integer operands stay integers (wrapping as int64 on overflow), `/` always divides as
 * floats, `%` works on integers, and comparing unlike types is an error except for `==`/`!=`.
 */
import { errFrom, mismatch, typeError } from './errors.js';
import { equals, isInt, toStr, widen } from './values.js';

export type Arith = (l: unknown, r: unknown, lAnn: string, rAnn: string) => unknown;

/** Wraps an integer result to int64, as Go's int64 arithmetic does on overflow. */
function wrapInt(exact: () => bigint, approx: number): number {
  if (Number.isSafeInteger(approx)) return approx + 0; // an int64 has no -0 (0 * -1 is 0)
  return Number(BigInt.asIntN(64, exact()));
}

function isNum(v: unknown): v is number {
  return typeof v === 'number';
}

function isStrLike(v: unknown): boolean {
  return typeof v === 'string' || v instanceof Uint8Array;
}

export const add: Arith = (l, r, la, ra) => {
  // Benthos' + refuses a float32 on its left (and only there); other operators widen it.
  r = widen(r);
  if (isNum(l)) {
    if (!isNum(r)) throw mismatch('add', la, ra, l, r);
    const s = l + r;
    if (isInt(l) && isInt(r)) return wrapInt(() => BigInt(l) + BigInt(r), s);
    return s;
  }
  if (isStrLike(l)) {
    if (!isStrLike(r)) throw mismatch('add', la, ra, l, r);
    return toStr(l) + toStr(r);
  }
  throw mismatch('add', la, ra, l, r);
};

export const sub: Arith = (l, r, la, ra) => {
  l = widen(l);
  r = widen(r);
  if (!isNum(l) || !isNum(r)) throw mismatch('subtract', la, ra, l, r);
  const s = l - r;
  if (isInt(l) && isInt(r)) return wrapInt(() => BigInt(l) - BigInt(r), s);
  return s;
};

export const mul: Arith = (l, r, la, ra) => {
  l = widen(l);
  r = widen(r);
  if (!isNum(l) || !isNum(r)) throw mismatch('multiply', la, ra, l, r);
  const s = l * r;
  if (isInt(l) && isInt(r)) return wrapInt(() => BigInt(l) * BigInt(r), s);
  return s;
};

export const div: Arith = (l, r, la, ra) => {
  l = widen(l);
  r = widen(r);
  if (!isNum(l) || !isNum(r)) throw mismatch('divide', la, ra, l, r);
  if (r === 0) throw errFrom(new Error('attempted to divide by zero'), ra);
  return l / r;
};

export const mod: Arith = (l, r, la, ra) => {
  l = widen(l);
  r = widen(r);
  if (!isNum(l) || !isNum(r)) throw mismatch('modulo', la, ra, l, r);
  const a = Math.trunc(l);
  const b = Math.trunc(r);
  if (b === 0) throw errFrom(new Error('attempted to divide by zero'), ra);
  if (Number.isSafeInteger(a) && Number.isSafeInteger(b)) return a % b;
  return Number(BigInt(a) % BigInt(b));
};

type Cmp = '==' | '!=' | '<' | '<=' | '>' | '>=';

function ordered<T extends number | string>(op: Cmp, a: T, b: T): boolean {
  switch (op) {
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
}

/** A comparison operator: ordered types compare, anything compares for (in)equality. */
export function comparator(op: Cmp): Arith {
  const eqOnly = op === '==' || op === '!=';
  const generic = (l: unknown, r: unknown): boolean => (op === '==' ? equals(l, r) : !equals(l, r));
  return (l, r, la, ra) => {
    l = widen(l);
    r = widen(r);
    if (typeof l === 'number') {
      if (typeof r === 'number') return ordered(op, l, r);
      if (eqOnly) return generic(l, r);
      throw mismatch('compare', la, ra, l, r);
    }
    if (typeof l === 'string' || l instanceof Uint8Array) {
      if (typeof r === 'string' || r instanceof Uint8Array) return ordered(op, toStr(l), toStr(r));
      if (eqOnly) return generic(l, r);
      throw mismatch('compare', la, ra, l, r);
    }
    if (typeof l === 'boolean') {
      if (!eqOnly) throw mismatch('compare', la, ra, l, r);
      if (typeof r === 'boolean' || typeof r === 'number') {
        const rb = typeof r === 'boolean' ? r : r !== 0;
        return op === '==' ? l === rb : l !== rb;
      }
      return generic(l, r);
    }
    if (eqOnly) return generic(l, r);
    throw mismatch('compare', la, ra, l, r);
  };
}

/** Bloblang's boolean coercion for `&&`, `||` and `!`: booleans, or numbers (non-zero is true). */
export function truthy(v: unknown, ann: string): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  throw typeError(v, 'bool').from(ann);
}

export const ARITH: Record<string, Arith> = {
  '+': add,
  '-': sub,
  '*': mul,
  '/': div,
  '%': mod,
  '==': comparator('=='),
  '!=': comparator('!='),
  '<': comparator('<'),
  '<=': comparator('<='),
  '>': comparator('>'),
  '>=': comparator('>='),
};
