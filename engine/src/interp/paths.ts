/**
 * Reading and writing field paths with Bloblang's rules: a missing field reads as null, a write
 * creates objects on the way (replacing nulls) but refuses to go through a string or number,
 * and only own keys are ever read, so `this.constructor` is null rather than `Object`.
 */
import { QueryError } from './errors.js';
import { DELETE, NOTHING, type Obj, isObject, setKey, typeOf } from './values.js';

const INDEX_RE = /^(?:0|[1-9][0-9]*)$/;

function toIndex(seg: string): number {
  return INDEX_RE.test(seg) ? Number(seg) : -1;
}

/** Keys that a plain property read would resolve on Object.prototype. */
function inherited(seg: string): boolean {
  return seg in Object.prototype;
}

type Step = (v: unknown) => unknown;

function step(seg: string): Step {
  const idx = toIndex(seg);
  const guarded = inherited(seg);
  return (v) => {
    if (typeof v !== 'object' || v === null) return undefined;
    if (Array.isArray(v)) return idx >= 0 ? v[idx] : undefined;
    // bytes, timestamps and numbers (a JsonNumber, a Float32) have no fields
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) return undefined;
    if (guarded) return Object.hasOwn(v, seg) ? (v as Obj)[seg] : undefined;
    return (v as Obj)[seg];
  };
}

/** A reader for a fixed path: missing fields (anywhere along it) give null. */
export function getter(path: readonly string[]): (v: unknown) => unknown {
  const steps = path.map(step);
  switch (steps.length) {
    case 0:
      return (v) => v;
    case 1: {
      const s0 = steps[0]!;
      return (v) => {
        const r = s0(v);
        return r === undefined ? null : r;
      };
    }
    case 2: {
      const s0 = steps[0]!;
      const s1 = steps[1]!;
      return (v) => {
        const r = s1(s0(v));
        return r === undefined ? null : r;
      };
    }
    default:
      return (v) => {
        let r = v;
        for (let i = 0; i < steps.length && r !== undefined; i++) r = steps[i]!(r);
        return r === undefined ? null : r;
      };
  }
}

/** Reads a dynamic dot path (`get("a.b")`, `json("a.b")`); `~1` is a dot and `~0` a tilde inside keys. */
export function getDotPath(v: unknown, path: string): unknown {
  if (path === '') return v;
  let r: unknown = v;
  for (const seg of splitDotPath(path)) {
    r = step(seg)(r);
    if (r === undefined) return null;
  }
  return r === undefined ? null : r;
}

/** True when the dot path exists (a null value exists). */
export function existsDotPath(v: unknown, path: string): boolean {
  let r: unknown = v;
  for (const seg of splitDotPath(path)) {
    r = step(seg)(r);
    if (r === undefined) return false;
  }
  return true;
}

export function splitDotPath(path: string): string[] {
  if (path === '') return [];
  return path.split('.').map((s) => (s.includes('~') ? s.replaceAll('~1', '.').replaceAll('~0', '~') : s));
}

export function joinPath(path: readonly string[]): string {
  return path.map((s) => s.replaceAll('~', '~0').replaceAll('.', '~1')).join('.');
}

/**
 * Writes `value` at `path` below `root` and returns the new root (gabs' Set, as Bloblang uses it).
 * DELETE removes the target instead.
 */
export function setPath(root: unknown, path: readonly string[], value: unknown): unknown {
  if (path.length === 0) return value;
  if (root === NOTHING || root === null || root === undefined) root = {};
  if (value === DELETE) {
    deleteAt(root, path);
    return root;
  }
  let cur: unknown = root;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    const last = i === path.length - 1;
    if (Array.isArray(cur)) {
      if (seg === '-') {
        if (last) {
          cur.push(value);
          return root;
        }
        const next = {};
        cur.push(next);
        cur = next;
        continue;
      }
      const idx = toIndex(seg);
      if (idx < 0) {
        throw new QueryError(`unable to set target path ${joinPath(path)}: found array but segment value '${seg}' could not be parsed into an array index`);
      }
      if (idx >= cur.length) {
        throw new QueryError(`unable to set target path ${joinPath(path)}: found array but index '${seg}' exceeded target array size of '${cur.length}'`);
      }
      if (last) {
        cur[idx] = value;
        return root;
      }
      const next: unknown = cur[idx];
      if (next === null || next === undefined) {
        throw new QueryError(`unable to set target path ${joinPath(path)}: field '${seg}' was not found`);
      }
      cur = next;
      continue;
    }
    if (!isObject(cur)) {
      const at = i === 0 ? 'the root' : joinPath(path.slice(0, i));
      throw new QueryError(`unable to set target path ${joinPath(path)} as the value of ${at} was a non-object type (${typeOf(cur)})`);
    }
    if (last) {
      setKey(cur, seg, value);
      return root;
    }
    let next: unknown = Object.hasOwn(cur, seg) ? cur[seg] : undefined;
    if (next === null || next === undefined) {
      next = {};
      setKey(cur, seg, next);
    }
    cur = next;
  }
  return root;
}

function deleteAt(root: unknown, path: readonly string[]): void {
  let cur: unknown = root;
  for (let i = 0; i < path.length - 1; i++) {
    cur = step(path[i]!)(cur);
    if (cur === undefined) return;
  }
  const last = path[path.length - 1]!;
  if (Array.isArray(cur)) {
    const idx = toIndex(last);
    if (idx >= 0 && idx < cur.length) cur.splice(idx, 1);
  } else if (isObject(cur) && Object.hasOwn(cur, last)) {
    delete cur[last];
  }
}
