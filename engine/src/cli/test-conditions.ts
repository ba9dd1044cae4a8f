/**
 * The output conditions of a config unit test (Benthos' `output_batches` entries): each checks one
 * output message and gives a failure text, in Benthos' words, or nothing. A message is checked
 * against its conditions in name order, as Benthos does, so that reports compare line for line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RE2JS } from 're2js';
import { compileQuery } from '../interp/index.js';
import { JsonNumber } from '../message/json-number.js';
import { parseJson, stringifyJson } from '../message/json.js';
import type { Message } from '../message/message.js';
import { errorMessage } from '../errors.js';

/** A condition: a failure text, or undefined when the message passes. */
type Check = (msg: Message) => string | undefined;

/** The names Benthos knows, each with how to make its check from the YAML value. */
const CONDITIONS: Record<string, (value: unknown, dir: string) => Check> = {
  bloblang: (v) => {
    const q = compileQuery(String(v));
    return (msg) => {
      let r: unknown;
      try {
        r = q.eval(msg, { batch: [msg], index: 0 });
      } catch (err) {
        return errorMessage(err);
      }
      return r === true ? undefined : 'bloblang expression was false';
    };
  },
  content_equals: (v) => (msg) => contentMismatch(String(v), msg.text()),
  content_matches: (v) => {
    const re = RE2JS.compile(String(v));
    return (msg) => (re.matcher(msg.text()).find() ? undefined : `pattern mismatch\n   pattern: ${String(v)}\n  received: ${msg.text()}`);
  },
  metadata_equals: (v) => (msg) => {
    for (const [k, exp] of Object.entries((v ?? {}) as Record<string, unknown>)) {
      const act = msg.getMeta(k);
      if (act === undefined) return `metadata key '${k}' expected but not found`;
      if (!sameValue(exp, act)) return `metadata key '${k}' mismatch\n  expected: ${show(exp)}\n  received: ${show(act)}`;
    }
    return undefined;
  },
  file_equals: (v, dir) => (msg) => {
    let text: string;
    try {
      text = readFileSync(join(dir, String(v)), 'utf8');
    } catch (err) {
      return `failed to read comparison file: ${errorMessage(err)}`;
    }
    return contentMismatch(text, msg.text());
  },
  json_equals: (v) => jsonCheck(jsonText(v), false),
  json_contains: (v) => jsonCheck(jsonText(v), true),
  file_json_equals: (v, dir) => fileJsonCheck(join(dir, String(v)), false),
  file_json_contains: (v, dir) => fileJsonCheck(join(dir, String(v)), true),
};

/** The condition names, for the test definition's checks. */
export const CONDITION_NAMES: readonly string[] = Object.keys(CONDITIONS);

/** The checks of one expected message: `[name, check]` in Benthos' order (by name). */
export function conditionsOf(spec: Record<string, unknown>, dir: string): Array<[string, Check]> {
  return Object.keys(spec)
    .sort()
    .map((name) => {
      const make = CONDITIONS[name];
      if (!make) throw new Error(`unknown output condition "${name}": use one of ${CONDITION_NAMES.join(', ')}`);
      try {
        return [name, make(spec[name], dir)];
      } catch (err) {
        throw new Error(`${name}: ${errorMessage(err)}`, { cause: err });
      }
    });
}

function contentMismatch(exp: string, act: string): string | undefined {
  return exp === act || exp === goOrdered(act) ? undefined : `content mismatch\n  expected: ${exp}\n  received: ${act}`;
}

/** Object keys sorted at every level (the value otherwise as it is). */
function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (v === null || typeof v !== 'object' || v instanceof JsonNumber) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    // Defined, not assigned: `__proto__` is a key like any other here.
    Object.defineProperty(out, k, { value: sortedKeys((v as Record<string, unknown>)[k]), writable: true, enumerable: true, configurable: true });
  }
  return out;
}

/**
 * The content as Benthos would have written it when it is a JSON object: compact, keys sorted (Go
 * writes map keys in order; this engine keeps a mapping's order). So a test written against
 * Benthos' output passes here; undefined when the content is not a JSON object or array.
 */
function goOrdered(text: string): string | undefined {
  const c = text.trimStart()[0];
  if (c !== '{' && c !== '[') return undefined;
  try {
    return stringifyJson(sortedKeys(parseJson(text)));
  } catch {
    return undefined;
  }
}

/** A YAML value as the JSON text to compare with (a string is JSON text already, as in Benthos). */
function jsonText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function fileJsonCheck(path: string, superset: boolean): Check {
  return (msg) => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      return `failed to read comparison JSON file: ${errorMessage(err)}`;
    }
    return jsonCheck(text, superset)(msg);
  };
}

function jsonCheck(expectedText: string, superset: boolean): Check {
  return (msg) => {
    let exp: unknown;
    let act: unknown;
    try {
      exp = parseJson(expectedText);
    } catch {
      return `${superset ? 'JSON superset mismatch' : 'JSON content mismatch'}\nthe expected value is not JSON: ${expectedText}`;
    }
    try {
      act = parseJson(msg.text());
    } catch {
      return `${superset ? 'JSON superset mismatch' : 'JSON content mismatch'}\nthe message is not JSON: ${msg.text()}`;
    }
    if (superset ? contains(act, exp) : sameJson(act, exp)) return undefined;
    return `${superset ? 'JSON superset mismatch' : 'JSON content mismatch'}\n${jsonDiff(act, exp, '')}`;
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonNumber);

/**
 * Metadata values compare as Benthos' `value.ICompare`: numbers by value (`5` and `5.0` are one),
 * a string only with a string (`"5"` is not `5`), structures element by element.
 */
function sameValue(a: unknown, b: unknown): boolean {
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na !== undefined || nb !== undefined) return na === nb;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && sameValue(a[k], b[k]));
  }
  return a === b;
}

const asNumber = (v: unknown): number | undefined => (v instanceof JsonNumber ? Number(v) : typeof v === 'number' ? v : undefined);

/** A number as its JSON text: JSON documents compare numbers as written (`1.0` is not `1`), as Benthos' diff does. */
const numberText = (v: unknown): string | undefined => (v instanceof JsonNumber ? v.text : typeof v === 'number' ? JSON.stringify(v) : undefined);

/** Two JSON documents are the same, numbers as written. */
function sameJson(a: unknown, b: unknown): boolean {
  const ta = numberText(a);
  const tb = numberText(b);
  if (ta !== undefined || tb !== undefined) return ta === tb;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && sameJson(a[k], b[k]));
  }
  return a === b;
}

/**
 * True when `act` holds everything `exp` does, as Benthos' superset match: an object may have more
 * keys, an array more elements after those expected, each element a superset of its counterpart.
 */
function contains(act: unknown, exp: unknown): boolean {
  if (isObject(act) && isObject(exp)) return Object.keys(exp).every((k) => k in act && contains(act[k], exp[k]));
  if (Array.isArray(act) && Array.isArray(exp)) return exp.length <= act.length && exp.every((x, i) => contains(act[i], x));
  return sameJson(act, exp);
}

const show = (v: unknown): string => (typeof v === 'string' ? v : stringifyJson(v));

/**
 * The received document with the differences marked, as Benthos' console diff reads: keys sorted,
 * a changed value as `received => expected`, a key only received as `+`, only expected as `-`.
 */
function jsonDiff(act: unknown, exp: unknown, indent: string): string {
  const inner = `${indent}    `;
  if (isObject(act) && isObject(exp)) {
    const keys = [...new Set([...Object.keys(act), ...Object.keys(exp)])].sort();
    const lines = keys.map((k) => {
      if (!(k in exp)) return `${inner}+ ${JSON.stringify(k)}: ${stringifyJson(act[k])}`;
      if (!(k in act)) return `${inner}- ${JSON.stringify(k)}: ${stringifyJson(exp[k])}`;
      return `${inner}${JSON.stringify(k)}: ${jsonDiff(act[k], exp[k], inner)}`;
    });
    return `{\n${lines.join(',\n')}\n${indent}}`;
  }
  if (Array.isArray(act) && Array.isArray(exp) && act.length === exp.length) {
    return `[\n${act.map((v, i) => `${inner}${jsonDiff(v, exp[i], inner)}`).join(',\n')}\n${indent}]`;
  }
  return sameJson(act, exp) ? stringifyJson(act) : `${stringifyJson(act)} => ${stringifyJson(exp)}`;
}
