/**
 * The `json_schema` processor (Benthos'): checks each message against a JSON Schema (drafts 4, 6
 * and 7, as Benthos' gojsonschema) and flags the messages that do not conform, with Benthos' error
 * text: one line per failure, `<field> <description>` (`(root) name is required`,
 * `age invalid type. expected: integer, given: string`). Validation runs on ajv (v6, already in
 * the tree); user regexes must run on RE2, which ajv 6 cannot use, so a schema with `pattern` or
 * `patternProperties` is refused at start.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { errorMessage, f, registerProcessor } from '@svc/engine';

const require = createRequire(import.meta.url);

interface AjvError {
  keyword: string;
  dataPath: string;
  params: Record<string, unknown>;
  message?: string;
}
type Validate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };
interface AjvInstance {
  compile(schema: unknown): Validate;
  addMetaSchema(schema: unknown): void;
}
type AjvCtor = new (opts: Record<string, unknown>) => AjvInstance;

const spec = f.object({
  schema: f.string().optional().describe('A schema to apply. Use either this or the `schema_path` field.'),
  schema_path: f.string().optional().describe('The path of a schema document to apply (`file://...`). Use either this or the `schema` field.'),
});

registerProcessor('json_schema', {
  summary: 'Checks messages against a JSON Schema; a message that does not conform is flagged with why.',
  description: [
    'Each message is parsed as JSON and validated; a message that fails is flagged (and passes on) with one',
    "line per failure in Benthos' words, `<field> <description>`, the field `(root)` for the document itself.",
    'Use `catch` or a `switch` on `errored()` to handle them. Drafts 4, 6 and 7. Schemas with `pattern` or',
    '`patternProperties` are refused for now (user regexes run on RE2 only); `schema_path` takes `file://`',
    'paths (`http://` is refused: a schema is loaded once, at start).',
  ].join('\n'),
  config: spec,
  examples: [
    `pipeline:
  processors:
    - json_schema:
        schema: |
          {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}
    - catch:
        - log: { level: WARN, message: 'invalid: \${! error() }' }
`,
  ],
  factory: (conf, ctx) => {
    const text = schemaText(conf.schema, conf.schema_path);
    let schema: unknown;
    try {
      schema = JSON.parse(text);
    } catch (err) {
      throw new Error(`failed to load JSON schema definition: ${errorMessage(err)}`);
    }
    refuseRegexes(schema);
    const Ajv = require('ajv') as AjvCtor;
    const ajv = new Ajv({ allErrors: true, schemaId: 'auto', jsonPointers: false });
    ajv.addMetaSchema(require('ajv/lib/refs/json-schema-draft-04.json'));
    ajv.addMetaSchema(require('ajv/lib/refs/json-schema-draft-06.json'));
    let validate: Validate;
    try {
      validate = ajv.compile(schema);
    } catch (err) {
      throw new Error(`failed to load JSON schema definition: ${errorMessage(err)}`);
    }
    const log = ctx.logger;
    return {
      process(batch) {
        for (const m of batch) {
          let doc: unknown;
          try {
            doc = m.json();
          } catch (err) {
            m.setError(err);
            continue;
          }
          lastDoc = doc;
          if (validate(doc)) continue;
          log.debug('The document is not valid');
          m.error = (validate.errors ?? []).map(describe).join('\n');
        }
        return [batch];
      },
    };
  },
});

function schemaText(schema: string | undefined, path: string | undefined): string {
  if (path !== undefined && path !== '') {
    if (!path.startsWith('file://')) {
      throw new Error(
        path.startsWith('http://')
          ? 'schema_path over http:// is not supported by svc: download the schema and use file://'
          : 'invalid schema_path provided, must start with file:// or http://',
      );
    }
    try {
      return readFileSync(path.startsWith('file:///') ? fileURLToPath(path) : path.slice('file://'.length), 'utf8');
    } catch (err) {
      throw new Error(`failed to load JSON schema definition: ${errorMessage(err)}`);
    }
  }
  if (schema !== undefined && schema !== '') return schema;
  throw new Error('either schema or schema_path must be provided');
}

function refuseRegexes(node: unknown): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) refuseRegexes(n);
    return;
  }
  for (const [k, v] of Object.entries(node)) {
    if ((k === 'pattern' && typeof v === 'string') || (k === 'patternProperties' && v !== null && typeof v === 'object' && !Array.isArray(v))) {
      throw new Error(
        `the JSON schema uses '${k}', which svc does not support yet (user regexes run on RE2 only): remove it, or check the field with a mapping's re_match`,
      );
    }
    refuseRegexes(v);
  }
}

/** gojsonschema's type names. */
function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'boolean') return 'boolean';
  return typeof v;
}

/** ajv's data path (`.a.b`, `[0]`, `['x y']`) as gojsonschema's field (`a.b`, `0`, `(root)`). */
function field(dataPath: string): string {
  if (dataPath === '') return '(root)';
  return dataPath
    .replace(/\[(\d+)\]/g, '.$1')
    .replace(/\['((?:[^'\\]|\\.)*)'\]/g, '.$1')
    .replace(/^\./, '');
}

/** One failure as Benthos prints it: field, then gojsonschema's description lowercased. */
function describe(e: AjvError): string {
  const p = e.params;
  let desc: string;
  let property: string | undefined;
  switch (e.keyword) {
    case 'required':
      property = String(p.missingProperty)
        .replace(/^\./, '')
        .replace(/^\['(.*)'\]$/, '$1');
      desc = `${property} is required`;
      break;
    case 'type':
      desc = `invalid type. expected: ${String(p.type).replace(/,/g, ', ')}, given: ${typeOf(dataAt(e))}`;
      break;
    case 'enum':
      desc = `${field(e.dataPath)} must be one of the following: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
      break;
    case 'const':
      desc = `${field(e.dataPath)} does not match: ${JSON.stringify(p.allowedValue)}`;
      break;
    case 'minimum':
      desc = `must be greater than or equal to ${String(p.limit)}`;
      break;
    case 'maximum':
      desc = `must be less than or equal to ${String(p.limit)}`;
      break;
    case 'exclusiveMinimum':
      desc = `must be greater than ${String(p.limit)}`;
      break;
    case 'exclusiveMaximum':
      desc = `must be less than ${String(p.limit)}`;
      break;
    case 'minLength':
      desc = `string length must be greater than or equal to ${String(p.limit)}`;
      break;
    case 'maxLength':
      desc = `string length must be less than or equal to ${String(p.limit)}`;
      break;
    case 'minItems':
      desc = `array must have at least ${String(p.limit)} items`;
      break;
    case 'maxItems':
      desc = `array must have at most ${String(p.limit)} items`;
      break;
    case 'additionalProperties':
      property = String(p.additionalProperty);
      desc = `additional property ${property} is not allowed`;
      break;
    default:
      desc = (e.message ?? e.keyword).toLowerCase();
  }
  // Benthos puts the property first where gojsonschema names one (its own words, kept as they are).
  if (property !== undefined) desc = property + (desc.startsWith(property.toLowerCase()) ? desc.slice(property.length) : desc);
  return `${field(e.dataPath)} ${desc}`;
}

// ajv 6 does not give the value that failed: the validator keeps the document it last saw.
let lastDoc: unknown;
function dataAt(e: AjvError): unknown {
  let v = lastDoc;
  for (const seg of field(e.dataPath) === '(root)' ? [] : field(e.dataPath).split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[seg];
  }
  return v;
}
