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
 * float64 otherwise (`1e2`, `1.0`, an integer beyond int64); a whole float64 result is a
 * WholeFloat, so `(x * 1.0) * 4294967296` stays a float64 operation. Benthos' third case, uint64
 * arithmetic, needs two uint64 values, which only its uint64 coercions make; here those are
 * int64s (wrapping the same way below 2^63).
 */
import { errFrom, mismatch, typeError } from './errors.js';
import { Float32, JsonNumber, Timestamp, WholeFloat, equals, float64, isInt, isNumber, toStr, widen } from './values.js';

export type Arith = (l: unknown, r: unknown, lAnn: string, rAnn: string) => unknown;

/** Wraps an integer result to int64, as Go's int64 arithmetic does on overflow. */
function wrapInt(exact: () => bigint, approx: number): number | JsonNumber {
  if (Number.isSafeInteger(approx)) return approx + 0; // an int64 has no -0 (0 * -1 is 0)
  return JsonNumber.ofInt(BigInt.asIntN(64, exact()));
}

/** The int64 an operand holds (a bigint), or undefined when it is a float64 (Benthos' ISanitize). */
function intOf(v: unknown): bigint | undefined {
  if (typeof v === 'number') return isInt(v) ? BigInt(v) : undefined;
  if (v instanceof JsonNumber) return v.int;
  return undefined; // a WholeFloat or a Float32
}

/**
 * Go's int64(f) of a float (IGetInt): truncated; beyond int64 (or NaN) Go leaves it to the CPU,
 * and amd64, where Benthos runs, gives the smallest int64 (`1e300 % 3` is `-2`).
 */
function truncInt(v: unknown): bigint {
  const i = v instanceof JsonNumber ? v.int : undefined;
  if (i !== undefined) return i;
  const f = widen(v) as number;
  return Math.abs(f) < 2 ** 63 ? BigInt(Math.trunc(f)) : -(2n ** 63n);
}

/**
 * Benthos' numberDegradationFunc for two numbers at least one of which is boxed: a float64
 * operation when either is a float64 (a JsonNumber that is no int64, a WholeFloat, a Float32),
 * else an int64 one that wraps.
 */
function numeric(l: unknown, r: unknown, int: (a: bigint, b: bigint) => bigint, float: (a: number, b: number) => number): unknown {
  const li = intOf(l);
  const ri = li === undefined ? undefined : intOf(r);
  if (li !== undefined && ri !== undefined) return JsonNumber.ofInt(BigInt.asIntN(64, int(li, ri)));
  return float64(float(widen(l) as number, widen(r) as number));
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

/** Both operands are numbers and one is boxed (keeps its text, or is a whole float64). */
function boxedPair(l: unknown, r: unknown): boolean {
  return (typeof l === 'object' || typeof r === 'object') && isNumber(l) && isNumber(r);
}

export const add: Arith = (l, r, la, ra) => {
  if (typeof l === 'number' && typeof r === 'number') {
    const s = l + r;
    if (isInt(l) && isInt(r)) return wrapInt(() => BigInt(l) + BigInt(r), s);
    return float64(s);
  }
  if (typeof l === 'string' && typeof r === 'string') return l + r;
  // Benthos' + refuses a float32 on its left (and only there); other operators widen it.
  if (boxedPair(l, r) && !(l instanceof Float32)) return numeric(l, r, bigAdd, fAdd);
  if (isStrLike(l) && isStrLike(r)) return toStr(l) + toStr(r);
  throw mismatch('add', la, ra, l, r);
};

export const sub: Arith = (l, r, la, ra) => {
  if (typeof l === 'number' && typeof r === 'number') {
    const s = l - r;
    if (isInt(l) && isInt(r)) return wrapInt(() => BigInt(l) - BigInt(r), s);
    return float64(s);
  }
  if (boxedPair(l, r)) return numeric(l, r, bigSub, fSub);
  throw mismatch('subtract', la, ra, l, r);
};

export const mul: Arith = (l, r, la, ra) => {
  if (typeof l === 'number' && typeof r === 'number') {
    const s = l * r;
    if (isInt(l) && isInt(r)) return wrapInt(() => BigInt(l) * BigInt(r), s);
    return float64(s);
  }
  if (boxedPair(l, r)) return numeric(l, r, bigMul, fMul);
  throw mismatch('multiply', la, ra, l, r);
};

/** `/` divides as float64 whatever the operands. */
export const div: Arith = (l, r, la, ra) => {
  l = widen(l);
  r = widen(r);
  if (typeof l !== 'number' || typeof r !== 'number') throw mismatch('divide', la, ra, l, r);
  if (r === 0) throw errFrom(new Error('attempted to divide by zero'), ra);
  return float64(l / r);
};

/** `%` works on int64s: floats are truncated (Go's int64(f)). */
export const mod: Arith = (l, r, la, ra) => {
  if (typeof l === 'number' && typeof r === 'number') {
    const a = Math.trunc(l);
    const b = Math.trunc(r);
    if (Number.isSafeInteger(a) && Number.isSafeInteger(b)) {
      if (b === 0) throw errFrom(new Error('attempted to divide by zero'), ra);
      return (a % b) + 0; // an int64 has no -0
    }
  } else if (!isNumber(l) || !isNumber(r)) {
    throw mismatch('modulo', la, ra, widen(l), widen(r));
  }
  const b = truncInt(r);
  if (b === 0n) throw errFrom(new Error('attempted to divide by zero'), ra);
  return JsonNumber.ofInt(BigInt.asIntN(64, truncInt(l) % b));
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
    if (boxedPair(l, r)) {
      // int64 against int64 compares exactly (two ids 1 apart above 2^53 differ), else as float64
      const li = intOf(l);
      const ri = li === undefined ? undefined : intOf(r);
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
  if (v instanceof WholeFloat) return v.value !== 0;
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
