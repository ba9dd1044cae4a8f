/**
 * The `json_schema` processor (Benthos'): checks each message against a JSON Schema (drafts 4, 6
 * and 7, as Benthos' gojsonschema) and flags the messages that do not conform, with Benthos' error
 * text: one line per failure, `<field> <description>` (`(root) name is required`,
 * `age invalid type. expected: integer, given: string`). The checking is the engine's
 * {@link JsonSchema}, which the Bloblang method `json_schema` uses too (user regexes on RE2).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errorMessage, f, registerProcessor } from '@svc/engine';
import { JsonSchema } from '@svc/engine/kit';

const spec = f.object({
  schema: f.string().optional().describe('A schema to apply. Use either this or the `schema_path` field.'),
  schema_path: f.string().optional().describe('The path of a schema document to apply (`file://...`). Use either this or the `schema` field.'),
});

registerProcessor('json_schema', {
  summary: 'Checks messages against a JSON Schema; a message that does not conform is flagged with why.',
  description: [
    'Each message is parsed as JSON and validated; a message that fails is flagged (and passes on) with one',
    "line per failure in Benthos' words, `<field> <description>`, the field `(root)` for the document itself.",
    'Use `catch` or a `switch` on `errored()` to handle them. Drafts 4, 6 and 7; `pattern` and `patternProperties`',
    'are Go (RE2) regexes, as in Benthos. `schema_path` takes `file://` paths (`http://` is refused: a schema is',
    'loaded once, at start).',
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
    let schema: JsonSchema;
    try {
      schema = JsonSchema.parse(text);
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
          const failures = schema.check(doc);
          if (failures === undefined) continue;
          log.debug('The document is not valid');
          m.error = failures;
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
