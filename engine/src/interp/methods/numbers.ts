/** Number methods (`round`, `floor`, `abs`, ...) and the numeric reductions `sum`, `max`, `min`. */
import { QueryError, typeError } from '../errors.js';
import { asInt, pluginMethod, simpleMethod } from '../registry.js';
import { JsonNumber, isInt, widen } from '../values.js';

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
  return Math.abs(num(v));
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
simpleMethod('log', [], (v) => Math.log(num(v)));
simpleMethod('log10', [], (v) => Math.log10(num(v)));
simpleMethod('pow', [{ name: 'exponent', type: 'number' }], (v, [e]) => num(v) ** num(e));

function numbers(v: unknown): number[] {
  if (!Array.isArray(v)) throw typeError(v, 'array');
  return v.map((e, i) => {
    e = widen(e);
    if (typeof e !== 'number') throw new QueryError(`index ${i}: ${typeError(e, 'number').message}`);
    return e;
  });
}

/** `sum()`: integers add as int64 (wrapping), anything else as floats. */
simpleMethod('sum', [], (v) => {
  if (typeof v === 'number' || v instanceof JsonNumber) return v; // Benthos sums a lone number as itself
  const ns = numbers(v);
  if (ns.every(isInt)) {
    let s = 0;
    for (const n of ns) s += n;
    if (Number.isSafeInteger(s)) return s;
    return Number(
      BigInt.asIntN(
        64,
        ns.reduce((a, n) => a + BigInt(n), 0n),
      ),
    );
  }
  let s = 0;
  for (const n of ns) s += n;
  return s;
});

simpleMethod('max', [], (v) => {
  const ns = numbers(v);
  if (ns.length === 0) throw new QueryError('the array was empty');
  return Math.max(...ns);
});

simpleMethod('min', [], (v) => {
  const ns = numbers(v);
  if (ns.length === 0) throw new QueryError('the array was empty');
  return Math.min(...ns);
});

// Benthos' trigonometry plugins (Float64Method): any number, as float64.
pluginMethod('sin', [], () => (v) => Math.sin(num(v)));
pluginMethod('cos', [], () => (v) => Math.cos(num(v)));
pluginMethod('tan', [], () => (v) => Math.tan(num(v)));
