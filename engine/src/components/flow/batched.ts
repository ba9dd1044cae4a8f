import { batchPolicySpec, f, registerInput, type ComponentConfig } from '@svc/engine';

/**
 * `batched`: a child input with a batching policy applied to what it reads (Benthos' batched
 * input). The policy is the runtime's own input `batching`, given to the child; the child's own
 * policy, if it has one, is replaced.
 */
registerInput('batched', {
  summary: 'Consumes data from a child input and applies a batching policy to the stream.',
  description:
    'Batching at the input level is sometimes useful for processing across micro-batches, and can also sometimes be a useful performance trick. However, most inputs are fine without it so unless you have a specific plan for batching this component is not worth using.',
  config: f.object({
    child: f.component('input').describe('The child input.'),
    policy: batchPolicySpec.describe('The batching policy applied to the child input.'),
  }),
  examples: ['input:\n  batched:\n    child:\n      stdin: {}\n    policy:\n      count: 10\n      period: 1s\n'],
  factory: async (conf, ctx) => {
    const child: ComponentConfig = { ...conf.child, config: { ...(conf.child.config as object), batching: conf.policy } };
    return ctx.buildInput(child);
  },
});
