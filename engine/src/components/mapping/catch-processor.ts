/** The `catch` processor: handles the messages that failed, then clears their error flag. */
import { f, registerProcessor, type Batch, type Message } from '@svc/engine';
import { runPerMessage } from './run-processors.js';

const spec = f.array(f.component('processor')).describe('The processors to run, in order, on each message flagged with an error.');

const flagged = (m: Message): boolean => m.error !== undefined;

function cleared(out: Batch): Batch[] {
  for (const m of out) m.error = undefined;
  return out.length > 0 ? [out] : [];
}

registerProcessor('catch', {
  summary: 'Runs processors on the messages that failed a previous step, then clears their error flag.',
  description: [
    'Messages flagged with an error (a failed `mapping`, a processor that threw) go through the processors,',
    'each message on its own, in order; within the block `error()` still gives the error text. When they leave',
    'the block their error flag is cleared, as Benthos does. Messages that are not flagged pass untouched.',
    '',
    'To keep the flag (and route failed messages at the output, e.g. to a dead letter queue), use a `switch`',
    'processor with `check: errored()` instead.',
  ].join('\n'),
  config: spec,
  examples: [
    `pipeline:
  processors:
    - mapping: 'root = this.payload.parse_json()'
    - catch:
        - log:
            level: WARN
            message: 'not JSON, kept as it was: \${! error() }'
        - mapping: 'root = {"raw": content().string()}'
`,
  ],
  factory: async (configs, ctx) => {
    const processors = await ctx.buildProcessors(configs);
    return {
      process(batch) {
        if (!batch.some(flagged)) return [batch];
        const r = runPerMessage(processors, batch, flagged);
        if (r instanceof Promise) return r.then(cleared);
        return cleared(r);
      },
    };
  },
});
