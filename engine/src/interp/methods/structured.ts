/**
 * Methods on arrays and objects. None of them mutates its target: the target may be the
 * message's own parsed document or a shared constant, so results are always new containers.
 */
import { QueryError, asQueryError, typeError } from '../errors.js';
import { cloneJson } from '../../message/json.js';
import { getDotPath, setPath, splitDotPath } from '../paths.js';
import { asInt, asString, defineMethod, pluginMethod, simpleMethod } from '../registry.js';
import { DELETE, NOTHING, type Obj, Timestamp, equals, isNumber, isObject, setKey, toStr, typeOf, widen } from '../values.js';

function elementError(i: number | string, err: unknown): QueryError {
  return new QueryError(`failed to process element ${i}: ${asQueryError(err).message}`);
}

/** `map_each(query)`: each element (or `{key, value}` of an object) mapped; deleted() drops it. */
defineMethod('map_each', {
  params: [{ name: 'query', query: true }],
  build(a) {
    const lam = a.lambda(0);
    return (v, c, self) => {
      if (Array.isArray(v)) {
        const out: unknown[] = [];
        for (let i = 0; i < v.length; i++) {
          let r: unknown;
          try {
            r = lam.call(c, v[i], self);
          } catch (err) {
            throw elementError(i, err);
          }
          if (r === DELETE) continue;
          out.push(r === NOTHING ? v[i] : r);
        }
        return out;
      }
      if (isObject(v)) {
        const out: Obj = {};
        for (const k of Object.keys(v)) {
          let r: unknown;
          try {
            r = lam.call(c, { key: k, value: v[k] }, self);
          } catch (err) {
            throw elementError(k, err);
          }
          if (r === DELETE) continue;
          setKey(out, k, r === NOTHING ? v[k] : r);
        }
        return out;
      }
      throw typeError(v, 'object', 'array');
    };
  },
});

/** `filter(test)`: keeps the elements (or `{key, value}` entries) for which test is true. */
defineMethod('filter', {
  params: [{ name: 'test', query: true }],
  build(a) {
    const lam = a.lambda(0);
    return (v, c, self) => {
      if (Array.isArray(v)) {
        const out: unknown[] = [];
        for (const e of v) if (lam.call(c, e, self) === true) out.push(e);
        return out;
      }
      if (isObject(v)) {
        const out: Obj = {};
        for (const k of Object.keys(v)) if (lam.call(c, { key: k, value: v[k] }, self) === true) setKey(out, k, v[k]);
        return out;
      }
      throw typeError(v, 'array', 'object');
    };
  },
});

/** `fold(initial, query)`: reduces an array with `{tally, value}` as context. */
defineMethod('fold', {
  params: [{ name: 'initial' }, { name: 'query', query: true }],
  build(a) {
    const lam = a.lambda(1);
    return (v, c, self) => {
      if (!Array.isArray(v)) throw typeError(v, 'array');
      let tally = a.get(0, c, self);
      for (let i = 0; i < v.length; i++) {
        try {
          tally = lam.call(c, { tally, value: v[i] }, self);
        } catch (err) {
          throw elementError(i, err);
        }
      }
      return tally;
    };
  },
});

function needObject(v: unknown): Obj {
  if (!isObject(v)) throw typeError(v, 'object');
  return v;
}

simpleMethod('keys', [], (v) => Object.keys(needObject(v)).sort());
simpleMethod('values', [], (v) => Object.values(needObject(v)));
simpleMethod('key_values', [], (v) => {
  const o = needObject(v);
  return Object.keys(o).map((k) => ({ key: k, value: o[k] }));
});

/** gabs' merge: objects merge deeply, colliding non-objects collect into arrays. */
function mergeInto(dst: Obj, src: Obj): void {
  for (const k of Object.keys(src)) {
    const s = src[k];
    if (!Object.hasOwn(dst, k)) {
      setKey(dst, k, s);
      continue;
    }
    const d = dst[k];
    if (isObject(d) && isObject(s)) {
      const copy: Obj = { ...d };
      mergeInto(copy, s);
      dst[k] = copy;
    } else if (Array.isArray(d)) {
      dst[k] = Array.isArray(s) ? [...d, ...s] : [...d, s];
    } else {
      dst[k] = Array.isArray(s) ? [d, ...s] : [d, s];
    }
  }
}

simpleMethod('merge', [{ name: 'with' }], (v, [w]) => {
  if (Array.isArray(v)) return Array.isArray(w) ? [...v, ...w] : [...v, w];
  if (!isObject(v)) throw typeError(v, 'object', 'array');
  // Benthos merges only an object into an object; anything else leaves the receiver as it is.
  if (!isObject(w)) return v;
  const out: Obj = { ...v };
  mergeInto(out, w);
  return out;
});

/** A copy of `o` without the key path `segs` (containers on the way are copied, not mutated). */
function without(o: unknown, segs: string[], i: number): unknown {
  if (!isObject(o) || !Object.hasOwn(o, segs[i]!)) return o;
  const copy: Obj = { ...o };
  if (i === segs.length - 1) delete copy[segs[i]!];
  else copy[segs[i]!] = without(o[segs[i]!], segs, i + 1);
  return copy;
}

defineMethod('without', {
  params: [],
  variadic: true,
  build(a) {
    return (v, c, self) => {
      needObject(v);
      let out: unknown = v;
      for (const p of a.all(c, self)) {
        const segs = splitDotPath(asString(p));
        if (segs.length) out = without(out, segs, 0);
      }
      return out === v ? { ...(v as Obj) } : out;
    };
  },
});

simpleMethod('index', [{ name: 'index', type: 'number' }], (v, [i]) => {
  let idx = asInt(i);
  if (Array.isArray(v) || v instanceof Uint8Array) {
    if (idx < 0) idx = v.length + idx;
    if (idx < 0 || idx >= v.length) throw new QueryError(`index '${asInt(i)}' was out of bounds for array size: ${v.length}`);
    return v[idx];
  }
  throw typeError(v, 'array');
});

function compareValues(l: unknown, r: unknown): number {
  if (isNumber(l) && isNumber(r)) return (widen(l) as number) - (widen(r) as number);
  if (typeof l === 'string' && typeof r === 'string') return l < r ? -1 : l > r ? 1 : 0;
  throw new QueryError(`expected number or string value, got ${typeOf(typeof l === 'number' || typeof l === 'string' ? r : l)}`);
}

/** `sort(compare?)`: numbers or strings ascending, or by a `{left, right}` lambda returning left < right. */
defineMethod('sort', {
  params: [{ name: 'compare', optional: true, query: true }],
  build(a) {
    const lam = a.given(0) ? a.lambda(0) : undefined;
    return (v, c, self) => {
      if (!Array.isArray(v)) throw typeError(v, 'array');
      const out = v.slice();
      if (lam === undefined) {
        // Go checks types while comparing, so a single element (even null) sorts fine.
        if (out.length > 1) {
          const kindOf = (e: unknown): string => (isNumber(e) ? 'number' : typeof e);
          const kind = kindOf(out[0]);
          for (const e of out) {
            if ((kindOf(e) !== 'number' && typeof e !== 'string') || kindOf(e) !== kind) {
              throw new QueryError(`expected number or string value, got ${typeOf(e)}`);
            }
          }
        }
        return out.sort(compareValues);
      }
      return out.sort((l, r) => {
        const lt = lam.call(c, { left: l, right: r }, self);
        if (typeof lt !== 'boolean') throw typeError(lt, 'bool');
        if (lt) return -1;
        const gt = lam.call(c, { left: r, right: l }, self);
        return gt === true ? 1 : 0;
      });
    };
  },
});

defineMethod('sort_by', {
  params: [{ name: 'query', query: true }],
  build(a) {
    const lam = a.lambda(0);
    return (v, c, self) => {
      if (!Array.isArray(v)) throw typeError(v, 'array');
      const keyed = v.map((e, i) => ({ e, k: lam.call(c, e, self), i }));
      keyed.sort((x, y) => compareValues(x.k, y.k) || x.i - y.i);
      return keyed.map((x) => x.e);
    };
  },
});

simpleMethod('join', [{ name: 'delimiter', type: 'string', default: '' }], (v, [d]) => {
  if (!Array.isArray(v)) throw typeError(v, 'array');
  const delim = asString(d);
  return v
    .map((e, i) => {
      if (typeof e === 'string' || e instanceof Uint8Array) return toStr(e);
      throw new QueryError(`failed to join element ${i}: expected string value, got ${typeOf(e)}`);
    })
    .join(delim);
});

defineMethod('append', {
  params: [],
  variadic: true,
  build(a) {
    return (v, c, self) => {
      if (!Array.isArray(v)) throw typeError(v, 'array');
      return [...v, ...a.all(c, self)];
    };
  },
});

simpleMethod('flatten', [], (v) => {
  if (!Array.isArray(v)) throw typeError(v, 'array');
  const out: unknown[] = [];
  for (const e of v) {
    if (Array.isArray(e)) out.push(...e);
    else out.push(e);
  }
  return out;
});

defineMethod('unique', {
  params: [{ name: 'emit', optional: true, query: true }],
  build(a) {
    const lam = a.given(0) ? a.lambda(0) : undefined;
    return (v, c, self) => {
      if (!Array.isArray(v)) throw typeError(v, 'array');
      // as Benthos: strings (and bytes) by text, numbers by float64 value, in two sets
      const strs = new Set<string>();
      const nums = new Set<number>();
      const out: unknown[] = [];
      for (let i = 0; i < v.length; i++) {
        const e = v[i];
        const k = lam ? lam.call(c, e, self) : e;
        let fresh: boolean;
        if (typeof k === 'string' || k instanceof Uint8Array || k instanceof Timestamp) {
          const s = toStr(k);
          fresh = !strs.has(s);
          strs.add(s);
        } else if (isNumber(k)) {
          const n = widen(k) as number;
          fresh = !nums.has(n);
          nums.add(n);
        } else throw new QueryError(`index ${i}: ${typeError(k, 'string', 'number').message}`);
        if (fresh) out.push(e);
      }
      return out;
    };
  },
});

function boolTest(name: string, all: boolean): void {
  defineMethod(name, {
    params: [{ name: 'test', query: true }],
    build(a) {
      const lam = a.lambda(0);
      return (v, c, self) => {
        if (!Array.isArray(v)) throw typeError(v, 'array');
        if (v.length === 0) return false;
        for (let i = 0; i < v.length; i++) {
          const r = lam.call(c, v[i], self);
          if (typeof r !== 'boolean') throw new QueryError(`element ${i}: ${typeError(r, 'bool').message}`);
          if (r !== all) return !all;
        }
        return all;
      };
    },
  });
}
boolTest('all', true);
boolTest('any', false);

simpleMethod('enumerated', [], (v) => {
  if (!Array.isArray(v)) throw typeError(v, 'array');
  return v.map((value, index) => ({ index, value }));
});

simpleMethod('find', [{ name: 'value' }], (v, [x]) => {
  if (!Array.isArray(v)) throw typeError(v, 'array');
  return v.findIndex((e) => equals(x, e));
});

simpleMethod('find_all', [{ name: 'value' }], (v, [x]) => {
  if (!Array.isArray(v)) throw typeError(v, 'array');
  const out: number[] = [];
  v.forEach((e, i) => equals(x, e) && out.push(i));
  return out;
});

/** `find_by(query)` / `find_all_by(query)`: the index (indexes) of the elements the query is true for. */
function findBy(name: string, all: boolean): void {
  defineMethod(name, {
    params: [{ name: 'query', query: true }],
    build(a) {
      const lam = a.lambda(0);
      return (v, c, self) => {
        if (!Array.isArray(v)) throw typeError(v, 'array');
        const out: number[] = [];
        for (let i = 0; i < v.length; i++) {
          let r: unknown;
          try {
            r = lam.call(c, v[i], self);
          } catch (err) {
            throw new QueryError(`query returned an error for index ${i}: ${asQueryError(err).message}`);
          }
          if (typeof r !== 'boolean') throw new QueryError(`query returned a non-boolean value for index ${i}: ${typeError(r, 'bool').message}`);
          if (!r) continue;
          if (!all) return i;
          out.push(i);
        }
        return all ? out : -1;
      };
    },
  });
}
findBy('find_by', false);
findBy('find_all_by', true);

/** Variadic arguments that must all be arrays (`concat`, `zip`). */
function arrayArgs(args: unknown[]): unknown[][] {
  return args.map((x) => {
    if (!Array.isArray(x)) throw typeError(x, 'array');
    return x;
  });
}

pluginMethod(
  'concat',
  [],
  (args) => {
    const rest = arrayArgs(args);
    return (v) => {
      if (!Array.isArray(v)) throw typeError(v, 'array');
      return v.concat(...rest);
    };
  },
  true,
);

const ZIP_SIZES = "can't zip different length array values";
pluginMethod(
  'zip',
  [],
  (args) => {
    const rest = arrayArgs(args);
    if (rest.some((r) => r.length !== rest[0]!.length)) throw new QueryError(ZIP_SIZES);
    return (v) => {
      if (!Array.isArray(v)) throw typeError(v, 'array');
      if (rest.length === 0) throw new QueryError('zip requires at least one argument');
      if (v.length !== rest[0]!.length) throw new QueryError(ZIP_SIZES);
      return v.map((e, i) => [e, ...rest.map((r) => r[i])]);
    };
  },
  true,
);

/** `squash()`: the objects of an array merged into one, as `merge` merges; other elements are skipped. */
pluginMethod('squash', [], () => (v) => {
  if (!Array.isArray(v)) throw typeError(v, 'array');
  const out: Obj = {};
  for (const e of v) if (isObject(e)) mergeInto(out, e);
  return out;
});

/** gabs' MergeFn with a collision that keeps the source: objects merge deeply, other values are replaced. */
function assignInto(dst: Obj, src: Obj): void {
  for (const k of Object.keys(src)) {
    const s = src[k];
    const d = Object.hasOwn(dst, k) ? dst[k] : undefined;
    if (isObject(d) && isObject(s)) {
      const copy: Obj = { ...d };
      assignInto(copy, s);
      dst[k] = copy;
    } else {
      setKey(dst, k, s);
    }
  }
}

simpleMethod('assign', [{ name: 'with' }], (v, [w]) => {
  if (Array.isArray(v)) return Array.isArray(w) ? [...v, ...w] : [...v, w];
  if (!isObject(v)) throw typeError(v, 'object', 'array');
  const out: Obj = { ...v };
  if (isObject(w)) assignInto(out, w);
  return out;
});

/** `map_each_key(query)`: each key replaced by the query's string result (nothing() keeps it). */
defineMethod('map_each_key', {
  params: [{ name: 'query', query: true }],
  build(a) {
    const lam = a.lambda(0);
    return (v, c, self) => {
      const o = needObject(v);
      const out: Obj = {};
      for (const k of Object.keys(o)) {
        const nk = lam.call(c, k, self);
        if (nk === NOTHING) setKey(out, k, o[k]);
        else if (typeof nk === 'string') setKey(out, nk, o[k]);
        else throw new QueryError(`unexpected result from key mapping: ${typeError(nk, 'string').message}`);
      }
      return out;
    };
  },
});

/** gabs' Flatten: every leaf keyed by its dot path (keys are not escaped), optionally empty containers too. */
function collapse(v: unknown, path: string, out: Obj, includeEmpty: boolean): void {
  const child = (k: string | number): string => (path === '' ? String(k) : `${path}.${k}`);
  if (Array.isArray(v)) {
    if (includeEmpty && v.length === 0) setKey(out, path, []);
    v.forEach((e, i) => collapseValue(e, child(i), out, includeEmpty));
  } else if (isObject(v)) {
    const keys = Object.keys(v);
    if (includeEmpty && keys.length === 0) setKey(out, path, {});
    for (const k of keys) collapseValue(v[k], child(k), out, includeEmpty);
  }
}

function collapseValue(v: unknown, path: string, out: Obj, includeEmpty: boolean): void {
  if (Array.isArray(v) || isObject(v)) collapse(v, path, out, includeEmpty);
  else setKey(out, path, v);
}

simpleMethod('collapse', [{ name: 'include_empty', type: 'bool', default: false }], (v, [inc]) => {
  if (!Array.isArray(v) && !isObject(v)) throw new QueryError('not an object or array');
  const out: Obj = {};
  collapse(v, '', out, inc === true);
  return out;
});

/** `explode(path)`: one copy of the document per element (or key) of the array (object) at path. */
simpleMethod('explode', [{ name: 'path', type: 'string' }], (v, [p]) => {
  const path = splitDotPath(asString(p));
  const root = needObject(v);
  const target = getDotPath(root, asString(p));
  const base = path.length ? without(root, path, 0) : {};
  const copyWith = (e: unknown): unknown => setPath(cloneJson(base), path, e);
  if (Array.isArray(target)) return target.map(copyWith);
  if (isObject(target)) {
    const out: Obj = {};
    for (const k of Object.keys(target)) setKey(out, k, copyWith(target[k]));
    return out;
  }
  throw new QueryError(`expected array or object value at path '${asString(p)}', found: ${typeOf(target)}`);
});

/** A copy of `o` keeping only the key paths listed (a path into a non-object keeps the value whole). */
function withPaths(o: Obj, paths: string[][]): Obj {
  const out: Obj = {};
  for (const k of Object.keys(o)) {
    let included = false;
    const nested: string[][] = [];
    for (const p of paths) {
      if (p[0] !== k) continue;
      included = true;
      if (p.length > 1) nested.push(p.slice(1));
    }
    if (!included) continue;
    const e = o[k];
    setKey(out, k, nested.length && isObject(e) ? withPaths(e, nested) : e);
  }
  return out;
}

pluginMethod(
  'with',
  [],
  (args) => {
    // gabs' DotPathToSlice: an empty path is one empty key
    const paths = args.map((p, i) => {
      if (typeof p !== 'string' && !(p instanceof Uint8Array)) throw new QueryError(`argument ${i}: ${typeError(p, 'string').message}`);
      return asString(p)
        .split('.')
        .map((seg) => seg.replaceAll('~1', '.').replaceAll('~0', '~'));
    });
    return (v) => {
      if (!isObject(v)) throw typeError(v, 'object');
      return withPaths(v, paths);
    };
  },
  true,
);

simpleMethod('not_empty', [], (v) => {
  if (typeof v === 'string') {
    if (v === '') throw new QueryError('string value is empty');
  } else if (Array.isArray(v)) {
    if (v.length === 0) throw new QueryError('array value is empty');
  } else if (isObject(v)) {
    if (Object.keys(v).length === 0) throw new QueryError('object value is empty');
  } else {
    throw typeError(v, 'string', 'array', 'object');
  }
  return v;
});
