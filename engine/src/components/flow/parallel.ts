/** The `parallel` processor (Benthos'): runs processors on each message of a batch on its own, at the same time. */
import { f, registerProcessor, type Batch } from '@svc/engine';
import { runProcessors } from '../mapping/run-processors.js';

const spec = f.object({
  cap: f.int().default(0).describe('The most messages processed at a time (0: the whole batch).'),
  processors: f.array(f.component('processor')).describe('The processors to apply to each message.'),
});

registerProcessor('parallel', {
  summary: 'Runs processors on each message of a batch as a batch of its own, up to `cap` at a time.',
  description: [
    'Pays where the processors wait on a network (`http`, `cache` on Redis): the messages of a batch are',
    'processed concurrently, each as a batch of one, and come out as one batch in their original order.',
  ].join('\n'),
  config: spec,
  examples: [
    `pipeline:
  processors:
    - parallel:
        cap: 8
        processors:
          - http:
              url: http://localhost:8080/enrich
              verb: POST
`,
  ],
  factory: async (conf, ctx) => {
    const processors = await ctx.buildProcessors(conf.processors);
    return {
      async process(batch) {
        const results: Batch[][] = new Array<Batch[]>(batch.length);
        const width = conf.cap <= 0 || batch.length < conf.cap ? batch.length : conf.cap;
        let next = 0;
        const worker = async (): Promise<void> => {
          while (next < batch.length) {
            const i = next++;
            results[i] = await runProcessors(processors, [batch[i]!]);
          }
        };
        await Promise.all(Array.from({ length: width }, worker));
        const out: Batch = [];
        for (const r of results) for (const b of r) for (const m of b) out.push(m);
        return out.length > 0 ? [out] : [];
      },
    };
  },
});
