/** The `for_each` processor (Benthos'): runs processors on each message of a batch as a batch of its own. */
import { f, registerProcessor } from '@svc/engine';
import { runPerMessage } from '../mapping/run-processors.js';

const spec = f.array(f.component('processor')).default([]).describe('The processors to run on each message on its own.');

const every = (): boolean => true;

registerProcessor('for_each', {
  summary: 'Runs processors on each message of a batch on its own, one after the other.',
  description: [
    'Each message goes through the processors as a batch of one, in order, so that processors that work on',
    'whole batches (`archive`, `group_by`, batch-wide mappings) see one message at a time. What comes out is one',
    'batch again, in order; when every message was filtered, nothing is passed on.',
  ].join('\n'),
  config: spec,
  examples: [
    `pipeline:
  processors:
    - for_each:
        - mapping: 'root.size = batch_size()'
`,
  ],
  factory: async (configs, ctx) => {
    const processors = await ctx.buildProcessors(configs);
    return {
      async process(batch) {
        const out = await runPerMessage(processors, batch, every);
        return out.length > 0 ? [out] : [];
      },
    };
  },
});
