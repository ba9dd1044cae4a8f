/**
 * What changed between two versions of an API's definition, as the paths that differ
 * (`proxy.target_url`, `version_data.versions.v2`, `tags[1]`), each added, removed or changed.
 * Paths only, never values: a path says what changed without showing a secret held there.
 * Numbers are compared as written (`1.10` is not `1.1`; 64-bit integers exactly).
 */
import { JsonNumber, parseJson, stringifyJson } from '@svc/engine';

export interface FieldChange {
  path: string;
  op: 'added' | 'removed' | 'changed';
}

/** At most this many paths per API and sync; the rest is counted in a last `…` entry. */
const MAX_PATHS = 50;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonNumber);

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;
}

/** The paths where `after` differs from `before` (JSON values), deepest first found, in key order. */
export function definitionChanges(before: unknown, after: unknown): FieldChange[] {
  const out: FieldChange[] = [];
  let more = 0;
  const add = (c: FieldChange) => (out.length < MAX_PATHS ? out.push(c) : more++);
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (isObject(a) && isObject(b)) {
      for (const k of Object.keys(a)) if (!(k in b)) add({ path: join(path, k), op: 'removed' });
      for (const k of Object.keys(b)) {
        if (!(k in a)) add({ path: join(path, k), op: 'added' });
        else walk(a[k], b[k], join(path, k));
      }
      return;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i++) {
        if (i >= a.length) add({ path: join(path, i), op: 'added' });
        else if (i >= b.length) add({ path: join(path, i), op: 'removed' });
        else walk(a[i], b[i], join(path, i));
      }
      return;
    }
    if (a !== b && stringifyJson(a) !== stringifyJson(b)) add({ path: path || '(the whole definition)', op: 'changed' });
  };
  walk(before, after, '');
  if (more > 0) out.push({ path: `… ${more} more`, op: 'changed' });
  return out;
}

/** A definition's JSON text, parsed with its numbers as written (text that is not JSON is taken as the string it is). */
export function parsedDefinition(text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}
