import { f, registerProcessor } from '@svc/engine';

/** `noop`: passes batches through unchanged. */
registerProcessor('noop', {
  summary: 'Does nothing: passes every batch through unchanged.',
  config: f.object({}),
  examples: ['pipeline:\n  processors:\n    - noop: {}\n'],
  factory: () => ({ process: (batch) => [batch] }),
});
