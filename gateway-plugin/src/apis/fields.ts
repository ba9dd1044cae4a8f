import { DefinitionError } from './definition-error.js';

/** A JSON object as parsed: string keys to anything. */
export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A child's dotted path: `proxy.listen_path`, `versions.Default`, `rate_limit[2]`. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

/**
 * Typed reads of one object of a definition, each naming the field's path when the type is
 * wrong. `null` counts as absent, as Go's encoding/json (Tyk) reads it.
 */
export class Fields {
  constructor(
    readonly value: JsonObject,
    readonly path: string,
    readonly file: string | undefined,
  ) {}

  /** The root of a definition: it must be an object. */
  static root(value: unknown, file: string | undefined): Fields {
    if (!isObject(value)) throw new DefinitionError(file, '', `expected a JSON object (an API definition), got ${kindOf(value)}`);
    return new Fields(value, '', file);
  }

  fail(key: string | number, problem: string): never {
    throw new DefinitionError(this.file, childPath(this.path, key), problem);
  }

  has(key: string): boolean {
    return this.raw(key) !== undefined;
  }

  raw(key: string): unknown {
    const v = Object.hasOwn(this.value, key) ? this.value[key] : undefined;
    return v === null ? undefined : v;
  }

  str(key: string, fallback = ''): string {
    const v = this.raw(key);
    if (v === undefined) return fallback;
    if (typeof v !== 'string') this.fail(key, `expected a string, got ${kindOf(v)}`);
    return v;
  }

  /** A string that must be there and not be empty. */
  required(key: string): string {
    const v = this.str(key);
    if (v === '') this.fail(key, 'required (a non-empty string)');
    return v;
  }

  bool(key: string, fallback = false): boolean {
    const v = this.raw(key);
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') this.fail(key, `expected true or false, got ${kindOf(v)}`);
    return v;
  }

  /** A finite number >= 0 (rates, windows, skews). */
  count(key: string, fallback = 0): number {
    const v = this.raw(key);
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail(key, `expected a number, got ${kindOf(v)}`);
    if (v < 0) this.fail(key, `expected a number >= 0, got ${v}`);
    return v;
  }

  obj(key: string): Fields | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (!isObject(v)) this.fail(key, `expected an object, got ${kindOf(v)}`);
    return new Fields(v, childPath(this.path, key), this.file);
  }

  /** An object's entries as Fields each (a map such as `versions`). */
  objects(key: string): [string, Fields][] {
    const map = this.obj(key);
    if (!map) return [];
    return Object.keys(map.value)
      .filter((k) => map.raw(k) !== undefined)
      .map((k) => [k, map.obj(k)!]);
  }

  /** An array of objects, each as Fields. */
  list(key: string): Fields[] {
    const v = this.raw(key);
    if (v === undefined) return [];
    if (!Array.isArray(v)) this.fail(key, `expected an array, got ${kindOf(v)}`);
    const path = childPath(this.path, key);
    return v.map((item, i) => {
      if (!isObject(item)) throw new DefinitionError(this.file, childPath(path, i), `expected an object, got ${kindOf(item)}`);
      return new Fields(item, childPath(path, i), this.file);
    });
  }

  strings(key: string): string[] {
    const v = this.raw(key);
    if (v === undefined) return [];
    if (!Array.isArray(v)) this.fail(key, `expected an array of strings, got ${kindOf(v)}`);
    const path = childPath(this.path, key);
    return v.map((item, i) => {
      if (typeof item !== 'string') throw new DefinitionError(this.file, childPath(path, i), `expected a string, got ${kindOf(item)}`);
      return item;
    });
  }

  /** An object of string values (`jwt_scope_to_policy_mapping`). */
  stringMap(key: string): Record<string, string> {
    const map = this.obj(key);
    if (!map) return {};
    return Object.fromEntries(Object.keys(map.value).map((k) => [k, map.str(k)]));
  }
}

/** How a value is named in an error: `a number`, `an array`, `null`. */
export function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  switch (typeof v) {
    case 'object':
      return 'an object';
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    default:
      return typeof v;
  }
}
