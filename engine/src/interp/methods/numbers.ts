/** Number methods (`round`, `floor`, `abs`, ...) and the numeric reductions `sum`, `max`, `min`. */
import { QueryError, typeError } from '../errors.js';
import { asInt, pluginMethod, simpleMethod } from '../registry.js';
import { JsonNumber, WholeFloat, float64, isInt, widen } from '../values.js';

function num(v: unknown): number {
  v = widen(v);
  if (typeof v !== 'number') throw typeError(v, 'number');
  return v;
}

/** The int64 a number read from JSON holds, when it does (then these methods stay exact). */
function int64Of(v: unknown): bigint | undefined {
  return v instanceof JsonNumber ? v.int : undefined;
}

simpleMethod('abs', [], (v) => {
  const i = int64Of(v);
  // Benthos' abs of the smallest int64 is the largest (it has no positive counterpart)
  if (i !== undefined) return JsonNumber.ofInt(i < 0n ? (i === -(2n ** 63n) ? 2n ** 63n - 1n : -i) : i);
  const a = Math.abs(num(v));
  return typeof v === 'number' && isInt(v) ? a : float64(a); // a float64 stays one
});
// `+ 0`: Go's math.Ceil(-0.5) is -0, which Benthos turns into the int64 0
simpleMethod('ceil', [], (v) => {
  const i = int64Of(v);
  return i !== undefined ? JsonNumber.ofInt(i) : Math.ceil(num(v)) + 0;
});
simpleMethod('floor', [], (v) => {
  const i = int64Of(v);
  return i !== undefined ? JsonNumber.ofInt(i) : Math.floor(num(v)) + 0;
});
/** Go's math.Round: halves away from zero. */
simpleMethod('round', [{ name: 'precision', type: 'number', default: 0 }], (v, [p]) => {
  const i = int64Of(v);
  if (i !== undefined && asInt(p) === 0) return JsonNumber.ofInt(i);
  const n = num(v);
  const prec = asInt(p);
  const f = 10 ** prec;
  const r = (Math.sign(n) * Math.round(Math.abs(n) * f)) / f;
  return Object.is(r, -0) ? 0 : r;
});
simpleMethod('log', [], (v) => float64(Math.log(num(v))));
simpleMethod('log10', [], (v) => float64(Math.log10(num(v))));
simpleMethod('pow', [{ name: 'exponent', type: 'number' }], (v, [e]) => float64(num(v) ** num(e)));

function numbers(v: unknown): number[] {
  if (!Array.isArray(v)) throw typeError(v, 'array');
  return v.map((e, i) => {
    e = widen(e);
    if (typeof e !== 'number') throw new QueryError(`index ${i}: ${typeError(e, 'number').message}`);
    return e;
  });
}

/** `sum()`: Benthos adds the numbers as float64s (IGetNumber), whatever their types. */
simpleMethod('sum', [], (v) => {
  if (typeof v === 'number' || v instanceof JsonNumber || v instanceof WholeFloat) return v; // Benthos sums a lone number as itself
  let s = 0;
  for (const n of numbers(v)) s += n;
  return float64(s);
});

simpleMethod('max', [], (v) => {
  const ns = numbers(v);
  if (ns.length === 0) throw new QueryError('the array was empty');
  return float64(Math.max(...ns));
});

simpleMethod('min', [], (v) => {
  const ns = numbers(v);
  if (ns.length === 0) throw new QueryError('the array was empty');
  return float64(Math.min(...ns));
});

// Benthos' trigonometry plugins (Float64Method): any number, as float64.
pluginMethod('sin', [], () => (v) => float64(Math.sin(num(v))));
pluginMethod('cos', [], () => (v) => float64(Math.cos(num(v))));
pluginMethod('tan', [], () => (v) => float64(Math.tan(num(v))));
