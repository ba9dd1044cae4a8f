import { f, registerProcessor, runProcessors } from '@svc/engine';

/** `processors`: a list of processors run as one (Benthos' processors), for a resource or a branch. */
registerProcessor('processors', {
  summary: 'A processor grouping several sub-processors.',
  description:
    'This processor is useful in situations where you want to collect several processors under a single resource identifier, whether it is for making your configuration easier to read and navigate, or for improving the testability of your configuration. The behaviour of child processors will match exactly the behaviour they would have under any other processors block.',
  config: f.array(f.component('processor')).default([]).describe('The processors to run, in order.'),
  examples: ["processor_resources:\n  - label: foo_proc\n    processors:\n      - mapping: 'root = this.foo'\n      - mutation: 'root.bar = \"baz\"'\n"],
  factory: async (configs, ctx) => {
    const children = await ctx.buildProcessors(configs);
    return {
      process: (batch) => (batch.length === 0 ? [] : runProcessors(children, batch)),
      async close() {
        for (const c of children) await c.close?.();
      },
    };
  },
});
