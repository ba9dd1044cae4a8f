/**
 * `json_schema(schema)`: the value when it conforms to the JSON Schema, else an error with
 * Benthos' text (gojsonschema's words, see ../json-schema.ts). A constant schema is compiled
 * when the mapping compiles, so a bad one is a mapping error there, as in Benthos; a schema
 * from the message is compiled per call through a small cache.
 */
import { ArgumentError, QueryError, argumentError } from '../errors.js';
import { JsonSchema } from '../json-schema.js';
import { asString, defineMethod } from '../registry.js';
import { errorMessage } from '../../errors.js';

const cache = new Map<string, JsonSchema>();
const CACHE_MAX = 64;

/** Benthos reports a schema that does not compile as it is: no method name, no target. */
function compile(text: string, atCompile: boolean): JsonSchema {
  let schema = cache.get(text);
  if (schema === undefined) {
    try {
      schema = JsonSchema.parse(text);
    } catch (err) {
      const message = `failed to parse json schema definition: ${errorMessage(err)}`;
      throw atCompile ? new ArgumentError(message) : argumentError(message);
    }
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
    cache.set(text, schema);
  }
  return schema;
}

function conform(schema: JsonSchema, v: unknown): unknown {
  const failures = schema.check(v);
  if (failures !== undefined) throw new QueryError(failures);
  return v;
}

defineMethod('json_schema', {
  params: [{ name: 'schema', type: 'string' }],
  build(a) {
    if (a.isConst(0)) {
      const schema = compile(asString(a.const(0)), true);
      return (v) => conform(schema, v);
    }
    return (v, c, self) => conform(compile(asString(a.get(0, c, self)), false), v);
  },
});
