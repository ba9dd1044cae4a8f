/** The `split` processor (Benthos'): breaks a batch into smaller batches by count and byte size. */
import { f, registerProcessor, type Batch } from '@svc/engine';

const spec = f.object({
  size: f.int().default(1).describe('The target number of messages.'),
  byte_size: f.int().default(0).describe('An optional target of total message bytes.'),
});

registerProcessor('split', {
  summary: 'Breaks a batch into smaller batches of at most `size` messages and `byte_size` bytes.',
  description: [
    'A new batch starts when the current one has `size` messages or the next message would take it past',
    '`byte_size` bytes (0: no byte limit). A single message larger than `byte_size` goes alone in its batch.',
  ].join('\n'),
  config: spec,
  examples: ['pipeline:\n  processors:\n    - split:\n        size: 10\n        byte_size: 1048576\n'],
  factory: (conf, ctx) => {
    const log = ctx.logger;
    return {
      process(batch) {
        const out: Batch[] = [];
        let next: Batch = [];
        let bytes = 0;
        for (const m of batch) {
          const n = m.byteLength;
          if ((conf.size > 0 && next.length >= conf.size) || (conf.byte_size > 0 && bytes + n > conf.byte_size)) {
            if (next.length > 0) {
              out.push(next);
              next = [];
              bytes = 0;
            } else {
              log.warn(`A single message exceeds the target batch byte size of '${conf.byte_size}', actual size: '${n}'`);
            }
          }
          next.push(m);
          bytes += n;
        }
        if (next.length > 0) out.push(next);
        return out;
      },
    };
  },
});
