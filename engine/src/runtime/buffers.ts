/**
 * The buffers the runtime provides, registered beside `none`: `memory` and `system_window`, with
 * Benthos v4.51's fields, defaults and checks.
 */
import { f, type Infer } from '../config/spec.js';
import { parseDuration } from '../config/duration.js';
import { compileMapping } from '../interp/mapping.js';
import type { Registry } from '../plugin/registry.js';
import type { ComponentContext, ComponentSpec } from '../plugin/types.js';
import { Batcher, batchPolicyFields } from './batch-policy.js';
import { BatchingInput } from './batching-input.js';
import type { StreamBuffer } from './buffer.js';
import { MemoryBufferSource } from './memory-buffer.js';
import { SystemWindowSource } from './window-buffer.js';
import { goDurationString } from './go-duration.js';

const memorySpec = f.object({
  limit: f.int().default(524288000).describe('The maximum buffer size (in bytes) to allow before applying backpressure upstream.'),
  batch_policy: f
    .object({
      enabled: f.bool().default(false).describe('Whether to batch messages as they are flushed.'),
      ...batchPolicyFields,
    })
    .describe('Optionally configure a policy to flush buffered messages in batches.'),
});

const windowSpec = f.object({
  timestamp_mapping: f
    .mapping()
    .default('root = now()')
    .describe(
      'A mapping that gives each message its timestamp (unix seconds, or an RFC 3339 string): `now()` (the default) is the processing time, `this.created_at` an event time. A message whose mapping fails is rejected.',
    ),
  size: f.string().describe('The size of each window (`30s`, `10m`), aligned to the zeroth minute and hour of the UTC clock unless `offset` says otherwise.'),
  slide: f.string().default('').describe('By how much the beginning of each window follows the previous one, making sliding windows; less than `size`.'),
  offset: f.string().default('').describe('An offset of the beginning of each window (`-6h`, `30m`); less than the size and the slide.'),
  allowed_lateness: f
    .string()
    .default('')
    .describe('How long after its end a window waits before it is delivered, so late arrivals are included; less than the size.'),
});

type MemoryConfig = Infer<typeof memorySpec>;
type WindowSpecConfig = Infer<typeof windowSpec>;

/** A duration as Go's time.ParseDuration reads one (a sign allowed), in ns; '' is 0. */
function nanos(name: string, text: string): bigint {
  if (text === '') return 0n;
  const negative = text.startsWith('-');
  let ms: number;
  try {
    ms = parseDuration(negative || text.startsWith('+') ? text.slice(1) : text);
  } catch {
    throw new Error(`failed to parse field '${name}' as duration: time: invalid duration ${JSON.stringify(text)}`);
  }
  const ns = BigInt(Math.round(ms * 1e6));
  return negative ? -ns : ns;
}

const goDuration = goDurationString;

const memory: ComponentSpec<MemoryConfig, StreamBuffer> = {
  summary: 'Stores consumed messages in memory and acknowledges them at the input level.',
  description:
    'The input is read as fast as it gives and each batch acked once stored, so delivery is at most once across a crash: use it for inputs that do not handle back-pressure well, where losing what is stored is acceptable. ' +
    'At `limit` bytes (message contents) the buffer stops reading the input; a batch larger than the limit is dropped. Batches leave in order, as they came, or grouped by `batch_policy` when enabled; a nacked batch goes back to the front. ' +
    'At shutdown everything stored is delivered before the stream ends.',
  config: memorySpec,
  examples: ['buffer:\n  memory:\n    limit: 100000000\n    batch_policy:\n      enabled: true\n      count: 100\n      period: 1s\n'],
  factory: (conf, ctx: ComponentContext) => ({
    async wrap(input, build) {
      const source = new MemoryBufferSource(input, conf.limit, ctx.logger);
      if (!conf.batch_policy.enabled) return source;
      const { enabled: _enabled, ...policy } = conf.batch_policy;
      return new BatchingInput(source, new Batcher(policy, await build.processors(policy.processors)), ctx.logger);
    },
  }),
};

const systemWindow: ComponentSpec<WindowSpecConfig, StreamBuffer> = {
  summary: 'Chops a stream of messages into tumbling or sliding windows of fixed temporal size, following the system clock.',
  description:
    'A message goes in the window of the timestamp `timestamp_mapping` gives it; a window is delivered as one batch once the system clock passes its end (plus `allowed_lateness`), each message with the metadata `window_end_timestamp` (RFC 3339). ' +
    "The input's transactions are acked once their messages were delivered (or dropped: too late for their window, or older than the last two windows under back-pressure). At the end of the input what is pending is rejected, as in Benthos.",
  config: windowSpec,
  examples: ['buffer:\n  system_window:\n    timestamp_mapping: root = this.created_at\n    size: 1h\n'],
  factory: (conf, ctx: ComponentContext) => {
    const size = nanos('size', conf.size);
    const slide = nanos('slide', conf.slide);
    const offset = nanos('offset', conf.offset);
    const allowedLateness = nanos('allowed_lateness', conf.allowed_lateness);
    if (size <= 0n) throw new Error(`failed to parse field 'size' as duration: time: invalid duration ${JSON.stringify(conf.size)}`);
    if (slide >= size) throw new Error(`invalid window slide '${goDuration(slide)}' must be lower than the size '${goDuration(size)}'`);
    if (offset >= size) throw new Error(`invalid offset '${goDuration(offset)}' must be lower than the size '${goDuration(size)}'`);
    if (slide > 0n && offset >= slide) throw new Error(`invalid offset '${goDuration(offset)}' must be lower than the slide '${goDuration(slide)}'`);
    if (allowedLateness >= size) throw new Error(`invalid allowed_lateness '${goDuration(allowedLateness)}' must be lower than the size '${goDuration(size)}'`);
    const mapping = compileMapping(conf.timestamp_mapping);
    return { wrap: (input) => new SystemWindowSource(input, { size, slide, offset, allowedLateness }, mapping, ctx.logger) };
  },
};

export function registerBuffers(r: Registry): void {
  r.register('buffer', 'memory', memory);
  r.register('buffer', 'system_window', systemWindow);
}
