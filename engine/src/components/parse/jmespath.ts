import { f, JsonNumber, registerProcessor } from '@svc/engine';
import jmespath from 'jmespath';
import { goValue } from './go-value.js';

/** go-jmespath sees float64s: Benthos turns every number of the document into one first. */
function floats(v: unknown): unknown {
  if (v instanceof JsonNumber) return v.value;
  if (Array.isArray(v)) return v.map(floats);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      // an own `__proto__` key must be defined, not assigned; other keys are assigned, which keeps the object fast
      if (k === '__proto__') Object.defineProperty(out, k, { value: floats(x), enumerable: true, writable: true, configurable: true });
      else out[k] = floats(x);
    }
    return out;
  }
  return v;
}

/**
 * `jmespath`: replaces each message with the result of a JMESPath query on it (Benthos' jmespath
 * processor, on the reference JavaScript implementation, jmespath 0.16). Numbers are float64s.
 */
registerProcessor('jmespath', {
  summary: 'Executes a JMESPath query on JSON documents and replaces the message with the resulting document.',
  description:
    "Numbers are read as 64-bit floats, as Benthos' JMESPath does. A message that is not JSON, or on which the query fails, is flagged and passed on.",
  config: f.object({ query: f.string().describe('The JMESPath query to apply to messages.') }),
  examples: ["pipeline:\n  processors:\n    - jmespath:\n        query: \"locations[?state == 'WA'].name | sort(@) | {Cities: join(', ', @)}\"\n"],
  factory: (conf) => {
    try {
      jmespath.compile(conf.query);
    } catch (err) {
      throw new Error(`failed to compile JMESPath query: ${(err as Error).message}`);
    }
    return {
      process(batch) {
        for (const m of batch) {
          let doc: unknown;
          try {
            doc = floats(m.json());
          } catch (err) {
            m.setError(err);
            continue;
          }
          try {
            m.setJson(goValue(jmespath.search(doc, conf.query)));
          } catch (err) {
            // Benthos cleared the numbers of the document in place before the query failed
            m.setJson(goValue(doc));
            m.setError(err);
          }
        }
        return [batch];
      },
    };
  },
});
