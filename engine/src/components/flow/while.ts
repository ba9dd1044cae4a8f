/** The `while` processor (Benthos'): runs processors on a batch again and again while a check holds. */
import { errorMessage, f, registerProcessor, type Batch } from '@svc/engine';
import { CaseCheck } from '../mapping/check.js';
import { runProcessors } from '../mapping/run-processors.js';

const spec = f.object({
  at_least_once: f.bool().default(false).describe('Whether to always run the child processors at least one time.'),
  max_loops: f.int().default(0).describe('The most loops to run (0: no limit). Guards against a check that never turns false.').advanced(),
  check: f.query().default('').describe('A query giving a boolean, tested on the first message of the batch: true runs the processors (again).'),
  processors: f.array(f.component('processor')).describe('The processors to run on each loop.'),
});

registerProcessor('while', {
  summary: 'Runs processors on a batch for as long as a check on its first message is true.',
  description: [
    'The `check` is tested on the first message of the batch before each loop (after the first one with',
    '`at_least_once: true`); while it is true the processors run on the batch that came out of the last loop.',
    'A check that fails or gives no boolean counts as false (and is logged). `max_loops` caps the loops. When',
    'the processors filter every message the loop ends with nothing to pass on.',
  ].join('\n'),
  config: spec,
  examples: [
    `pipeline:
  processors:
    - while:
        at_least_once: true
        max_loops: 10
        check: 'this.pages.length() < 3'
        processors:
          - mutation: 'root.pages = this.pages.or([]).append(this.pages.or([]).length())'
`,
  ],
  factory: async (conf, ctx) => {
    if (conf.check.trim() === '') throw new Error('a check query is required');
    let check: CaseCheck;
    try {
      check = new CaseCheck(conf.check);
    } catch (err) {
      throw new Error(`failed to parse check query: ${errorMessage(err)}`);
    }
    const processors = await ctx.buildProcessors(conf.processors);
    const log = ctx.logger;
    const holds = (batches: Batch[]): boolean => {
      const first = batches[0];
      if (first === undefined || first.length === 0) return false;
      try {
        return check.test(first[0]!, { batch: first, index: 0 });
      } catch (err) {
        log.error(`Query failed for loop: ${errorMessage(err)}`);
        return false;
      }
    };
    return {
      async process(batch) {
        let batches: Batch[] = [batch];
        let loops = 0;
        let again = conf.at_least_once || holds(batches);
        while (again) {
          if (conf.max_loops > 0 && loops >= conf.max_loops) break;
          const next: Batch[] = [];
          for (const b of batches) for (const o of await runProcessors(processors, b)) next.push(o);
          batches = next;
          if (batches.length === 0) return batches;
          again = holds(batches);
          loops++;
        }
        return batches;
      },
    };
  },
});
