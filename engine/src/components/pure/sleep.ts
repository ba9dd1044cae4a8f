import { f, parseDuration, registerProcessor } from '@svc/engine';
import { sleep } from '@svc/engine/kit';

const spec = f.object({
  duration: f.duration().default('').describe('How long to sleep for each batch (e.g. 100ms).'),
});

/** `sleep`: waits before passing each batch on (throttling, tests of back-pressure). */
registerProcessor('sleep', {
  summary: 'Sleeps for a duration before passing each batch on.',
  config: spec,
  examples: ['pipeline:\n  processors:\n    - sleep:\n        duration: 500ms\n'],
  factory: (conf) => {
    const ms = parseDuration(conf.duration);
    const stop = new AbortController();
    return {
      async process(batch) {
        if (ms > 0) await sleep(ms, stop.signal);
        return [batch];
      },
      async close() {
        stop.abort();
      },
    };
  },
});
