import { f, registerProcessor } from '@svc/engine';
import { sleep } from '@svc/engine/kit';

const spec = f.object({
  resource: f.string().describe('The label of a rate limit resource (under rate_limit_resources).'),
});

/** `rate_limit`: waits on a named rate limit resource once per message before passing it on. */
registerProcessor('rate_limit', {
  summary: 'Throttles messages by a rate limit resource: one access per message.',
  config: spec,
  examples: [
    'pipeline:\n  processors:\n    - rate_limit:\n        resource: api\nrate_limit_resources:\n  - label: api\n    local:\n      count: 100\n      interval: 1s\n',
  ],
  factory: (conf, ctx) => {
    const limit = ctx.resources.rateLimit(conf.resource);
    const stop = new AbortController();
    return {
      async process(batch) {
        for (let i = 0; i < batch.length; i++) {
          for (;;) {
            const r = limit.access();
            const wait = typeof r === 'number' ? r : await r;
            if (wait <= 0) break;
            if (!(await sleep(wait, stop.signal))) return [batch];
          }
        }
        return [batch];
      },
      async close() {
        stop.abort();
      },
    };
  },
});
