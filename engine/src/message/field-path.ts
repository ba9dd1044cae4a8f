/**
 * Benthos-style field paths over plain JSON-like values.
 *
 * A path is dot-separated (`a.b.0.c`); inside a key `~` is written `~0` and `.` is written `~1`,
 * so any key is reachable. The empty path `''` is the root. On get, `*` fans out over an array's
 * elements (or an object's values); on set, `-` appends to an array.
 *
 * Prototype pollution: objects are only ever read through their own keys and the keys
 * `__proto__`, `constructor` and `prototype` are written with `Object.defineProperty`, so they
 * are plain own keys and a path can never reach or replace a prototype.
 */
import { ErrorCode, SvcError } from '../errors.js';

/** Keys that plain assignment could turn into a prototype write (or that lead to one). */
const GUARDED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Canonical non-negative integers only: `0`, `12`, but not `01`, `-1`, `+1` or `1e3`. */
const INDEX_RE = /^(?:0|[1-9][0-9]*)$/;

type Obj = Record<string, unknown>;

/** Splits a path into unescaped keys; `''` is the root and has no segments. */
export function parsePath(path: string): string[] {
  if (path === '') return [];
  // `~1` first, then `~0`: so `~01` becomes `~1` (a literal key) and not `.`.
  return path.split('.').map((s) => (s.includes('~') ? s.replaceAll('~1', '.').replaceAll('~0', '~') : s));
}

/**
 * Joins keys back into a path, escaping `~` before `.` so the result parses back to `segments`.
 * `['']` (one empty key) has no spelling — it would read as the root `''` — so it throws rather
 * than let a write silently replace the whole value.
 */
export function formatPath(segments: string[]): string {
  if (segments.length === 1 && segments[0] === '') {
    throw new SvcError(ErrorCode.Processing, 'field path: a path of a single empty key cannot be written as a string (it would mean the root)');
  }
  return join(segments);
}

/** Reads the value at `path`; undefined when any segment is missing. `*` returns an array. */
export function getPath(root: unknown, path: string | string[]): unknown {
  return getAt(root, toSegments(path), 0);
}

/**
 * Writes `value` at `path`, mutating containers in place, and returns the (possibly new) root.
 * Missing or non-container values on the way are replaced by objects, as Benthos does.
 */
export function setPath(root: unknown, path: string | string[], value: unknown): unknown {
  return setAt(root, toSegments(path), value);
}

/**
 * Removes the key or array element at `path` (arrays are spliced, so later elements shift) and
 * returns the root; a missing path is a no-op. Deleting the root (`''`) returns undefined.
 */
export function deletePath(root: unknown, path: string | string[]): unknown {
  const segs = toSegments(path);
  if (segs.length === 0) return undefined;
  rejectWildcard(segs, 'delete');
  let cur: unknown = root;
  for (let i = 0; i < segs.length - 1; i++) {
    cur = child(cur, segs[i]!);
    if (cur === undefined) return root;
  }
  const last = segs[segs.length - 1]!;
  if (Array.isArray(cur)) {
    const idx = toIndex(last);
    if (idx !== undefined && idx < cur.length) cur.splice(idx, 1);
  } else if (isObject(cur) && Object.hasOwn(cur, last)) {
    delete cur[last];
  }
  return root;
}

function toSegments(path: string | string[]): string[] {
  return typeof path === 'string' ? parsePath(path) : path;
}

/** Like formatPath but total: used in error messages, where throwing would hide the real error. */
function join(segments: string[]): string {
  return segments.map((s) => s.replaceAll('~', '~0').replaceAll('.', '~1')).join('.');
}

function describe(segs: string[], upTo: number): string {
  return JSON.stringify(join(segs.slice(0, upTo + 1)));
}

/** Plain objects only: class instances, Buffers and Dates are values, not containers. */
function isObject(v: unknown): v is Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function toIndex(seg: string): number | undefined {
  if (!INDEX_RE.test(seg)) return undefined;
  const n = Number(seg);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** One step without wildcards; own keys only, so `constructor` never yields `Object`. */
function child(cur: unknown, seg: string): unknown {
  if (Array.isArray(cur)) {
    const idx = toIndex(seg);
    return idx === undefined ? undefined : cur[idx];
  }
  if (isObject(cur)) return Object.hasOwn(cur, seg) ? cur[seg] : undefined;
  return undefined;
}

function getAt(cur: unknown, segs: string[], i: number): unknown {
  for (; i < segs.length; i++) {
    const seg = segs[i]!;
    if (seg === '*' && (Array.isArray(cur) || isObject(cur))) {
      const items = Array.isArray(cur) ? cur : Object.values(cur);
      const out: unknown[] = [];
      for (const item of items) {
        const v = getAt(item, segs, i + 1);
        if (v !== undefined) out.push(v);
      }
      return out;
    }
    cur = child(cur, seg);
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** `*` names no single place to write, and get would never read a literal `*` key back. */
function rejectWildcard(segs: string[], op: string): void {
  const i = segs.indexOf('*');
  if (i !== -1) {
    throw new SvcError(
      ErrorCode.Processing,
      `field path ${describe(segs, segs.length - 1)}: cannot ${op} through the wildcard '*' (segment ${i}); it is only valid when reading`,
    );
  }
}

function setOwn(obj: Obj, key: string, value: unknown): void {
  if (GUARDED_KEYS.has(key)) {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

function setAt(root: unknown, segs: string[], value: unknown): unknown {
  if (segs.length === 0) return value;
  rejectWildcard(segs, 'set');
  const top: unknown = Array.isArray(root) || isObject(root) ? root : {};
  let cur: Obj | unknown[] = top as Obj | unknown[];
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i]!;
    const last = i === segs.length - 1;
    let next: unknown;
    if (Array.isArray(cur)) {
      if (seg === '-') {
        next = last ? value : {};
        cur.push(next);
        if (last) break;
      } else {
        const idx = toIndex(seg);
        if (idx === undefined) {
          throw new SvcError(
            ErrorCode.Processing,
            `field path ${describe(segs, i)}: found an array, but ${JSON.stringify(seg)} is not an index (use 0, 1, ... or '-' to append)`,
          );
        }
        if (idx >= cur.length) {
          throw new SvcError(
            ErrorCode.Processing,
            `field path ${describe(segs, i)}: index ${idx} is beyond the end of an array of length ${cur.length} (use '-' to append)`,
          );
        }
        if (last) {
          cur[idx] = value;
          break;
        }
        next = cur[idx];
        if (!Array.isArray(next) && !isObject(next)) {
          next = {};
          cur[idx] = next;
        }
      }
    } else {
      if (last) {
        setOwn(cur, seg, value);
        break;
      }
      next = Object.hasOwn(cur, seg) ? cur[seg] : undefined;
      if (!Array.isArray(next) && !isObject(next)) {
        next = {};
        setOwn(cur, seg, next);
      }
    }
    cur = next as Obj | unknown[];
  }
  return top;
}
