/**
 * JSON Schema validation of request bodies as Tyk v5.14.0's ValidateJSON does it
 * (`gateway/mw_validate_json.go`, xeipuuv/gojsonschema v1.2.0): the same checks in the same order,
 * and each failure worded as gojsonschema words it (`field: description`, joined with `; `).
 *
 * Covered keywords: `type` (one or a list), `properties`, `required`, `additionalProperties`
 * (true/false), `enum`, `minimum`, `maximum`, `minLength`, `maxLength`, `items` (one schema),
 * `minItems`, `maxItems`; annotations (`$schema`, `title`, `description`, `default`, `examples`,
 * `id`, `$id`) are read past. Any other keyword is refused at load ({@link compileJsonSchema}
 * throws), so no schema is checked with less than it says. Written here rather than with a
 * general validator: the point is gojsonschema's order and words, which no JS validator shares.
 *
 * Known difference: where gojsonschema reports several property errors, Go's map order decides
 * their order (it varies from run to run in Tyk); here they follow the schema's order.
 *
 * svc's bound: gojsonschema lists every failure (a 0.4 MB body of 200,000 wrong-typed items made
 * Tyk's answer 12 MB); here the walk stops after {@link MAX_SCHEMA_FAILURES}, those worded as Tyk
 * words them, and one more entry says that the list stops there.
 */

import { RE2JS } from 're2js';
import { compiledRe2 } from '@svc/engine/kit';

/** A compiled schema: plain data (it crosses to worker threads inside the ApiSpec). */
export interface JsonSchemaNode {
  types?: string[];
  properties?: Array<[string, JsonSchemaNode]>;
  required?: string[];
  additionalProperties?: boolean;
  /** The allowed values as JSON text (Go's marshalling: object keys sorted). */
  enumJson?: string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  items?: JsonSchemaNode;
  minItems?: number;
  maxItems?: number;
  /** OAS 3.0 `nullable` (OAS request validation only). */
  nullable?: boolean;
  /** OAS `pattern` as written (OAS request validation only; RE2, checked at load). */
  pattern?: string;
}

/** How an OAS schema is read (`validateRequest`): `nullable` is a keyword, `$ref` to the document's components is followed. */
export interface OasSchemaReading {
  /** The document's `#/...` target of a `$ref`, or undefined when there is none. */
  resolve: (ref: string) => unknown;
}

/** An OAS `pattern` compiled as kin-openapi compiles it (Go's regexp, `\\uXXXX` read as `\\x{XXXX}`), once per text; throws RE2's reason when it does not compile. */
export function oasPattern(pattern: string): RE2JS {
  const text = pattern.replace(/\\u([0-9A-F]{4})/g, '\\x{$1}');
  return compiledRe2(text) ?? RE2JS.compile(text);
}

const ANNOTATIONS = new Set(['$schema', 'title', 'description', 'default', 'examples', 'id', '$id']);
const OAS_ANNOTATIONS = new Set(['title', 'description', 'example', 'examples', 'deprecated', 'externalDocs']);
const TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Compiles `schema`; throws an Error naming the first keyword (by its JSON path under `at`) that
 * is not covered. With `oas` (an OAS document's schema, for `validateRequest`): `nullable` and
 * `example` are read, a `$ref` is followed (32 deep at most: a recursive schema is refused), and
 * `default` is refused (kin-openapi writes defaults into the body the upstream gets).
 */
export function compileJsonSchema(schema: unknown, at: string, oas?: OasSchemaReading, depth = 0): JsonSchemaNode {
  if (!isObject(schema)) throw new Error(`${at}: expected a JSON Schema object`);
  if (oas !== undefined && typeof schema['$ref'] === 'string') {
    const ref = schema['$ref'];
    const target = oas.resolve(ref);
    if (target === undefined) throw new Error(`${at}.$ref: ${ref} is not in this document`);
    if (depth >= 32) throw new Error(`${at}.$ref: ${ref}: schemas nested more than 32 deep (a recursive schema?) are not supported`);
    return compileJsonSchema(target, `${at}.$ref(${ref})`, oas, depth + 1);
  }
  const out: JsonSchemaNode = {};
  const sub = (v: unknown, where: string): JsonSchemaNode => compileJsonSchema(v, where, oas, depth + 1);
  const count = (k: string, v: unknown): number => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Error(`${at}.${k}: expected a whole number >= 0`);
    return v;
  };
  const num = (k: string, v: unknown): number => {
    if (typeof v !== 'number') throw new Error(`${at}.${k}: expected a number`);
    return v;
  };
  for (const [k, v] of Object.entries(schema)) {
    if (oas !== undefined ? OAS_ANNOTATIONS.has(k) : ANNOTATIONS.has(k)) continue;
    // `nullable` and `pattern` are read in OAS schemas only; in a classic one they fall to the refusal below.
    const key = oas === undefined && (k === 'nullable' || k === 'pattern') ? '' : k;
    switch (key) {
      case 'pattern':
        if (typeof v !== 'string') throw new Error(`${at}.pattern: expected a string`);
        if (v !== '') {
          try {
            oasPattern(v);
          } catch (err) {
            throw new Error(`${at}.pattern: ${JSON.stringify(v)} is not an RE2 regular expression: ${(err as Error).message}`);
          }
          out.pattern = v;
        }
        break;
      case 'nullable':
        if (typeof v !== 'boolean') throw new Error(`${at}.nullable: expected true or false`);
        if (v) out.nullable = true;
        break;
      case 'type': {
        const list = Array.isArray(v) ? v : [v];
        if (list.length === 0 || !list.every((t) => typeof t === 'string' && TYPES.has(t)))
          throw new Error(`${at}.type: expected a JSON Schema type or a list of them`);
        out.types = list as string[];
        break;
      }
      case 'properties':
        if (!isObject(v)) throw new Error(`${at}.properties: expected an object`);
        out.properties = Object.entries(v).map(([name, s]) => [name, sub(s, `${at}.properties.${name}`)]);
        break;
      case 'required':
        if (!Array.isArray(v) || !v.every((r) => typeof r === 'string')) throw new Error(`${at}.required: expected a list of property names`);
        out.required = v as string[];
        break;
      case 'additionalProperties':
        if (typeof v !== 'boolean') throw new Error(`${at}.additionalProperties: only true or false is supported (a schema there is not)`);
        out.additionalProperties = v;
        break;
      case 'enum':
        if (!Array.isArray(v) || v.length === 0) throw new Error(`${at}.enum: expected a non-empty list`);
        out.enumJson = v.map(goJson);
        break;
      case 'minimum':
      case 'maximum':
        out[key] = num(k, v);
        break;
      case 'minLength':
      case 'maxLength':
      case 'minItems':
      case 'maxItems':
        out[key] = count(k, v);
        break;
      case 'items':
        if (!isObject(v)) throw new Error(`${at}.items: only one schema for every item is supported (a list of schemas is not)`);
        out.items = sub(v, `${at}.items`);
        break;
      default:
        throw new Error(
          `${at}.${k}: the JSON Schema keyword "${k}" is not supported by svc's validate_json (supported: type, properties, required, additionalProperties, enum, minimum, maximum, minLength, maxLength, items, minItems, maxItems)`,
        );
    }
  }
  return out;
}

/**
 * JSON text as Go's json.Marshal writes it for a decoded value (object keys sorted). Iterative: a
 * body may be nested as deep as Go's decoder allows (10,000), deeper than this thread's stack.
 */
export function goJson(v: unknown): string {
  let out = '';
  // What is left to write, last first: a value, or text (a comma, a key, a closing bracket).
  const work: Array<{ value: unknown } | string> = [{ value: v }];
  for (let w = work.pop(); w !== undefined; w = work.pop()) {
    if (typeof w === 'string') {
      out += w;
      continue;
    }
    const x = w.value;
    if (Array.isArray(x)) {
      out += '[';
      work.push(']');
      for (let i = x.length - 1; i >= 0; i--) {
        work.push({ value: x[i] });
        if (i > 0) work.push(',');
      }
    } else if (isObject(x)) {
      out += '{';
      work.push('}');
      const keys = Object.keys(x).sort();
      for (let i = keys.length - 1; i >= 0; i--) {
        work.push({ value: x[keys[i]!] }, `${JSON.stringify(keys[i])}:`);
        if (i > 0) work.push(',');
      }
    } else out += JSON.stringify(x) ?? 'null';
  }
  return out;
}

/** A number as Go's fmt prints a big.Float with %v: shortest digits, exponent form from 1e+06 or below 1e-04. */
export function goFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return '0';
  const [digits = '0', expText = '0'] = n.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const e = Math.abs(exp);
    return `${digits}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  return String(n);
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v === 'object' ? 'object' : typeof v;
}

function typeFits(types: string[], kind: string): boolean {
  return types.includes(kind) || (kind === 'integer' && types.includes('number'));
}

/** How many failures `schemaFailures` lists before it stops (svc's bound; gojsonschema has none). */
export const MAX_SCHEMA_FAILURES = 10;

/** Thrown by `walk` when the list is full: no more of the value is looked at. */
const FULL = Symbol('full');

/**
 * The failures of `value` against `node`, each `field: description` as gojsonschema's
 * ResultError.String(): the first {@link MAX_SCHEMA_FAILURES}, then, when there are more, a last
 * entry saying so.
 */
export function schemaFailures(node: JsonSchemaNode, value: unknown): string[] {
  const out: string[] = [];
  try {
    walk(node, value, '(root)', out);
  } catch (err) {
    if (err !== FULL) throw err;
    out[MAX_SCHEMA_FAILURES] = `(svc): more failures not listed: svc stops at the first ${MAX_SCHEMA_FAILURES}`;
  }
  return out;
}

/** Code points in `s` (JSON Schema's string length), without making an array of them. */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

function walk(node: JsonSchemaNode, value: unknown, field: string, out: string[]): void {
  const fail = (description: string): void => {
    if (out.length === MAX_SCHEMA_FAILURES) throw FULL;
    out.push(`${field}: ${description}`);
  };
  const kind = kindOf(value);
  if (node.types !== undefined && !typeFits(node.types, kind)) {
    const expected = node.types.length > 1 ? `[${node.types.join(',')}]` : node.types[0];
    return void fail(`Invalid type. Expected: ${expected}, given: ${kind}`);
  }
  const child = (name: string): string => (field === '(root)' ? name : `${field}.${name}`);
  const checkEnum = (): void => {
    if (node.enumJson !== undefined && !node.enumJson.includes(goJson(value))) fail(`${field} must be one of the following: ${node.enumJson.join(', ')}`);
  };
  if (kind === 'array') {
    const list = value as unknown[];
    if (node.items !== undefined) list.forEach((item, i) => walk(node.items!, item, child(String(i)), out));
    if (node.minItems !== undefined && list.length < node.minItems) fail(`Array must have at least ${node.minItems} items`);
    if (node.maxItems !== undefined && list.length > node.maxItems) fail(`Array must have at most ${node.maxItems} items`);
    return checkEnum();
  }
  if (kind === 'object') {
    const obj = value as Record<string, unknown>;
    for (const name of node.required ?? []) if (!Object.hasOwn(obj, name)) fail(`${name} is required`);
    if (node.additionalProperties === false) {
      const known = new Set((node.properties ?? []).map(([name]) => name));
      for (const name of Object.keys(obj)) if (!known.has(name)) fail(`Additional property ${name} is not allowed`);
    }
    checkEnum();
    for (const [name, sub] of node.properties ?? []) if (Object.hasOwn(obj, name)) walk(sub, obj[name], child(name), out);
    return;
  }
  if (kind === 'integer' || kind === 'number') {
    const n = value as number;
    if (node.maximum !== undefined && n > node.maximum) fail(`Must be less than or equal to ${goFloat(node.maximum)}`);
    if (node.minimum !== undefined && n < node.minimum) fail(`Must be greater than or equal to ${goFloat(node.minimum)}`);
    return checkEnum();
  }
  checkEnum();
  if (kind === 'string') {
    const length = codePointLength(value as string);
    if (node.minLength !== undefined && length < node.minLength) fail(`String length must be greater than or equal to ${node.minLength}`);
    if (node.maxLength !== undefined && length > node.maxLength) fail(`String length must be less than or equal to ${node.maxLength}`);
  }
}
