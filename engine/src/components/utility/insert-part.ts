import { compileInterpolation, errorMessage, f, registerProcessor } from '@svc/engine';

const spec = f.object({
  index: f.int().default(-1).describe('The index within the batch to insert the message at (negative: from the end, -1 appends).'),
  content: f.string().default('').interpolated().describe('The content of the message being inserted.'),
});

/**
 * `insert_part`: inserts a message into the batch (Benthos' insert_part). Its content is
 * interpolated against the first message, whose metadata it copies.
 */
registerProcessor('insert_part', {
  summary:
    'Insert a new message into a batch at an index. If the specified index is greater than the length of the existing batch it will be appended to the end.',
  description:
    'The index can be negative, and if so the message will be inserted from the end counting backwards starting from -1. E.g. if index = -1 then the new message will become the last of the batch, if index = -2 then the new message will be inserted before the last message, and so on. If the negative index is greater than the length of the existing batch it will be inserted at the beginning. The new message will have metadata copied from the first pre-existing message of the batch.',
  config: spec,
  examples: ['pipeline:\n  processors:\n    - insert_part:\n        index: 0\n        content: \'{"header":true}\'\n'],
  factory: (conf, ctx) => {
    const content = compileInterpolation(conf.content);
    return {
      process(batch) {
        if (batch.length === 0) return [batch];
        let bytes: Buffer;
        try {
          bytes = content.bytes(batch[0]!, { batch, index: 0 });
        } catch (err) {
          ctx.logger.error(`Content interpolation error: ${errorMessage(err)}`);
          return [batch];
        }
        let index = conf.index;
        if (index < 0) index = Math.max(0, batch.length + index + 1);
        else if (index > batch.length) index = batch.length;
        const inserted = batch[0]!.copy();
        inserted.content = bytes;
        inserted.error = undefined;
        const out = batch.slice();
        out.splice(index, 0, inserted);
        return [out];
      },
    };
  },
});
