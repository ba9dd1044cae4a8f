/** The `switch` processor: runs different processors on messages depending on their content. */
import { errorMessage, f, registerProcessor, type Batch, type Processor } from '@svc/engine';
import { CaseCheck } from './check.js';
import { OriginalOrder } from './order.js';
import { runProcessors } from './run-processors.js';

const caseSpec = f.object({
  check: f
    .query()
    .default('')
    .describe(
      'A query that gives a boolean: true when the message belongs to this case. Empty: every message does. ' +
        'A check that fails (or gives something else than a boolean) flags the message with the error, and ' +
        'the message is not tested against any other case.',
    ),
  processors: f.array(f.component('processor')).default([]).describe('The processors to run on the messages of this case.'),
  fallthrough: f
    .bool()
    .default(false)
    .describe('Whether the messages of this case, once processed, also go through the processors of the next case (without its check).'),
});

const spec = f.array(caseSpec).describe('The cases, tried in order: each message goes to the first case whose check passes.');

interface Case {
  check: CaseCheck;
  processors: Processor[];
  fallthrough: boolean;
}

registerProcessor('switch', {
  summary: 'Runs the processors of the first case whose check a message passes.',
  description: [
    'Each message is tested against the cases in order and goes through the processors of the first case',
    'whose `check` is true (an empty check always is); a message that passes no case is left as it is. The',
    'messages of one case are processed together, as one batch.',
    '',
    'With `fallthrough: true` the messages of a case then also go through the processors of the next case,',
    'without its check. A check that fails flags the message with the error and the message passes on',
    'untouched. The batch that comes out keeps the order messages came in, where the processors kept them',
    '(a message a processor split or created follows the message before it).',
  ].join('\n'),
  config: spec,
  examples: [
    `pipeline:
  processors:
    - switch:
        - check: this.user.name.first != "George"
          processors:
            - mapping: 'root = this.merge({"greeting": "hello " + this.user.name.first})'
        - processors:
            - mapping: root = deleted()
`,
    `pipeline:
  processors:
    - switch:
        - check: '@topic == "orders"'
          processors:
            - mutation: 'meta kind = "order"'
          fallthrough: true
        - check: '@topic == "refunds"'
          processors:
            - log:
                message: 'payment event: \${! meta("kind") | "refund" }'
`,
  ],
  factory: async (conf, ctx) => {
    const cases: Case[] = [];
    for (const c of conf) {
      // The runtime closes what buildProcessors built: the switch owns nothing to close itself.
      cases.push({ check: new CaseCheck(c.check), processors: await ctx.buildProcessors(c.processors), fallthrough: c.fallthrough });
    }
    const log = ctx.logger;
    return {
      async process(batch) {
        const order = new OriginalOrder(batch);
        let remaining = batch;
        let carry: Batch = [];
        let carriedFrom: Batch = [];
        for (let i = 0; i < cases.length; i++) {
          const c = cases[i]!;
          const passed = carry;
          carry = [];
          const failed: Batch = [];
          if (c.check.always) {
            for (const m of remaining) passed.push(m);
          } else {
            const errored: Batch = [];
            const exec = { batch: remaining, index: 0 };
            for (let j = 0; j < remaining.length; j++) {
              const m = remaining[j]!;
              exec.index = j;
              let pass: boolean;
              try {
                pass = c.check.test(m, exec);
              } catch (err) {
                m.setError(err);
                log.error(`Failed to test case ${i}: ${errorMessage(err)}`);
                errored.push(m);
                continue;
              }
              (pass ? passed : failed).push(m);
            }
            if (errored.length > 0) order.add(errored);
          }
          remaining = failed;
          if (passed.length === 0) continue;
          const r = runProcessors(c.processors, passed);
          const out = r instanceof Promise ? await r : r;
          if (c.fallthrough) {
            for (const b of out) for (const m of b) carry.push(m);
            carriedFrom = passed;
          } else {
            for (const b of out) order.add(b, passed);
          }
        }
        if (remaining.length > 0) order.add(remaining);
        if (carry.length > 0) order.add(carry, carriedFrom);
        const result = order.result();
        return result.length > 0 ? [result] : [];
      },
    };
  },
});
