/**
 * A custom processor plugin, written in TypeScript and loaded as it is (no build step):
 *
 *   engine -c configs/custom-plugin.yaml      (the config lists this file under `plugins:`)
 *   engine -c my.yaml --plugin ./reverse.ts   (or name it on the command line)
 *
 * It registers `reverse`: reverses each message's text (or only words longer than
 * `min_length`), and records the thread that did it in the `reversed_by` metadata key.
 */
import { threadId } from 'node:worker_threads';
import { f, registerProcessor, type Infer } from '@svc/engine';

const spec = f.object({
  min_length: f.int().default(0).describe('Only reverse words at least this long; 0 reverses the whole text.'),
});

registerProcessor('reverse', {
  summary: 'Reverses the text of each message (an example plugin).',
  config: spec,
  examples: ['pipeline:\n  processors:\n    - reverse:\n        min_length: 4\n'],
  factory: (conf: Infer<typeof spec>, ctx) => {
    ctx.logger.debug('reverse processor ready');
    const reverse = (s: string) => [...s].reverse().join('');
    return {
      process(batch) {
        for (const msg of batch) {
          const text = msg.text();
          const out = conf.min_length > 0 ? text.replace(/\S+/g, (w) => (w.length >= conf.min_length ? reverse(w) : w)) : reverse(text);
          msg.content = Buffer.from(out);
          msg.setMeta('reversed_by', `thread-${threadId}`);
        }
        return [batch];
      },
    };
  },
});
