/** The `bounds_check` processor (Benthos'): drops batches whose size or message sizes are out of bounds. */
import { f, registerProcessor } from '@svc/engine';

const spec = f.object({
  max_part_size: f
    .int()
    .default(1024 * 1024 * 1024)
    .describe('The maximum size of a message to allow (in bytes)'),
  min_part_size: f.int().default(1).describe('The minimum size of a message to allow (in bytes)'),
  max_parts: f.int().default(100).describe('The maximum size of message batches to allow (in message count)').advanced(),
  min_parts: f.int().default(1).describe('The minimum size of message batches to allow (in message count)').advanced(),
});

registerProcessor('bounds_check', {
  summary: 'Drops (and acks) a batch with too few or too many messages, or with a message too small or too large.',
  description: 'A guard against empty or oversized data: the whole batch is dropped when any of its bounds is broken, as Benthos does (logged at debug).',
  config: spec,
  examples: ['pipeline:\n  processors:\n    - bounds_check:\n        max_part_size: 1048576\n        min_part_size: 2\n'],
  factory: (conf, ctx) => {
    const log = ctx.logger;
    return {
      process(batch) {
        if (batch.length < conf.min_parts) {
          log.debug(`Rejecting message due to message parts below minimum (${conf.min_parts}): ${batch.length}`);
          return [];
        }
        if (batch.length > conf.max_parts) {
          log.debug(`Rejecting message due to message parts exceeding limit (${conf.max_parts}): ${batch.length}`);
          return [];
        }
        for (const m of batch) {
          const size = m.byteLength;
          if (size > conf.max_part_size || size < conf.min_part_size) {
            log.debug(`Rejecting message due to message part size (${conf.min_part_size} -> ${conf.max_part_size}): ${size}`);
            return [];
          }
        }
        return [batch];
      },
    };
  },
});
