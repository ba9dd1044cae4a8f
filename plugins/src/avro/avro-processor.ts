/**
 * The `avro` processor: converts messages between Avro (binary, single-object or Avro's JSON
 * encoding) and JSON with one schema, compiled once when the processor is built (so once per
 * pipeline thread). A message that does not convert is flagged and passed on unchanged.
 */
import {
  ErrorCode,
  SvcError,
  errorMessage,
  f,
  registerProcessor,
  type Batch,
  type ComponentSpec,
  type Infer,
  type Logger,
  type Message,
  type Processor,
} from '@svc/engine';
import { AvroSchema } from './avro-schema.js';
import { ENCODINGS, encodingOf, type AvroEncoding } from './encodings.js';
import { loadSchemaText, schemaChoiceProblem } from './schema-source.js';

const OPERATORS = ['to_json', 'from_json'] as const;
type Operator = (typeof OPERATORS)[number];

const spec = f
  .object({
    operator: f.enum(OPERATORS).describe('`to_json` decodes Avro into JSON; `from_json` encodes JSON documents into Avro.'),
    encoding: f
      .enum(ENCODINGS)
      .default('textual')
      .describe(
        "The Avro side: `binary` (the bare binary body), `single` (single-object encoding: C3 01, the schema fingerprint, the body) or `textual` (Avro's JSON encoding).",
      ),
    schema: f.string().default('').describe('The full Avro schema, as JSON. Use this or `schema_path`.'),
    schema_path: f
      .string()
      .url('path')
      .default('')
      .describe(
        'A file holding the schema (a path relative to the working directory, or a `file://` URL), or an `http://`/`https://` URL that serves it. Use this or `schema`.',
      ),
  })
  .validate((c) => schemaChoiceProblem(c) ?? inlineSchemaProblem(c.schema));

/** An inline schema that does not compile is a lint error, not only a start-up failure. */
function inlineSchemaProblem(schema: string | undefined): string | undefined {
  if (!schema) return undefined;
  try {
    AvroSchema.parse(schema);
    return undefined;
  } catch (err) {
    return `schema: ${errorMessage(err)}`;
  }
}

/** Runs one encoding one way over each message of a batch, flagging those that fail. */
class AvroProcessor implements Processor {
  private readonly toJson: boolean;

  constructor(
    operator: Operator,
    private readonly encoding: AvroEncoding,
    /** Starts every error flag: `avro processor (to_json, binary)`. */
    private readonly name: string,
    private readonly log: Logger,
  ) {
    this.toJson = operator === 'to_json';
  }

  process(batch: Batch): Batch[] {
    const encoding = this.encoding;
    for (let i = 0; i < batch.length; i++) {
      const m = batch[i]!;
      try {
        m.content = this.toJson ? encoding.toJson(m.content) : encoding.fromJson(documentOf(m));
      } catch (err) {
        m.setError(`${this.name}: ${errorMessage(err)}`);
        this.log.debug(`Avro conversion failed: ${m.error}`);
      }
    }
    return [batch];
  }
}

/** The message's JSON document (parsed once and cached by the message). */
function documentOf(m: Message): unknown {
  try {
    return m.json();
  } catch (err) {
    throw new SvcError(ErrorCode.Processing, `the content is not valid JSON: ${errorMessage(err)}`);
  }
}

export const avroProcessor: ComponentSpec<Infer<typeof spec>, Processor> = {
  summary: 'Converts messages between Avro (binary, single-object or JSON encoded) and JSON with a schema.',
  description: [
    "`to_json` decodes each message with the schema and writes it as JSON, in Avro's JSON encoding: a union",
    'value is tagged with its branch (`{"string": "x"}`, `null` as `null`) and `bytes` are strings of code',
    'points 0-255. `from_json` encodes JSON documents: union values may be tagged that way or bare (the first',
    'branch that fits is used), fields missing from the document take their schema default.',
    '',
    '`encoding` says what the Avro side is: `binary` (the plain binary body, as in an Avro file block),',
    '`single` (Avro single-object encoding: C3 01, the 8-byte CRC-64-AVRO fingerprint of the schema, then the',
    "binary body; `to_json` checks the fingerprint is this schema's) or `textual` (Avro's JSON encoding).",
    '',
    'The schema is read and compiled once when the processor starts (on every pipeline thread); a schema',
    'that does not compile stops the stream from starting. A message that does not fit (not matching the',
    "schema, truncated, left-over bytes, not JSON, another schema's fingerprint) is flagged with an error",
    'that starts with `avro processor` and passed on unchanged, for `catch`, `switch` or a dead letter output.',
    '',
    'Messages framed for a schema registry (magic byte 0 and a 4-byte schema id before the body) are not',
    'plain Avro: they fail with an error that says so. Strip the 5-byte prefix first, or decode them with',
    'the registry.',
  ].join('\n'),
  config: spec,
  examples: [
    `pipeline:
  processors:
    - avro:
        operator: to_json
        encoding: binary
        schema_path: file:///etc/schemas/order.avsc
`,
    `pipeline:
  processors:
    - avro:
        operator: from_json
        encoding: single
        schema: |
          {"type": "record", "name": "Reading", "namespace": "sensors",
           "fields": [{"name": "id", "type": "string"},
                      {"name": "value", "type": "double"},
                      {"name": "unit", "type": ["null", "string"], "default": null}]}
`,
  ],
  factory: async (conf, ctx) => {
    let schema: AvroSchema;
    try {
      schema = AvroSchema.parse(await loadSchemaText(conf));
    } catch (err) {
      const code = conf.schema ? ErrorCode.ConfigLint : ErrorCode.ConfigFile;
      throw new SvcError(code, `${ctx.path}: avro processor: ${errorMessage(err)}`, { cause: err });
    }
    ctx.logger.debug(`Avro schema ${schema.name} compiled (fingerprint ${schema.fingerprintHex})${ctx.isWorker ? ' on a worker thread' : ''}`);
    const name = `avro processor (${conf.operator}, ${conf.encoding})`;
    return new AvroProcessor(conf.operator, encodingOf(conf.encoding, schema), name, ctx.logger);
  },
};

registerProcessor('avro', avroProcessor);
