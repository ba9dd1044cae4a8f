import { JsonNumber } from '@svc/engine';

/**
 * A value as Go's encoding/json writes a document of maps and float64s: every object's keys in
 * sorted order and `-0` kept, so a document a component builds from a Go map (grok's captures,
 * parse_log's fields, a JMESPath result) reads the same here.
 */
export function goValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(goValue);
  if (Object.is(v, -0)) return new JsonNumber('-0');
  if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    const value = goValue((v as Record<string, unknown>)[k]);
    // an own `__proto__` key must be defined, not assigned; other keys are assigned, which keeps the object fast
    if (k === '__proto__') Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
    else out[k] = value;
  }
  return out;
}
