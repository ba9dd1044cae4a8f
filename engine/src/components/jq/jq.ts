import { f, registerProcessor } from '@svc/engine';
import { JqProgram } from './program.js';
import { encode, fromDocument, type JqObject, toDocument, type Value } from './value.js';

/** Go's json.Marshal escapes these inside strings; output_raw writes non-strings with it. */
const goHtmlEscape = (s: string) => s.replace(/[<>&]/g, (c) => '\\u00' + c.charCodeAt(0).toString(16));

/**
 * `jq`: replaces each message with what a jq query emits for it (Benthos' jq processor, whose
 * gojq this interpreter follows): one value replaces the message, several become an array, none
 * drops it; with `output_raw` strings are written unquoted and all values concatenated. A query
 * that fails flags the message and leaves it as it was.
 */
registerProcessor('jq', {
  summary: 'Transforms and filters messages using jq queries.',
  description:
    'The query runs on each message as a JSON document (or, with `raw`, as a string), with the metadata in `$metadata` and the environment in `$ENV`. ' +
    'If the query emits no value the message is dropped; several values make the message an array of them. ' +
    "Integers stay exact at any size and other numbers are 64-bit floats, as in gojq (Benthos' jq). " +
    'The jq language is implemented here with the built-ins gojq has (regular expressions in RE2 syntax, dates as ISO 8601); `input`, `inputs`, `debug`, `stderr`, `halt`, `$__loc__`, `JOIN`, `fromstream`, `strptime`, `significand` and the rarer math functions (gamma, Bessel, frexp...), `?//` and modules are not, and a query that names one is refused when the config is linted.',
  config: f.object({
    query: f
      .string()
      .validate((q) => {
        try {
          JqProgram.compile(q);
          return undefined;
        } catch (err) {
          return `error parsing jq query: ${(err as Error).message}`;
        }
      })
      .describe('The jq query to filter and transform messages with.'),
    raw: f.bool().default(false).advanced().describe('Whether to process the input as a raw string instead of as JSON.'),
    output_raw: f
      .bool()
      .default(false)
      .advanced()
      .describe('Whether to output raw text (unquoted) instead of JSON strings when the emitted values are string types.'),
  }),
  examples: [`pipeline:\n  processors:\n    - jq:\n        query: '{Cities: .locations | map(select(.state == "WA").name) | sort | join(", ") }'\n`],
  factory: (conf) => {
    const program = JqProgram.compile(conf.query);
    return {
      process(batch) {
        const out = [];
        for (const m of batch) {
          let emitted: Value[];
          try {
            const input: Value = conf.raw ? m.content.toString() : fromDocument(m.json());
            const meta: JqObject = new Map();
            for (const [k, v] of m.metaEntries()) meta.set(k, fromDocument(v));
            emitted = program.run(input, meta);
          } catch (err) {
            m.setError(err);
            out.push(m);
            continue;
          }
          if (conf.output_raw) {
            if (emitted.length === 0) continue;
            m.content = Buffer.from(emitted.map((v) => (typeof v === 'string' ? v : goHtmlEscape(encode(v)))).join(''));
          } else if (emitted.length === 0) continue;
          else m.setJson(toDocument(emitted.length === 1 ? emitted[0]! : emitted));
          out.push(m);
        }
        return out.length === 0 ? [] : [out];
      },
    };
  },
});
