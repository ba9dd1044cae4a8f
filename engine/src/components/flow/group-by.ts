/** The `group_by` processor (Benthos'): splits a batch into groups by checks, each with its own processors. */
import { errorMessage, f, registerProcessor, type Batch, type Processor } from '@svc/engine';
import { CaseCheck } from '../mapping/check.js';
import { runProcessors } from '../mapping/run-processors.js';

const spec = f
  .array(
    f.object({
      check: f.query().describe('A query giving a boolean: true when a message belongs to this group.'),
      processors: f.array(f.component('processor')).default([]).describe('The processors to run on the group once it is formed.'),
    }),
  )
  .describe('The groups, tried in order: a message joins the first whose check passes.');

registerProcessor('group_by', {
  summary: 'Splits a batch into smaller batches by checks, each group with its own processors.',
  description: [
    'Each message joins the first group whose `check` passes (a check that fails counts as false and is',
    'logged); the groups come out as batches of their own, in the order of the groups, each after its',
    'processors, and the messages that joined no group come last, as one batch.',
  ].join('\n'),
  config: spec,
  examples: [
    `pipeline:
  processors:
    - group_by:
        - check: content().contains("this is a foo")
          processors:
            - archive:
                format: tar
            - compress:
                algorithm: gzip
            - mapping: 'meta grouping = "foo"'
`,
  ],
  factory: async (conf, ctx) => {
    const groups: { check: CaseCheck; processors: Processor[] }[] = [];
    for (let i = 0; i < conf.length; i++) {
      let check: CaseCheck;
      try {
        check = new CaseCheck(conf[i]!.check);
      } catch (err) {
        throw new Error(`group '${i}' parse error: ${errorMessage(err)}`);
      }
      groups.push({ check, processors: await ctx.buildProcessors(conf[i]!.processors) });
    }
    const log = ctx.logger;
    return {
      async process(batch) {
        if (batch.length === 0) return [];
        const members: Batch[] = groups.map(() => []);
        const groupless: Batch = [];
        const exec = { batch, index: 0 };
        for (let i = 0; i < batch.length; i++) {
          const m = batch[i]!;
          exec.index = i;
          let joined = false;
          for (let j = 0; j < groups.length && !joined; j++) {
            let pass = false;
            try {
              pass = groups[j]!.check.test(m, exec);
            } catch (err) {
              log.error(`Failed to test group ${j}: ${errorMessage(err)}`);
            }
            if (pass) {
              members[j]!.push(m);
              joined = true;
            }
          }
          if (!joined) groupless.push(m);
        }
        const out: Batch[] = [];
        for (let j = 0; j < groups.length; j++) {
          if (members[j]!.length === 0) continue;
          for (const b of await runProcessors(groups[j]!.processors, members[j]!)) out.push(b);
        }
        if (groupless.length > 0) out.push(groupless);
        return out;
      },
    };
  },
});
