/**
 * The functions of the language (`content()`, `now()`, `uuid_v4()`, ...). Each is declared with
 * its parameters; `build` runs once per call site.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { formatTraceparent } from '../observability/propagation.js';
import { SPAN_KEY } from '../observability/tracer.js';
import { QueryError } from './errors.js';
import { ksuid, uuidV7 } from './ids.js';
import { toTimestamp } from './methods/time.js';
import { getDotPath } from './paths.js';
import { type Args, asBool, asInt, asString, defineFunction } from './registry.js';
import { type Fn, type State, jsonError } from './state.js';
import { Timestamp, formatTime, RFC3339_NANO } from './timestamp.js';
import { DELETE, NOTHING, type Obj, setKey } from './values.js';

/** A function without parameters. */
function simple(name: string, fn: Fn): void {
  defineFunction(name, { params: [], build: () => fn });
}

// ---------------------------------------------------------------- message

simple('content', (c) => c.current.content);

defineFunction('json', {
  params: [{ name: 'path', type: 'string', default: '' }],
  build(a) {
    const pathOf = (c: State, self: unknown): string => asString(a.get(0, c, self));
    return (c, self) => {
      const path = pathOf(c, self);
      let doc: unknown;
      try {
        doc = c.current.json();
      } catch (e) {
        throw new QueryError(jsonError(c.current, e)); // as Benthos' json(): the parse error alone
      }
      return getDotPath(doc, path);
    };
  },
});

/** `meta(key)`: input metadata as a string (null when absent or empty); no key: all of it. */
defineFunction('meta', {
  params: [{ name: 'key', type: 'string', default: '' }],
  build(a) {
    return (c, self) => {
      const key = asString(a.get(0, c, self));
      const m = c.current;
      if (key === '') {
        const out: Obj = {};
        for (const [k] of m.metaEntries()) setKey(out, k, m.getMetaString(k));
        return out;
      }
      const s = m.getMetaString(key);
      return s === '' ? null : s;
    };
  },
});

/** `metadata(key)`: input metadata with its type (null when absent); no key: all of it. */
defineFunction('metadata', {
  params: [{ name: 'key', type: 'string', default: '' }],
  build(a) {
    return (c, self) => {
      const key = asString(a.get(0, c, self));
      const m = c.current;
      if (key === '') {
        const out: Obj = {};
        for (const [k, v] of m.metaEntries()) setKey(out, k, v);
        return out;
      }
      const v = m.getMeta(key);
      return v === undefined ? null : v;
    };
  },
});

simple('error', (c) => c.current.error ?? null);
simple('errored', (c) => c.current.error !== undefined);
simple('batch_index', (c) => c.index);
simple('batch_size', (c) => c.batch.length);

// ---------------------------------------------------------------- general

simple('deleted', () => DELETE);
simple('nothing', () => NOTHING);

defineFunction('throw', {
  params: [{ name: 'why', type: 'string' }],
  build(a) {
    return (c, self) => {
      throw new QueryError(asString(a.get(0, c, self)));
    };
  },
});

const counters = new Map<string, number>();

/** `count(name)`: a process-wide counter per name, starting at 1. */
defineFunction('count', {
  params: [{ name: 'name', type: 'string' }],
  build(a) {
    return (c, self) => {
      const name = asString(a.get(0, c, self));
      const n = (counters.get(name) ?? 0) + 1;
      counters.set(name, n);
      return n;
    };
  },
});

/** `counter(min, max, set)`: a counter per call site that wraps from max back to min. */
/**
 * `counter(min, max, set)`, as Benthos' (internal/impl/pure/bloblang_general.go): min and max are
 * queries resolved on the first call (min >= 0, max > min, else that call fails); the counter
 * yields min..max and starts again; `set` null reads it, deleted() restarts it, a number sets it.
 */
defineFunction('counter', {
  params: [
    { name: 'min', default: 1 },
    { name: 'max', default: Number.MAX_SAFE_INTEGER },
    { name: 'set', optional: true, query: true },
  ],
  build(a) {
    let min = 0;
    let max = 0;
    let n: number | undefined;
    const set = a.given(2) ? a.lambda(2) : undefined;
    return (c, self) => {
      if (n === undefined) {
        min = asInt(a.get(0, c, self));
        if (min < 0) throw new QueryError(`min argument must be >0, got ${min}`);
        max = asInt(a.get(1, c, self));
        if (max < 0 || max <= min) throw new QueryError(`max argument must be >0 and >min, got ${max}`);
        n = min - 1;
      }
      if (set) {
        const v = set.call(c, self, self);
        if (v === null) return n;
        if (v === DELETE) n = min - 1;
        else if (v !== NOTHING) {
          try {
            n = asInt(v);
          } catch (e) {
            throw new QueryError(`failed to resolve set argument: ${(e as Error).message}`);
          }
          return n;
        }
      }
      const v = ++n;
      if (v >= max) n = min - 1;
      return v;
    };
  },
});

defineFunction('range', {
  params: [
    { name: 'start', type: 'number' },
    { name: 'stop', type: 'number' },
    { name: 'step', type: 'number', default: 1 },
  ],
  build(a) {
    const make = (start: number, stop: number, step: number): number[] => {
      if (step === 0) throw new QueryError('step must be greater than or less than 0');
      if (step < 0) {
        if (stop > start) throw new QueryError(`with negative step arg stop (${stop}) must be <= start (${start})`);
      } else if (start >= stop) {
        throw new QueryError(`with positive step arg start (${start}) must be < stop (${stop})`);
      }
      const n = Math.trunc((stop - start) / step);
      if (n > 10_000_000) throw new QueryError(`range of ${n} elements is too large`);
      const out = new Array<number>(n);
      for (let i = 0; i < n; i++) out[i] = start + step * i;
      return out;
    };
    // Go's IGetInt: floats truncate (range(1.5, 4) is [1, 2, 3]).
    const ints = (c: State, self: unknown): [number, number, number] => [asInt(a.get(0, c, self)), asInt(a.get(1, c, self)), asInt(a.get(2, c, self))];
    if (a.allConst) {
      const r = make(...ints(undefined as unknown as State, null));
      return () => r.slice();
    }
    return (c, self) => make(...ints(c, self));
  },
});

// ---------------------------------------------------------------- environment

simple('hostname', () => hostname());

defineFunction('env', {
  params: [
    { name: 'name', type: 'string' },
    { name: 'no_cache', type: 'bool', default: false },
  ],
  build(a) {
    const cache = new Map<string, string | null>();
    const noCache = asBool(a.const(1));
    return (c, self) => {
      const name = asString(a.get(0, c, self));
      if (!noCache && cache.has(name)) return cache.get(name)!;
      const v = process.env[name] ?? null;
      if (!noCache) cache.set(name, v);
      return v;
    };
  },
});

simple('now', () => formatTime(Timestamp.now(), RFC3339_NANO));
simple('timestamp_unix', () => Math.floor(Date.now() / 1000));
simple('timestamp_unix_milli', () => Date.now());
simple('timestamp_unix_micro', () => Number(Timestamp.now().unixNano() / 1000n));
simple('timestamp_unix_nano', () => Number(Timestamp.now().unixNano()));

simple('uuid_v4', () => randomUUID());

const NANOID_ALPHABET = '_-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

defineFunction('nanoid', {
  params: [
    { name: 'length', type: 'number', default: 21 },
    { name: 'alphabet', type: 'string', optional: true },
  ],
  build(a) {
    return (c, self) => {
      const len = asInt(a.get(0, c, self)); // truncated, as Go's IGetInt: nanoid(2.5) is 2 long
      const alphabet = a.given(1) ? asString(a.get(1, c, self)) : NANOID_ALPHABET;
      if (len < 0) throw new QueryError('negative id length');
      if (len === 0) return '';
      if (alphabet.length === 0 || alphabet.length > 255) throw new QueryError('alphabet must contain between 1 and 255 symbols');
      // Rejection sampling with a bit mask keeps every symbol equally likely.
      const mask = (2 << Math.floor(Math.log2(alphabet.length - 1 || 1))) - 1;
      let out = '';
      while (out.length < len) {
        const bytes = randomBytes(Math.ceil((1.6 * mask * len) / alphabet.length) + 1);
        for (let i = 0; i < bytes.length && out.length < len; i++) {
          const idx = bytes[i]! & mask;
          if (idx < alphabet.length) out += alphabet[idx];
        }
      }
      return out;
    };
  },
});

/** A seeded 64-bit generator (splitmix64): deterministic per seed, as Bloblang's random_int is. */
class SplitMix64 {
  private s: bigint;
  constructor(seed: bigint) {
    this.s = BigInt.asUintN(64, seed);
  }
  next(): bigint {
    this.s = BigInt.asUintN(64, this.s + 0x9e3779b97f4a7c15n);
    let z = this.s;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    return z ^ (z >> 31n);
  }
}

defineFunction('random_int', {
  params: [
    { name: 'seed', default: 0, query: true },
    { name: 'min', type: 'number', default: 0 },
    { name: 'max', type: 'number', default: 2 ** 63 - 2 },
  ],
  build(a: Args) {
    if (!a.isConst(1) || !a.isConst(2)) throw new Error('min and max must be literals');
    const min = asInt(a.const(1));
    const max = asInt(a.const(2));
    if (min < 0) throw new Error(`min (${min}) must be a positive number`);
    if (max < min) throw new Error(`min (${min}) must be smaller or equal than max (${max})`);
    const span = BigInt(max) - BigInt(min) + 1n;
    let rng: SplitMix64 | undefined;
    return (c, self) => {
      if (rng === undefined) {
        const seed = a.given(0) ? a.lambda(0).call(c, self, self) : 0;
        if (typeof seed !== 'number') {
          throw new QueryError(`failed to seed random number generator: expected number value, got ${typeof seed}`);
        }
        rng = new SplitMix64(BigInt(Math.trunc(seed)));
      }
      return Number((rng.next() >> 1n) % span) + min;
    };
  },
});

// ---------------------------------------------------------------- added for Benthos v4.51's full set

defineFunction('pi', { params: [], build: () => () => Math.PI });

/** `var(name)`: a variable by name (Benthos' hidden form of `$name`). */
defineFunction('var', {
  params: [{ name: 'name', type: 'string' }],
  build(a) {
    return (c, self) => {
      const name = asString(a.get(0, c, self));
      const vars = c.vars;
      if (vars === undefined || !Object.hasOwn(vars, name)) throw new QueryError(`variable '${name}' undefined`);
      return vars[name];
    };
  },
});

defineFunction('uuid_v7', {
  params: [{ name: 'time', optional: true }],
  build(a) {
    return (c, self) => uuidV7(a.given(0) ? Number(toTimestamp(a.get(0, c, self)).unixNano() / 1_000_000n) : Date.now());
  },
});

simple('ksuid', () => ksuid(Math.floor(Date.now() / 1000)));

/** The trace of the message's span; all zeros when it has none, as Benthos' no-op tracer. */
simple('tracing_id', (c) => c.current.ctx.get(SPAN_KEY)?.context().traceId ?? '00000000000000000000000000000000');
/** The message's span as the W3C headers that carry it (Benthos' TextMap); `{}` when it has none. */
simple('tracing_span', (c) => {
  const span = c.current.ctx.get(SPAN_KEY);
  return span === undefined ? {} : { traceparent: formatTraceparent(span.context()) };
});

// The component that flagged an error is not recorded with the message: these answer null, as
// Benthos does for a message without an error or with an error of no component.
simple('error_source_label', () => null);
simple('error_source_name', () => null);
simple('error_source_path', () => null);

/** `file(path)` and `file_rel(path)`: a file's bytes, relative to the working directory, read once when the path is constant. */
function fileFunction(name: string): void {
  defineFunction(name, {
    params: [
      { name: 'path', type: 'string' },
      { name: 'no_cache', type: 'bool', default: false },
    ],
    build(a) {
      const read = (path: unknown): Buffer => {
        try {
          return readFileSync(asString(path));
        } catch (e) {
          const err = e as NodeJS.ErrnoException;
          throw new QueryError(`open ${asString(path)}: ${err.code === 'ENOENT' ? 'no such file or directory' : err.message}`);
        }
      };
      if (a.isConst(0) && a.isConst(1) && a.const(1) !== true) {
        const bytes = read(a.const(0));
        return () => bytes;
      }
      return (c, self) => read(a.get(0, c, self));
    },
  });
}
fileFunction('file');
fileFunction('file_rel');
