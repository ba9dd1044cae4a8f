/**
 * Arithmetic and comparison with Bloblang's typing: `+` adds numbers or concatenates strings,
 * integer operands stay integers, `/` always divides as floats, `%` works on integers, and
 * comparing unlike types is an error except for `==`/`!=`.
 *
 * Integers are exact over the whole int64 range, as in Benthos (numberDegradationFunc in
 * internal/bloblang/query/arithmetic.go): if either operand is a float the operation is a float64
 * one; otherwise both are int64s and the result wraps around on overflow exactly as Go's int64
 * does (`9223372036854775807 + 1` is `-9223372036854775808`, no error). A number read from JSON
 * (a JsonNumber) is an int64 when its text is an integer within int64 (json.Number.Int64) and a
 * float64 otherwise (`1e2`, `1.0`, an integer beyond int64). Benthos' third case, uint64
 * arithmetic, needs two uint64 values, which only its uint64 coercions make; here those are
 * int64s (wrapping the same way below 2^63).
 */
import { errFrom, mismatch, typeError } from './errors.js';
import { JsonNumber, Timestamp, equals, isInt, toStr, widen } from './values.js';

export type Arith = (l: unknown, r: unknown, lAnn: string, rAnn: string) => unknown;

/** Wraps an integer result to int64, as Go's int64 arithmetic does on overflow. */
function wrapInt(exact: () => bigint, approx: number): number | JsonNumber {
  if (Number.isSafeInteger(approx)) return approx + 0; // an int64 has no -0 (0 * -1 is 0)
  return JsonNumber.ofInt(BigInt.asIntN(64, exact()));
}

function isNum(v: unknown): v is number {
  return typeof v === 'number';
}

/** The int64 an operand holds (a bigint), or undefined when it is a float64. */
function intOf(v: number | JsonNumber): bigint | undefined {
  if (v instanceof JsonNumber) return v.int;
  return isInt(v) ? BigInt(v) : undefined;
}

/**
 * Go's int64(f) of a float (IGetInt): truncated; beyond int64 (or NaN) Go leaves it to the CPU,
 * and amd64, where Benthos runs, gives the smallest int64 (`1e300 % 3` is `-2`).
 */
function truncInt(v: number | JsonNumber): bigint {
  const i = v instanceof JsonNumber ? v.int : undefined;
  if (i !== undefined) return i;
  const f = widen(v) as number;
  return Math.abs(f) < 2 ** 63 ? BigInt(Math.trunc(f)) : -(2n ** 63n);
}

/** An operation where an operand is a JsonNumber: int64 when both are integers, else float64. */
function exact(l: number | JsonNumber, r: number | JsonNumber, int: (a: bigint, b: bigint) => bigint, float: (a: number, b: number) => number): unknown {
  const li = intOf(l);
  const ri = li === undefined ? undefined : intOf(r);
  if (li !== undefined && ri !== undefined) return JsonNumber.ofInt(BigInt.asIntN(64, int(li, ri)));
  return float(widen(l) as number, widen(r) as number);
}

const bigAdd = (a: bigint, b: bigint): bigint => a + b;
const bigSub = (a: bigint, b: bigint): bigint => a - b;
const bigMul = (a: bigint, b: bigint): bigint => a * b;
const fAdd = (a: number, b: number): number => a + b;
const fSub = (a: number, b: number): number => a - b;
const fMul = (a: number, b: number): number => a * b;

function isStrLike(v: unknown): boolean {
  return typeof v === 'string' || v instanceof Uint8Array;
}

/** Both operands are numbers and one keeps its text: the int64-or-float64 path. */
function withJsonNumber(l: unknown, r: unknown): l is number | JsonNumber {
  return (l instanceof JsonNumber && (isNum(r) || r instanceof JsonNumber)) || (r instanceof JsonNumber && isNum(l));
}

export const add: Arith = (l, r, la, ra) => {
  if (typeof l === 'string' && typeof r === 'string') return l + r;
  if (withJsonNumber(l, r)) return exact(l, r as number | JsonNumber, bigAdd, fAdd);
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
  if (typeof l !== 'number' || typeof r !== 'number') {
    if (withJsonNumber(l, r)) return exact(l, r as number | JsonNumber, bigSub, fSub);
    l = widen(l);
    r = widen(r);
  }
  if (!isNum(l) || !isNum(r)) throw mismatch('subtract', la, ra, l, r);
  const s = l - r;
  if (isInt(l) && isInt(r)) return wrapInt(() => BigInt(l) - BigInt(r), s);
  return s;
};

export const mul: Arith = (l, r, la, ra) => {
  if (typeof l !== 'number' || typeof r !== 'number') {
    if (withJsonNumber(l, r)) return exact(l, r as number | JsonNumber, bigMul, fMul);
    l = widen(l);
    r = widen(r);
  }
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
  if (withJsonNumber(l, r)) {
    const b = truncInt(r as number | JsonNumber);
    if (b === 0n) throw errFrom(new Error('attempted to divide by zero'), ra);
    return JsonNumber.ofInt(BigInt.asIntN(64, truncInt(l) % b));
  }
  l = widen(l);
  r = widen(r);
  if (!isNum(l) || !isNum(r)) throw mismatch('modulo', la, ra, l, r);
  const a = Math.trunc(l);
  const b = Math.trunc(r);
  if (Number.isSafeInteger(a) && Number.isSafeInteger(b)) {
    if (b === 0) throw errFrom(new Error('attempted to divide by zero'), ra);
    return (a % b) + 0; // an int64 has no -0
  }
  const bb = truncInt(r);
  if (bb === 0n) throw errFrom(new Error('attempted to divide by zero'), ra);
  return JsonNumber.ofInt(BigInt.asIntN(64, truncInt(l) % bb));
};

type Cmp = '==' | '!=' | '<' | '<=' | '>' | '>=';

function ordered<T extends number | bigint | string>(op: Cmp, a: T, b: T): boolean {
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
  const bigCmp = (a: bigint, b: bigint): boolean => ordered(op, a, b);
  return (l, r, la, ra) => {
    if (typeof l === 'string' && typeof r === 'string') return ordered(op, l, r);
    if (l instanceof Timestamp || r instanceof Timestamp) {
      // Benthos sanitises a timestamp into its RFC 3339 text before comparing: timestamps order
      // as strings (as that text sorts), and equal a string with the same text.
      const ls = l instanceof Timestamp ? toStr(l) : l;
      const rs = r instanceof Timestamp ? toStr(r) : r;
      if ((typeof ls === 'string' || ls instanceof Uint8Array) && (typeof rs === 'string' || rs instanceof Uint8Array))
        return ordered(op, toStr(ls), toStr(rs));
      if (eqOnly) return generic(l, r);
      throw mismatch('compare', la, ra, l, r);
    }
    if (withJsonNumber(l, r)) {
      // int64 against int64 compares exactly (two ids 1 apart above 2^53 differ), else as float64
      const li = intOf(l);
      const ri = li === undefined ? undefined : intOf(r as number | JsonNumber);
      if (li !== undefined && ri !== undefined) return bigCmp(li, ri);
    }
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
  if (v instanceof JsonNumber) return v.text !== '0'; // Go's IGetBool of a json.Number
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
