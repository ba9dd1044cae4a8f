/** Number methods (`round`, `floor`, `abs`, ...) and the numeric reductions `sum`, `max`, `min`. */
import { QueryError, typeError } from '../errors.js';
import { asInt, simpleMethod } from '../registry.js';
import { isInt, widen } from '../values.js';

function num(v: unknown): number {
  if (typeof v !== 'number') throw typeError(v, 'number');
  return v;
}

simpleMethod('abs', [], (v) => Math.abs(num(v)));
simpleMethod('ceil', [], (v) => Math.ceil(num(v)));
simpleMethod('floor', [], (v) => Math.floor(num(v)));
/** Go's math.Round: halves away from zero. */
simpleMethod('round', [{ name: 'precision', default: 0 }], (v, [p]) => {
  const n = num(v);
  const prec = asInt(p);
  const f = 10 ** prec;
  const r = (Math.sign(n) * Math.round(Math.abs(n) * f)) / f;
  return Object.is(r, -0) ? 0 : r;
});
simpleMethod('log', [], (v) => Math.log(num(v)));
simpleMethod('log10', [], (v) => Math.log10(num(v)));
simpleMethod('pow', [{ name: 'exponent' }], (v, [e]) => num(v) ** num(e));

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
  if (typeof v === 'number') return v; // Benthos sums a lone number as itself
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
