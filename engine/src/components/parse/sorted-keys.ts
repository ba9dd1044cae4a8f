/**
 * A value with every object's keys in sorted order: what Go's encoding/json writes for a map, so a
 * document a component builds from a Go map (grok's captures, parse_log's fields) reads the same.
 */
export function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    Object.defineProperty(out, k, { value: sortedKeys((v as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
