/**
 * `cache` processor (Benthos'): per message, `operator` on the cache resource `resource` with the
 * interpolated `key`, `value` and `ttl`. `get` replaces the content with the value, `exists` with
 * `true`/`false`; a failure flags the message with Benthos' words (`key already exists: k`,
 * `operator failed for key 'k': key does not exist`) and it goes on.
 */
import { compileInterpolation, errorMessage, f, parseDuration, registerProcessor, type Batch, type Cache, type ExecContext, type Message } from '@svc/engine';
import { itemTtlSpec } from './item-ttl.js';
import { eachMessage } from './per-message.js';

const spec = f.object({
  resource: f.string().describe('The `cache` resource to target with this processor.'),
  operator: f.enum(['set', 'add', 'get', 'delete', 'exists']).describe('The operation to perform with the cache.'),
  key: f.string().interpolated().describe('A key to use with the cache.'),
  value: f.string().interpolated().optional().describe('A value to use with the cache (when applicable).'),
  ttl: itemTtlSpec,
});

/** What Benthos' caches answer for a key that is not there. */
const NOT_FOUND = 'key does not exist';
const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');

registerProcessor('cache', {
  summary: 'Performs operations against a cache resource for each message, allowing you to store or retrieve data within message payloads.',
  description: [
    'For use cases where you wish to cache the result of processors consider using the `cached` processor instead.',
    '`key`, `value` and `ttl` are interpolated for each message.',
    '',
    '- `set`: set a key in the cache to a value; an existing key is overwritten.',
    "- `add`: set a key only if it does not exist; otherwise the message is flagged with a 'key already exists' error, which processor error handling can detect.",
    '- `get`: replace the message with the cached value; a missing key flags the message with an error.',
    '- `delete`: delete a key; a missing key is not an error (for most caches).',
    '- `exists`: replace the message with `true` or `false`.',
  ].join('\n'),
  config: spec,
  // Its caches live on the main thread: from a worker, the whole batch makes one hop there instead
  // of each cache operation making its own.
  mainThread: true,
  examples: [
    `pipeline:
  processors:
    - cache:
        resource: foocache
        operator: add
        key: '\${! json("message.id") }'
        value: "storeme"
    - mapping: root = if errored() { deleted() }
cache_resources:
  - label: foocache
    memory: {}
`,
  ],
  factory: (conf, ctx) => {
    const cache: Cache = ctx.resources.get('cache', conf.resource);
    const key = compileInterpolation(conf.key);
    const value = compileInterpolation(conf.value ?? '');
    const ttl = conf.ttl === undefined ? undefined : compileInterpolation(conf.ttl);
    const op = conf.operator;

    function one(batch: Batch, i: number): Promise<void> | void {
      const m = batch[i]!;
      const x: ExecContext = { batch, index: i };
      let k: string;
      let v: Buffer;
      let t: number | undefined;
      try {
        k = key.value(m, x);
      } catch (err) {
        return m.setError(`key interpolation error: ${errorMessage(err)}`);
      }
      try {
        v = value.bytes(m, x);
      } catch (err) {
        return m.setError(`value interpolation error: ${errorMessage(err)}`);
      }
      if (ttl) {
        let text: string;
        try {
          text = ttl.value(m, x);
        } catch (err) {
          return m.setError(`ttl interpolation error: ${errorMessage(err)}`);
        }
        if (text !== '') {
          try {
            t = parseDuration(text);
          } catch (err) {
            return m.setError(`ttl must be a duration: ${errorMessage(err)}`);
          }
        }
      }
      const failed = (err: unknown) => m.setError(`operator failed for key '${k}': ${errorMessage(err)}`);
      try {
        const r = run(m, k, v, t);
        if (r instanceof Promise) return r.catch(failed);
      } catch (err) {
        failed(err);
      }
    }

    function run(m: Message, k: string, v: Buffer, t: number | undefined): Promise<void> | void {
      switch (op) {
        case 'set':
          return cache.set(k, v, t);
        case 'add':
          return then(cache.add(k, v, t), (added) => {
            if (!added) m.setError(`key already exists: ${k}`);
          });
        case 'get':
          return then(cache.get(k), (got) => {
            if (got === undefined) m.setError(`operator failed for key '${k}': ${NOT_FOUND}`);
            else m.content = got;
          });
        case 'delete':
          return cache.delete(k);
        case 'exists': {
          // As Benthos: any failure to read counts as not there.
          const found = (got: Buffer | undefined) => void (m.content = got !== undefined ? TRUE : FALSE);
          let got: Promise<Buffer | undefined> | Buffer | undefined;
          try {
            got = cache.get(k);
          } catch {
            return found(undefined);
          }
          return got instanceof Promise ? got.then(found, () => found(undefined)) : found(got);
        }
      }
    }

    return {
      process(batch) {
        const r = eachMessage(batch, (i) => one(batch, i));
        return r instanceof Promise ? r.then(() => [batch]) : [batch];
      },
    };
  },
});

/** `fn` on a value that may still be coming. */
function then<T>(v: Promise<T> | T, fn: (v: T) => void): Promise<void> | void {
  return v instanceof Promise ? v.then(fn) : fn(v);
}
