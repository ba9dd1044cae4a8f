/** The `try` processor: runs processors on each message until one of them fails on it. */
import { f, registerProcessor, type Message } from '@svc/engine';
import { runPerMessage } from './run-processors.js';

const spec = f.array(f.component('processor')).describe('The processors to run, in order, on each message that has not failed.');

const unflagged = (m: Message): boolean => m.error === undefined;

registerProcessor('try', {
  summary: 'Runs processors on each message, skipping the rest for a message once one of them fails.',
  description: [
    'The processors are applied to each message of the batch on its own, in order, as long as the message is',
    'not flagged with an error: once a processor fails on a message (or when it arrives already flagged) the',
    'remaining processors of the block skip it. The message keeps its error flag, so a `catch` after the',
    '`try` can handle it, or a `switch` output can route it to a dead letter queue.',
  ].join('\n'),
  config: spec,
  examples: [
    `pipeline:
  processors:
    - try:
        - mapping: 'root = this.merge({"id": this.user.id.number()})'
        - mutation: 'root.seen = now()'
    - catch:
        - log:
            level: ERROR
            message: 'could not enrich \${! content() }: \${! error() }'
`,
  ],
  factory: async (configs, ctx) => {
    const processors = await ctx.buildProcessors(configs);
    return {
      process(batch) {
        if (!batch.some(unflagged)) return [batch];
        const r = runPerMessage(processors, batch, unflagged);
        if (r instanceof Promise) return r.then((out) => (out.length > 0 ? [out] : []));
        return r.length > 0 ? [r] : [];
      },
    };
  },
});
