/**
 * avsc reads a map into a plain object with `val[key] = value`, so a key `__proto__` sets the
 * object's prototype instead of adding a key, and that entry is lost on the way to JSON. Map
 * types of our schemas are made, through avsc's `typeHook`, as a subclass whose reader defines
 * every key as an own property.
 *
 * The reader is avsc's own loop over its Tap (`readLong`, `skipLong`, `readString`, the
 * values type's `_read`): avsc internals, which is why avsc is pinned (5.7.9) in package.json.
 */
import type Avsc from 'avsc';
import { avsc } from './avsc.js';

interface Tap {
  readLong(): number;
  skipLong(): void;
  readString(): string;
}

interface Readable {
  _read(tap: Tap): unknown;
}

/** The map type, defined once avsc is loaded (it extends avsc's). */
let keySafeMapType: (new (schema: Avsc.Schema, opts: unknown) => Avsc.Type) | undefined;

function defineKeySafeMapType(): new (schema: Avsc.Schema, opts: unknown) => Avsc.Type {
  return class KeySafeMapType extends avsc().types.MapType {
    _read(tap: Tap): unknown {
      const values = this.valuesType as Readable;
      const out: Record<string, unknown> = {};
      for (;;) {
        // A block: its item count (negative when its size in bytes follows), then the items.
        let n = tap.readLong();
        if (n === 0) return out;
        if (n < 0) {
          n = -n;
          tap.skipLong();
        }
        while (n-- > 0) {
          const key = tap.readString();
          const value = values._read(tap);
          if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
          else out[key] = value;
        }
      }
    }
  };
}

/** A `typeHook` for `Type.forSchema`: maps become KeySafeMapType, everything else is avsc's. */
export function keySafeMaps(schema: Avsc.Schema, opts: unknown): Avsc.Type | undefined {
  const s = schema as { type?: unknown };
  if (s === null || typeof s !== 'object' || s.type !== 'map') return undefined;
  return new (keySafeMapType ??= defineKeySafeMapType())(schema, opts);
}
