/**
 * JSON Schema as Benthos checks it (xeipuuv/gojsonschema v1.2.0: drafts 4, 6 and 7), for the
 * `json_schema` method and the `json_schema` processor: a value either conforms, or fails with
 * Benthos' text, one line per failure, `<field> <description>` (`(root) name is required`,
 * `age invalid type. expected: integer, given: string`).
 *
 * Validation runs on ajv 6 with its `regExp` hook on RE2 (re2js), so a schema's `pattern` and
 * `patternProperties` are Go regexes matched in linear time, as in Benthos. Known differences:
 * gojsonschema lists property failures in Go's map order (random from run to run) where these
 * follow ajv's, and gojsonschema's `allOf` adds a line of its own after the branches' failures.
 */
import { createRequire } from 'node:module';
import { RE2JS } from 're2js';
import { errorMessage } from '../errors.js';
import { readFirstValue } from '../message/go-json-syntax.js';
import { stringifyJsonWithBytes } from '../message/json.js';

const require = createRequire(import.meta.url);

interface AjvError {
  keyword: string;
  dataPath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message?: string;
}
type Validate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };
interface AjvInstance {
  compile(schema: unknown): Validate;
  addMetaSchema(schema: unknown): void;
  addFormat(name: string, check: (s: string) => boolean): void;
}
type AjvCtor = new (opts: Record<string, unknown>) => AjvInstance;

/** A compiled schema. */
export class JsonSchema {
  private constructor(private readonly validator: Validate) {}

  /** Compiles a schema document; throws an Error in gojsonschema's words where they are known. */
  static parse(text: string): JsonSchema {
    let schema: unknown;
    try {
      schema = JSON.parse(text);
    } catch (err) {
      throw new Error(readFirstValue(text).error ?? errorMessage(err));
    }
    checkPatterns(schema);
    const Ajv = require('ajv') as AjvCtor;
    const ajv = new Ajv({ allErrors: true, schemaId: 'auto', jsonPointers: false, regExp: re2 });
    ajv.addMetaSchema(require('ajv/lib/refs/json-schema-draft-04.json'));
    ajv.addMetaSchema(require('ajv/lib/refs/json-schema-draft-06.json'));
    // The meta-schemas say a pattern is `format: regex`: Go's syntax, not JavaScript's.
    ajv.addFormat('regex', (s) => compiles(s));
    try {
      return new JsonSchema(ajv.compile(schema));
    } catch (err) {
      throw new Error(errorMessage(err));
    }
  }

  /** Benthos' error text for a value that does not conform (failures joined with newlines), or undefined. */
  check(value: unknown): string | undefined {
    // gojsonschema reads a Go value as its JSON (NewGoLoader): bytes as base64, numbers as written.
    const doc: unknown = JSON.parse(stringifyJsonWithBytes(value));
    if (this.validator(doc)) return undefined;
    return gojsonschemaOrder(this.validator.errors ?? [])
      .map((e) => describe(e, doc))
      .join('\n');
  }
}

function re2(pattern: string): { test(s: string): boolean } {
  return RE2JS.compile(pattern);
}

function compiles(pattern: string): boolean {
  try {
    RE2JS.compile(pattern);
    return true;
  } catch {
    return false;
  }
}

/** gojsonschema's refusals of a regex that Go cannot compile, found before ajv meets it. */
function checkPatterns(node: unknown): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) checkPatterns(n);
    return;
  }
  for (const [k, v] of Object.entries(node)) {
    if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples') continue;
    if (k === 'pattern' && typeof v === 'string' && !compiles(v)) throw new Error('pattern must be a valid regex');
    if (k === 'patternProperties' && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const p of Object.keys(v)) if (!compiles(p)) throw new Error(`Invalid regex pattern '${p}'`);
    }
    checkPatterns(v);
  }
}

/**
 * ajv's failures in gojsonschema's order: an `anyOf`/`oneOf`/`if` failure comes before the
 * failures of the branch it reports (for `anyOf`/`oneOf` only the best branch's, as gojsonschema
 * keeps), and one value's own failures come in the order gojsonschema checks them.
 */
function gojsonschemaOrder(errors: AjvError[]): AjvError[] {
  const out: AjvError[] = [];
  for (const e of errors) {
    const at = e.schemaPath.slice(0, e.schemaPath.length - e.keyword.length);
    const prefix =
      e.keyword === 'if' ? `${at}${String(e.params.failingKeyword)}/` : e.keyword === 'anyOf' || e.keyword === 'oneOf' ? `${at}${e.keyword}/` : undefined;
    if (prefix === undefined) {
      out.push(e);
      continue;
    }
    let first = out.length;
    while (first > 0 && out[first - 1]!.schemaPath.startsWith(prefix)) first--;
    const branchErrors = out.splice(first);
    out.push(e, ...(e.keyword === 'if' ? branchErrors : bestBranch(branchErrors, prefix)));
  }
  // a stable sort of each run of one value's failures
  for (let i = 0; i < out.length;) {
    let j = i + 1;
    while (j < out.length && out[j]!.dataPath === out[i]!.dataPath) j++;
    const run = out.slice(i, j).sort((a, b) => rank(a.keyword) - rank(b.keyword));
    out.splice(i, run.length, ...run);
    i = j;
  }
  return out;
}

/** The branch gojsonschema reports: the one that got furthest (fewest failures; a type failure stops a branch at once). */
function bestBranch(errors: AjvError[], prefix: string): AjvError[] {
  const branches = new Map<string, AjvError[]>();
  for (const e of errors) {
    const n = e.schemaPath.slice(prefix.length).split('/')[0]!;
    branches.set(n, [...(branches.get(n) ?? []), e]);
  }
  let best: AjvError[] = [];
  let bestScore = -Infinity;
  for (const b of branches.values()) {
    const score =
      -b.length -
      (b.some((e) => e.keyword === 'type' && e.schemaPath.startsWith(prefix) && e.schemaPath.split('/').length === prefix.split('/').length + 1) ? 1 : 0);
    if (score > bestScore) [best, bestScore] = [b, score];
  }
  return best;
}

/** The order of gojsonschema's checks of one value (validation.go): type, composition, the type's keywords, const/enum, then strings'. */
const RANKS = new Map(
  [
    'type',
    'allOf anyOf oneOf not dependencies if',
    'multipleOf maximum exclusiveMaximum minimum exclusiveMinimum',
    'additionalItems minItems maxItems uniqueItems contains',
    'minProperties maxProperties required additionalProperties propertyNames',
    'const enum',
    'minLength maxLength pattern format',
  ].flatMap((group, g) => group.split(' ').map((k, i) => [k, g * 16 + i] as const)),
);
function rank(keyword: string): number {
  return RANKS.get(keyword) ?? (keyword === 'false schema' ? 0 : 15);
}

/** gojsonschema's type names. */
function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'boolean') return 'boolean';
  return typeof v;
}

/** ajv's data path (`.a.b`, `[0]`, `['x y']`) as gojsonschema's field segments. */
function segments(dataPath: string): string[] {
  if (dataPath === '') return [];
  return dataPath
    .replace(/\[(\d+)\]/g, '.$1')
    .replace(/\['((?:[^'\\]|\\.)*)'\]/g, '.$1')
    .replace(/^\./, '')
    .split('.');
}

function dataAt(doc: unknown, segs: string[]): unknown {
  let v = doc;
  for (const seg of segs) {
    if (v === null || typeof v !== 'object') return undefined;
    v = Object.hasOwn(v, seg) ? (v as Record<string, unknown>)[seg] : undefined;
  }
  return v;
}

const list = (vs: unknown): string => (vs as unknown[]).map((v) => JSON.stringify(v)).join(', ');

/**
 * One failure as Benthos prints it: the field, then gojsonschema's description lowercased, with
 * the property it names (if any) put back first in its own case.
 */
function describe(e: AjvError, doc: unknown): string {
  const p = e.params;
  const segs = segments(e.dataPath);
  const field = segs.length === 0 ? '(root)' : segs.join('.');
  let property: string | undefined;
  let desc: string;
  switch (e.keyword) {
    case 'required':
      property = segments(String(p.missingProperty))[0] ?? '';
      desc = `${property} is required`;
      break;
    case 'type': {
      const types = String(p.type).split(',');
      desc = `Invalid type. Expected: ${types.length > 1 ? `[${types.join(',')}]` : types[0]}, given: ${typeOf(dataAt(doc, segs))}`;
      break;
    }
    case 'enum':
      desc = `${field} must be one of the following: ${list(p.allowedValues)}`;
      break;
    case 'const':
      desc = `${field} does not match: ${JSON.stringify(p.allowedValue)}`;
      break;
    case 'minimum':
    case 'exclusiveMinimum':
      desc = `Must be greater than${p.exclusive === true || e.keyword === 'exclusiveMinimum' ? '' : ' or equal to'} ${String(p.limit)}`;
      break;
    case 'maximum':
    case 'exclusiveMaximum':
      desc = `Must be less than${p.exclusive === true || e.keyword === 'exclusiveMaximum' ? '' : ' or equal to'} ${String(p.limit)}`;
      break;
    case 'multipleOf':
      desc = `Must be a multiple of ${String(p.multipleOf)}`;
      break;
    case 'minLength':
      desc = `String length must be greater than or equal to ${String(p.limit)}`;
      break;
    case 'maxLength':
      desc = `String length must be less than or equal to ${String(p.limit)}`;
      break;
    case 'pattern':
      desc = `Does not match pattern '${String(p.pattern)}'`;
      break;
    case 'format':
      desc = `Does not match format '${String(p.format)}'`;
      break;
    case 'minItems':
      desc = `Array must have at least ${String(p.limit)} items`;
      break;
    case 'maxItems':
      desc = `Array must have at most ${String(p.limit)} items`;
      break;
    case 'uniqueItems':
      desc = `array items[${String(p.j)},${String(p.i)}] must be unique`;
      break;
    case 'additionalItems':
      desc = 'No additional items allowed on array';
      break;
    case 'contains':
      desc = 'At least one of the items must match';
      break;
    case 'minProperties':
      desc = `Must have at least ${String(p.limit)} properties`;
      break;
    case 'maxProperties':
      desc = `Must have at most ${String(p.limit)} properties`;
      break;
    case 'additionalProperties':
      property = String(p.additionalProperty);
      desc = `Additional property ${property} is not allowed`;
      break;
    case 'dependencies':
      desc = `Has a dependency on ${String(p.missingProperty)}`;
      break;
    case 'anyOf':
      desc = 'Must validate at least one schema (anyOf)';
      break;
    case 'oneOf':
      desc = 'Must validate one and only one schema (oneOf)';
      break;
    case 'not':
      desc = 'Must not validate the schema (not)';
      break;
    case 'if':
      desc = `Must validate "${String(p.failingKeyword)}" as "if" was ${p.failingKeyword === 'then' ? 'valid' : 'not valid'}`;
      break;
    case 'false schema':
      desc = 'False always fails validation';
      break;
    default:
      desc = e.message ?? e.keyword;
  }
  desc = desc.toLowerCase();
  if (property !== undefined) desc = property + (desc.startsWith(property.toLowerCase()) ? desc.slice(property.length) : desc);
  return `${field} ${desc}`;
}
