import { f, JsonNumber, type Message, registerProcessor } from '@svc/engine';
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
    // jmespath.js parses a query on every search (and builds a runtime): a batch is searched once,
    // each document through `map`, which visits the query with the document as `@` exactly as a
    // search of that document does (the query alone compiled first, so it is whole inside the parens).
    const perBatch = `map(&(${conf.query}), @)`;
    try {
      jmespath.compile(conf.query);
      jmespath.compile(perBatch);
    } catch (err) {
      throw new Error(`failed to compile JMESPath query: ${(err as Error).message}`);
    }
    return {
      process(batch) {
        const messages: Message[] = [];
        const docs: unknown[] = [];
        for (const m of batch) {
          try {
            docs.push(floats(m.json()));
            messages.push(m);
          } catch (err) {
            m.setError(err);
          }
        }
        let results: unknown[] | undefined;
        try {
          results = jmespath.search(docs, perBatch) as unknown[];
        } catch {
          // a document the query fails on: search them one by one to flag just those
        }
        for (let i = 0; i < messages.length; i++) {
          const m = messages[i]!;
          if (results !== undefined) {
            m.setJson(goValue(results[i]));
            continue;
          }
          try {
            m.setJson(goValue(jmespath.search(docs[i], conf.query)));
          } catch (err) {
            // Benthos cleared the numbers of the document in place before the query failed
            m.setJson(goValue(docs[i]));
            m.setError(err);
          }
        }
        return [batch];
      },
    };
  },
});
