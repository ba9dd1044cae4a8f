/**
 * Reads a JSON document against an Avro schema: checks every value and builds what the
 * encoders need, naming the field that does not fit (`addr.zip: expected int, got "x"`).
 *
 * Unions are accepted both as Avro's JSON encoding writes them (`{"string": "x"}`, the full name
 * for a named type) and as the bare value (`"x"`, the first branch that fits), as Benthos' binary
 * encoders do: documents built by a mapping rarely carry union tags. `bytes` and `fixed` are
 * strings of code points 0-255 (ISO-8859-1), as in Avro's JSON encoding.
 *
 * The schema is compiled once into a tree of small readers; reading a document allocates only
 * the output. A reader answers `INVALID` instead of throwing, so trying the branches of a union
 * costs no exception; the reason and the path are kept until the document's read is over.
 */
import { JsonNumber } from '@svc/engine';
import type avsc from 'avsc';

type Type = avsc.Type;

/** What a reader answers for a value that does not fit. */
const INVALID: unique symbol = Symbol('invalid');
type Read = (value: unknown) => unknown;

/** How `bytes` and `fixed` values come out: Buffers for avsc's binary writer, strings for JSON. */
export type BytesForm = 'buffer' | 'string';

/** A document that does not fit the schema: `path` is where (`addr.zip`, `tags[2]`). */
export class DocumentError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(path === '' ? reason : `field ${path}: ${reason}`);
    this.name = 'DocumentError';
  }
}

/** Why the last read failed, and where (segments innermost first, as the failure unwinds). */
interface Failure {
  reason: string;
  segments: string[];
}

export class DocumentReader {
  private readonly failure: Failure = { reason: '', segments: [] };
  private readonly root: Read;

  constructor(type: Type, bytes: BytesForm) {
    this.root = new Compiler(this.failure, bytes).reader(type);
  }

  /** The value to encode for `doc`; throws a DocumentError when it does not fit. */
  read(doc: unknown): unknown {
    const v = this.root(doc);
    if (v !== INVALID) return v;
    const { reason, segments } = this.failure;
    throw new DocumentError(formatPath(segments), reason);
  }
}

function formatPath(innermostFirst: string[]): string {
  let out = '';
  for (let i = innermostFirst.length - 1; i >= 0; i--) {
    const s = innermostFirst[i]!;
    out += s.startsWith('[') || out === '' ? s : `.${s}`;
  }
  return out;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A short description of a JSON value for an error message. */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'an array';
  if (v !== null && typeof v === 'object') return 'an object';
  const s = JSON.stringify(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Sets a key as an own property: a map key `__proto__` is data, not the object's prototype. */
function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** The code point range of Avro's JSON encoding of bytes. */
// eslint-disable-next-line no-control-regex -- Latin-1 starts at U+0000
const NOT_LATIN1 = /[^\u0000-\u00ff]/;

interface RecordField {
  name: string;
  read: Read;
  /** The value used when the document lacks the field (undefined: it is required). */
  fallback: unknown;
  hasDefault: boolean;
}

/** Builds the readers of a schema; named types are compiled once, so recursive schemas work. */
class Compiler {
  private readonly named = new Map<Type, Read>();

  constructor(
    private readonly failure: Failure,
    private readonly bytes: BytesForm,
  ) {}

  private fail(reason: string): typeof INVALID {
    this.failure.reason = reason;
    this.failure.segments.length = 0;
    return INVALID;
  }

  private expected(what: string, got: unknown): typeof INVALID {
    return this.fail(`expected ${what}, got ${describeValue(got)}`);
  }

  reader(type: Type): Read {
    const known = this.named.get(type);
    if (known) return known;
    switch (type.typeName) {
      case 'null':
        return (v) => (v === null ? null : this.expected('null', v));
      case 'boolean':
        return (v) => (typeof v === 'boolean' ? v : this.expected('boolean', v));
      case 'int':
        return (v) => {
          const n = v instanceof JsonNumber && v.int !== undefined ? Number(v.int) : v;
          return typeof n === 'number' && Number.isInteger(n) && n >= -2147483648 && n <= 2147483647 ? n : this.expected('int (32-bit integer)', v);
        };
      case 'long':
      case 'abstract:long': // exact-long.ts: int64 exactly, a JsonNumber beyond ±2^53
        return (v) => {
          if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
          if (v instanceof JsonNumber && v.int !== undefined) return JsonNumber.ofInt(v.int);
          if (typeof v === 'number' && Number.isInteger(v)) return this.fail(`long ${v} is beyond ±2^53: a computed double cannot be held exactly`);
          return this.expected('long (integer)', v);
        };
      case 'float':
      case 'double':
        return (v) => (typeof v === 'number' ? v : v instanceof JsonNumber ? v.value : this.expected(type.typeName, v));
      case 'string':
        return (v) => (typeof v === 'string' ? v : this.expected('string', v));
      case 'bytes':
        return this.bytesReader('bytes', -1);
      case 'fixed':
        return this.compileNamed(type, () =>
          this.bytesReader(`fixed ${type.name} (${(type as avsc.types.FixedType).size} bytes)`, (type as avsc.types.FixedType).size),
        );
      case 'enum':
        return this.compileNamed(type, () => {
          const symbols = new Set((type as avsc.types.EnumType).symbols);
          const what = `one of the symbols of enum ${type.name} (${[...symbols].join(', ')})`;
          return (v) => (typeof v === 'string' && symbols.has(v) ? v : this.expected(what, v));
        });
      case 'array':
        return this.arrayReader(type as avsc.types.ArrayType);
      case 'map':
        return this.mapReader(type as avsc.types.MapType);
      case 'record':
      case 'error':
        return this.compileNamed(type, () => this.recordReader(type as avsc.types.RecordType));
      case 'union:wrapped':
      case 'union:unwrapped':
        return this.unionReader((type as avsc.types.WrappedUnionType).types);
      default:
        // Logical types are not registered with avsc, so they are their underlying type.
        throw new Error(`unsupported Avro type ${type.typeName}`);
    }
  }

  /**
   * Compiles a named type once. References met while compiling it (a record that contains
   * itself) go through an indirection that is filled in when it is done.
   */
  private compileNamed(type: Type, make: () => Read): Read {
    // eslint-disable-next-line prefer-const -- assigned after the closure that reads it is made
    let impl: Read | undefined;
    this.named.set(type, (v) => impl!(v));
    impl = make();
    return impl;
  }

  private bytesReader(what: string, size: number): Read {
    const asBuffer = this.bytes === 'buffer';
    return (v) => {
      if (typeof v !== 'string') return this.expected(`${what} as a string of code points 0-255`, v);
      if (NOT_LATIN1.test(v)) return this.fail(`${what}: the string has code points above 255 (bytes are written one per code point, ISO-8859-1)`);
      if (size >= 0 && v.length !== size) return this.fail(`expected ${what}, got ${v.length} bytes`);
      return asBuffer ? Buffer.from(v, 'latin1') : v;
    };
  }

  private arrayReader(type: avsc.types.ArrayType): Read {
    const item = this.reader(type.itemsType);
    return (v) => {
      if (!Array.isArray(v)) return this.expected('an array', v);
      const out = new Array<unknown>(v.length);
      for (let i = 0; i < v.length; i++) {
        const r = item(v[i]);
        if (r === INVALID) return this.at(`[${i}]`);
        out[i] = r;
      }
      return out;
    };
  }

  private mapReader(type: avsc.types.MapType): Read {
    const value = this.reader(type.valuesType as Type);
    return (v) => {
      if (!isObject(v)) return this.expected('a map (an object)', v);
      const out: Record<string, unknown> = {};
      for (const k in v) {
        const r = value(v[k]);
        if (r === INVALID) return this.at(IDENTIFIER.test(k) ? k : `[${JSON.stringify(k)}]`);
        setOwn(out, k, r);
      }
      return out;
    };
  }

  private recordReader(type: avsc.types.RecordType): Read {
    const fields: RecordField[] = type.fields.map((f) => {
      const def: unknown = f.defaultValue();
      // avsc gives defaults in its own form (Buffers for bytes); JSON output wants Avro's JSON form.
      const fallback = def === undefined || this.bytes === 'buffer' ? def : JSON.parse(f.type.toString(def));
      return { name: f.name, read: this.reader(f.type), fallback, hasDefault: def !== undefined };
    });
    const what = `record ${type.name} (an object)`;
    return (v) => {
      if (!isObject(v)) return this.expected(what, v);
      const out: Record<string, unknown> = {};
      for (let i = 0; i < fields.length; i++) {
        const f = fields[i]!;
        const given = v[f.name];
        if (given === undefined) {
          if (!f.hasDefault) return this.fail(`missing required field ${f.name} of record ${type.name}`);
          setOwn(out, f.name, f.fallback);
          continue;
        }
        const r = f.read(given);
        if (r === INVALID) return this.at(f.name);
        setOwn(out, f.name, r);
      }
      return out;
    };
  }

  /**
   * A union value comes out as `{branch: value}` (null as null): the form avsc's wrapped unions
   * write and Avro's JSON encoding prints.
   */
  private unionReader(types: Type[]): Read {
    const branches = types.map((t) => ({ name: t.branchName!, short: t.name?.split('.').pop(), read: this.reader(t) }));
    const byName = new Map<string, (typeof branches)[number]>();
    for (const b of branches) {
      byName.set(b.name, b);
      if (b.short !== undefined && !byName.has(b.short)) byName.set(b.short, b);
    }
    const nullable = branches.some((b) => b.name === 'null');
    const others = branches.filter((b) => b.name !== 'null');
    const what = `one of ${branches.map((b) => b.name).join(', ')}`;
    return (v) => {
      if (v === null) return nullable ? null : this.expected(what, v);
      // Avro's JSON encoding: {"<branch name>": value}.
      if (isObject(v)) {
        let key: string | undefined;
        for (const k in v) {
          if (key !== undefined) {
            key = undefined;
            break;
          }
          key = k;
        }
        const tagged = key === undefined ? undefined : byName.get(key);
        if (tagged !== undefined) {
          const r = tagged.read(v[key!]);
          if (r !== INVALID) return r === null ? null : { [tagged.name]: r };
          // Maybe a bare map or record that happens to have one key named like a branch.
          for (const b of others) {
            if (b === tagged) continue;
            const bare = b.read(v);
            if (bare !== INVALID) return { [b.name]: bare };
          }
          return this.tagged(tagged.read, v[key!], key!);
        }
      }
      for (const b of others) {
        const r = b.read(v);
        if (r !== INVALID) return { [b.name]: r };
      }
      return this.expected(`${what} (the bare value, or {"<branch>": value})`, v);
    };
  }

  /** Reads a tagged union value again to report its own failure, under the tag. */
  private tagged(read: Read, value: unknown, key: string): typeof INVALID {
    read(value);
    return this.at(IDENTIFIER.test(key) ? key : `[${JSON.stringify(key)}]`);
  }

  /** Adds a segment to the path of the failure being unwound. */
  private at(segment: string): typeof INVALID {
    this.failure.segments.push(segment);
    return INVALID;
  }
}
