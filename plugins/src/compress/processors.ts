/** The `compress` and `decompress` processors (Benthos'): each message's content through a codec. */
import { kMaxLength } from 'node:buffer';
import { errorMessage, f, registerProcessor, type Batch } from '@svc/engine';
import { ALGORITHMS, compressorOf, decompressorOf } from './algorithms.js';

const list = ALGORITHMS.join(', ');
const DEFAULT_MAX_OUTPUT = 256 * 1024 * 1024;
/** The largest Buffer Node makes. */
const MAX_BUFFER = kMaxLength;

/** Runs `codec` on every message; a message it fails on is flagged with the error and left as it was. */
function byMessage(codec: (d: Buffer) => Buffer | Promise<Buffer>, log: { error(m: string): void }, what: string) {
  return {
    async process(batch: Batch): Promise<Batch[]> {
      for (const m of batch) {
        try {
          m.content = await codec(m.content);
        } catch (err) {
          log.error(`${what}: ${errorMessage(err)}`);
          m.setError(err);
        }
      }
      return [batch];
    },
  };
}

registerProcessor('compress', {
  summary: `Compresses messages according to the selected algorithm. Supported compression algorithms are: [${list}]`,
  description: "The 'level' field might not apply to all algorithms (snappy, lz4 and zstd ignore it).",
  config: f.object({
    algorithm: f.enum(ALGORITHMS).describe('The compression algorithm to use.'),
    level: f
      .int()
      .default(-1)
      .describe('The level of compression to use. May not be applicable to all algorithms.')
      .validate((l) => (l < -1 || l > 9 ? `invalid compression level: ${l}: use -1 (the default) or 0 to 9` : undefined)),
  }),
  examples: ['pipeline:\n  processors:\n    - compress:\n        algorithm: gzip\n        level: 6\n'],
  factory: (conf, ctx) => byMessage(compressorOf(conf.algorithm, conf.level), ctx.logger, 'Failed to compress message'),
});

registerProcessor('decompress', {
  summary: `Decompresses messages according to the selected algorithm. Supported decompression algorithms are: [${list}]`,
  description: [
    'A message that does not decompress is flagged with the error and left as it was. So is one whose',
    'decompressed content would be larger than `max_output_bytes` (an svc field): decompression stops as soon as',
    'the output passes it, so a small compression bomb cannot fill the memory.',
  ].join('\n'),
  config: f.object({
    algorithm: f.enum(ALGORITHMS).describe('The decompression algorithm to use.'),
    max_output_bytes: f
      .int()
      .default(DEFAULT_MAX_OUTPUT)
      .advanced()
      .svcOnly()
      .validate((n) => (n >= 1 && n <= MAX_BUFFER ? undefined : `max_output_bytes must be from 1 to ${MAX_BUFFER}`))
      .describe(
        'The largest decompressed content of one message, in bytes (256 MiB by default). A message that would ' +
          'decompress to more is flagged with an error and left as it was. Benthos has no such field: it decompresses without a bound.',
      ),
  }),
  examples: ['pipeline:\n  processors:\n    - decompress:\n        algorithm: gzip\n'],
  factory: (conf, ctx) => byMessage(decompressorOf(conf.algorithm, conf.max_output_bytes), ctx.logger, 'Failed to decompress message part'),
});
