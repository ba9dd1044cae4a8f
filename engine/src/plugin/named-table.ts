/**
 * Objects by name shared by every stream of the process (Benthos' manager keeps its `inproc`
 * pipes so), so that a plugin keeps no map of its own: one table per key, on `globalThis` like the
 * registry, so that a plugin that resolved its own copy of `@svc/engine` still finds the engine's.
 * Per thread: a worker has its own (what every thread must see belongs to a `mainThread` component).
 */
import type { NamedTable } from './types.js';

const KEY = Symbol.for('svc.named-tables');
type WithTables = typeof globalThis & { [KEY]?: Map<string, Map<string, unknown>> };

/** The process-wide table under `key` (a dotted name of the owner, e.g. `io.inproc.channels`). */
export function namedTable<T>(key: string): NamedTable<T> {
  const g = globalThis as WithTables;
  const all = (g[KEY] ??= new Map());
  let m = all.get(key) as Map<string, T> | undefined;
  if (!m) all.set(key, (m = new Map<string, T>()));
  const table = m;
  return {
    get: (name) => table.get(name),
    obtain(name, make) {
      let v = table.get(name);
      if (v === undefined) table.set(name, (v = make()));
      return v;
    },
    put(name, value) {
      table.set(name, value);
      return () => {
        if (table.get(name) === value) table.delete(name);
      };
    },
  };
}
