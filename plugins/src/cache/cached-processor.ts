/**
 * `cached` processor (Benthos'): per message, the result of `processors` on it is kept in the
 * cache resource `cache` under the interpolated `key`; while the key is there the processors are
 * skipped and the message becomes the cached result. Results are stored in Benthos' format
 * (version 1: big-endian uint32 version, count, then each message's length and bytes), so svc and
 * Benthos can share a Redis cache. `skip_on` (a mapping giving a bool, run on each result batch)
 * keeps a result out of the cache.
 */
import { compileInterpolation, compileMapping, errorMessage, f, parseDuration, registerProcessor, runProcessors, type Batch, type Message } from '@svc/engine';

const spec = f.object({
  cache: f.string().describe('The cache resource to read and write processor results from.'),
  skip_on: f.mapping().optional().describe('A condition that can be used to skip caching the results from the processors (e.g. `errored()`).'),
  key: f
    .string()
    .interpolated()
    .describe(
      'A key to be resolved for each message, if the key already exists in the cache then the cached result is used, otherwise the processors are applied and the result is cached under this key.',
    ),
  ttl: f
    .string()
    .interpolated()
    .optional()
    .describe('An optional expiry period to set for each cache entry. Some caches only have a general TTL and will therefore ignore this setting.'),
  processors: f.array(f.component('processor')).describe('The list of processors whose result will be cached.'),
});

const u32 = (n: number): Buffer => {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(n);
  return b;
};

/** Benthos' v1 serialisation of a result batch. */
export function serialiseResult(batch: Message[]): Buffer {
  const parts: Buffer[] = [u32(1), u32(batch.length)];
  for (const m of batch) parts.push(u32(m.content.length), m.content);
  return Buffer.concat(parts);
}

/** The messages of a cached result, each a copy of `msg` (its metadata) with the cached bytes. */
export function resultToBatch(msg: Message, data: Buffer): Message[] {
  if (data.length < 4) throw new Error('failed to extract serialization format version: message is too small to extract number');
  const version = data.readUInt32BE(0);
  if (version !== 1) throw new Error(`invalid format version: ${version}`);
  if (data.length < 8) throw new Error('failed to extract batch size: message is too small to extract number');
  const n = data.readUInt32BE(4);
  let at = 8;
  const out: Message[] = [];
  for (let i = 0; i < n; i++) {
    if (data.length < at + 4) throw new Error(`failed to extract message ${i} size: message is too small to extract number`);
    const size = data.readUInt32BE(at);
    at += 4;
    if (data.length < at + size) throw new Error(`failed to extract message ${i} size: input data ended unexpectedly`);
    const m = msg.copy();
    m.content = data.subarray(at, at + size);
    out.push(m);
    at += size;
  }
  return out;
}

registerProcessor('cached', {
  summary:
    'Cache the result of applying one or more processors to messages identified by a key. If the key already exists within the cache the contents of the message will be replaced with the cached result instead of applying the processors. This component is therefore useful in situations where an expensive set of processors need only be executed periodically.',
  description:
    'The format of the data when stored within the cache is a custom and versioned schema chosen to balance performance and storage space (the same as Benthos). It is therefore not possible to point this processor to a cache that is pre-populated with data that this processor has not created itself.',
  config: spec,
  examples: [
    `pipeline:
  processors:
    - cached:
        key: static_foo
        cache: foo_cache
        ttl: 10m
        processors:
          - mapping: 'root.enriched_at = now()'
cache_resources:
  - label: foo_cache
    memory: {}
`,
  ],
  factory: async (conf, ctx) => {
    if (!ctx.resources.has('cache', conf.cache)) throw new Error(`cache named ${conf.cache} not found`);
    const cache = ctx.resources.get('cache', conf.cache);
    const key = compileInterpolation(conf.key);
    const ttl = conf.ttl === undefined ? undefined : compileInterpolation(conf.ttl);
    const skipOn = conf.skip_on === undefined ? undefined : compileMapping(conf.skip_on);
    const processors = await ctx.buildProcessors(conf.processors);

    const shouldSkip = (b: Batch): boolean => {
      if (!skipOn || b.length === 0) return false;
      try {
        const r = skipOn.exec(b[0]!, { batch: b, index: 0 });
        if (typeof r.root !== 'boolean') throw new Error(`skip_on did return boolean result: ${String(r.root)}`);
        return r.root;
      } catch (err) {
        ctx.logger.error(`skip_on check failed: ${errorMessage(err)}, caching will be skipped as a precaution`);
        return true;
      }
    };

    /** One message: its cached result, or the processors' (cached unless skipped). */
    async function one(batch: Batch, i: number): Promise<Message[]> {
      const m = batch[i]!;
      let k: string;
      let t: number | undefined;
      try {
        k = key.value(m, { batch, index: i });
      } catch (err) {
        throw new Error(`failed to interpolate key expression: ${errorMessage(err)}`);
      }
      if (ttl) {
        let text: string;
        try {
          text = ttl.value(m, { batch, index: i });
        } catch (err) {
          throw new Error(`failed to interpolate ttl expression: ${errorMessage(err)}`);
        }
        try {
          t = parseDuration(text);
        } catch (err) {
          throw new Error(`failed to parse ttl expression: ${errorMessage(err)}`);
        }
      }
      const hit = await cache.get(k);
      if (hit !== undefined) {
        try {
          return resultToBatch(m, hit);
        } catch (err) {
          throw new Error(`failed to parse cached result, this indicates the data was not set by this processor: ${errorMessage(err)}`);
        }
      }
      const results = await runProcessors(processors, [m]);
      let cacheIt = true;
      const collapsed: Message[] = [];
      for (const b of results) {
        cacheIt = !shouldSkip(b) && cacheIt;
        collapsed.push(...b);
      }
      if (cacheIt) {
        try {
          await cache.set(k, serialiseResult(collapsed), t);
        } catch (err) {
          ctx.logger.error(`failed to write result to cache: ${errorMessage(err)}`);
        }
      }
      return collapsed;
    }

    return {
      async process(batch) {
        const out: Message[] = [];
        for (let i = 0; i < batch.length; i++) {
          try {
            out.push(...(await one(batch, i)));
          } catch (err) {
            // As a Benthos processor's error: the message goes on, flagged.
            batch[i]!.setError(err);
            out.push(batch[i]!);
          }
        }
        return out.length ? [out] : [];
      },
    };
  },
});
