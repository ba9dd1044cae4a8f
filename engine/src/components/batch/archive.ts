/**
 * The `archive` processor (Benthos'): turns a whole batch into one message. The first message
 * carries the result (its metadata is kept); the formats are Benthos' byte for byte.
 */
import { compileInterpolation, errorMessage, f, registerProcessor, type Batch } from '@svc/engine';
import { serializeParts } from './binary-parts.js';
import { writeTar } from './tar.js';
import { writeZip } from './zip.js';

const FORMATS = ['binary', 'concatenate', 'json_array', 'lines', 'tar', 'zip'] as const;

registerProcessor('archive', {
  summary: 'Archives all the messages of a batch into a single message according to the selected archive format.',
  description: [
    "- `binary`: Benthos' binary blob format (a big-endian uint32 count, then each message as a uint32",
    '  length and its bytes), which `unarchive` with `format: binary` reads back.',
    '- `concatenate`: the contents one after the other.',
    '- `lines`: the contents joined by newlines.',
    '- `json_array`: the messages parsed as JSON, in one array.',
    '',
    '- `tar`, `zip`: a tar or zip (deflated) file, an item per message named by `path`.',
    '',
    'The archive keeps the metadata of the first message of the batch. `path` names each item of a file-based archive (ignored by the other formats).',
  ].join('\n'),
  config: f.object({
    format: f.enum(FORMATS).describe('The archiving format to apply.'),
    path: f.string().interpolated().default('').describe('The path to set for each message in the archive (when applicable).'),
  }),
  examples: ['pipeline:\n  processors:\n    - archive:\n        format: lines\n'],
  factory: (conf, ctx) => {
    const path = compileInterpolation(conf.path);
    const log = ctx.logger;
    // The name of each item of a file archive: a name that fails to interpolate is logged, as Benthos does.
    const names = (b: Batch): string[] =>
      b.map((m, index) => {
        try {
          return path.value(m, { batch: b, index });
        } catch (err) {
          log.error(`Name interpolation error: ${errorMessage(err)}`);
          return '';
        }
      });
    const items = (b: Batch) => names(b).map((name, i) => ({ name, content: b[i]!.content }));
    const archive =
      conf.format === 'tar'
        ? (b: Batch) => (b[0]!.content = writeTar(items(b)))
        : conf.format === 'zip'
          ? (b: Batch) => (b[0]!.content = writeZip(items(b)))
          : archiverOf(conf.format);
    return {
      process(batch) {
        if (batch.length === 0) return [];
        try {
          archive(batch);
        } catch (err) {
          const text = errorMessage(err);
          for (const m of batch) m.error = text;
          return [batch];
        }
        return [[batch[0]!]];
      },
    };
  },
});

function archiverOf(format: (typeof FORMATS)[number]): (batch: Batch) => void {
  switch (format) {
    case 'binary':
      return (b) => (b[0]!.content = serializeParts(b.map((m) => m.content)));
    case 'concatenate':
      return (b) => (b[0]!.content = Buffer.concat(b.map((m) => m.content)));
    case 'lines':
      return (b) => (b[0]!.content = joinLines(b));
    case 'json_array':
      return (b) => {
        const docs = b.map((m) => {
          try {
            return m.json();
          } catch (err) {
            throw new Error(`failed to parse message as JSON: ${errorMessage(err)}`);
          }
        });
        b[0]!.setJson(docs);
      };
    default:
      throw new Error(`archive format not recognised: ${format}`);
  }
}

function joinLines(b: Batch): Buffer {
  const parts: Buffer[] = [];
  const nl = Buffer.from('\n');
  for (let i = 0; i < b.length; i++) {
    if (i > 0) parts.push(nl);
    parts.push(b[i]!.content);
  }
  return Buffer.concat(parts);
}
