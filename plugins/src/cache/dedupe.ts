/**
 * `dedupe` processor (Benthos'): adds each message's interpolated `key` to the cache resource
 * `cache`; a message whose key was there already is dropped. When the cache fails (Redis down) the
 * message is dropped too (`drop_on_err`, the default) or flagged with the error and kept. A key
 * that cannot be interpolated drops its message, as in Benthos.
 */
import { compileInterpolation, errorMessage, f, registerProcessor, type Batch, type Message } from '@svc/engine';
import { eachMessage } from './per-message.js';

const spec = f.object({
  cache: f.string().describe('The `cache` resource to target with this processor.'),
  key: f.string().interpolated().describe('An interpolated string yielding the key to deduplicate by for each message.'),
  drop_on_err: f.bool().default(true).describe('Whether messages should be dropped when the cache returns a general error such as a network issue.'),
});

/** What dedupe stores under each key (Benthos' `t`). */
const MARK = Buffer.from('t');

registerProcessor('dedupe', {
  summary: 'Deduplicates messages by storing a key value in a cache using the `add` operator. If the key already exists within the cache it is dropped.',
  description: [
    'Caches must be configured as resources (`cache_resources`).',
    '',
    'This processor acts on individual messages only; to deduplicate on behalf of a batch (or window) of messages use the `cache` processor instead.',
    '',
    'Deduplicating with a cache that outlives the stream (Redis) voids at-least-once delivery: a key stays in the cache even when its message then fails to reach the output, and a replay of it is dropped.',
  ].join('\n'),
  config: spec,
  // Its caches live on the main thread: from a worker, the whole batch makes one hop there instead
  // of each cache operation making its own.
  mainThread: true,
  examples: [
    `pipeline:
  processors:
    - dedupe:
        cache: keycache
        key: \${! meta("kafka_key") }
cache_resources:
  - label: keycache
    memory:
      default_ttl: 60s
`,
  ],
  factory: (conf, ctx) => {
    if (conf.key === '') throw new Error('dedupe key must not be empty');
    const cache = ctx.resources.get('cache', conf.cache);
    const key = compileInterpolation(conf.key);
    return {
      process(batch) {
        const kept: Message[] = [];
        const one = (i: number): Promise<void> | void => {
          const m = batch[i]!;
          let k: string;
          try {
            k = key.value(m, { batch, index: i });
          } catch (err) {
            // As Benthos: the message is dropped (its error is logged, nothing else can see it).
            ctx.logger.error(`key interpolation error: ${errorMessage(err)}`);
            return;
          }
          const failed = (err: unknown): void => {
            ctx.logger.error(`Cache error: ${errorMessage(err)}`);
            if (conf.drop_on_err) return;
            m.setError(err);
            kept.push(m);
          };
          const added = (a: boolean): void => void (a && kept.push(m));
          try {
            const r = cache.add(k, MARK);
            if (r instanceof Promise) return r.then(added, failed);
            added(r);
          } catch (err) {
            failed(err);
          }
        };
        const done = (): Batch[] => (kept.length === 0 ? [] : [kept.length === batch.length ? batch : kept]);
        const r = eachMessage(batch, one);
        return r instanceof Promise ? r.then(done) : done();
      },
    };
  },
});
