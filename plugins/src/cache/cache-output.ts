/**
 * `cache` output (Benthos'): stores each message in the cache resource `target` under its
 * interpolated `key` (with its `ttl`, if any). A write resolves once every message of the batch is
 * set, and rejects (the batch is nacked and replayed) when the cache fails or a key or ttl cannot
 * be interpolated.
 */
import { compileInterpolation, errorMessage, f, maxInFlightField, parseDuration, registerOutput } from '@svc/engine';
import { itemTtlSpec } from './item-ttl.js';

const spec = f.object({
  target: f.string().describe('The target cache to store messages in.'),
  key: f
    .string()
    .interpolated()
    .default('${!count("items")}-${!timestamp_unix_nano()}')
    .describe('The key to store messages by, function interpolation should be used in order to derive a unique key for each message.'),
  ttl: itemTtlSpec,
  max_in_flight: maxInFlightField(64),
});

registerOutput('cache', {
  summary: 'Stores each message in a cache.',
  description:
    'The `target` field must reference a configured cache resource label (`cache_resources`); use interpolations in `key` to make a unique key per message.',
  config: spec,
  examples: [
    `output:
  cache:
    target: foo
    key: \${!json("document.id")}
cache_resources:
  - label: foo
    memory:
      default_ttl: 60s
`,
  ],
  factory: (conf, ctx) => {
    const cache = ctx.resources.get('cache', conf.target);
    const key = compileInterpolation(conf.key);
    const ttl = conf.ttl === undefined ? undefined : compileInterpolation(conf.ttl);
    return {
      async write(batch) {
        const items: Array<[string, Buffer, number | undefined]> = [];
        batch.forEach((m, i) => {
          const x = { batch, index: i };
          let t: number | undefined;
          if (ttl) {
            let text: string;
            try {
              text = ttl.value(m, x);
            } catch (err) {
              throw new Error(`ttl interpolation error: ${errorMessage(err)}`);
            }
            if (text !== '') {
              try {
                t = parseDuration(text);
              } catch (err) {
                throw new Error(`ttl field: ${errorMessage(err)}`);
              }
            }
          }
          let k: string;
          try {
            k = key.value(m, x);
          } catch (err) {
            throw new Error(`key interpolation error: ${errorMessage(err)}`);
          }
          items.push([k, m.content, t]);
        });
        for (const [k, v, t] of items) await cache.set(k, v, t);
      },
    };
  },
});
