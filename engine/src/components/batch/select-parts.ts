/** The `select_parts` processor (Benthos'): keeps the messages of a batch at the given indexes. */
import { f, registerProcessor, type Batch } from '@svc/engine';

const spec = f.object({
  parts: f
    .array(f.int())
    .default([])
    .describe(
      'An array of message indexes of a batch. Indexes can be negative, and if so the part will be selected from the end counting backwards starting from -1.',
    ),
});

registerProcessor('select_parts', {
  summary: 'Makes a new batch of copies of the messages at the given indexes, in the order listed.',
  description: 'Indexes out of range are ignored; an index may be listed twice (the message is copied twice). When nothing is selected the batch is dropped.',
  config: spec,
  examples: ['pipeline:\n  processors:\n    - select_parts:\n        parts: [ 0, -1 ]\n'],
  factory: (conf) => ({
    process(batch) {
      const out: Batch = [];
      for (let index of conf.parts) {
        if (index < 0) index += batch.length;
        if (index < 0 || index >= batch.length) continue;
        out.push(batch[index]!.copy());
      }
      return out.length > 0 ? [out] : [];
    },
  }),
});
