/**
 * The `unarchive` processor (Benthos'): turns each message into the messages archived in it,
 * each a copy of the original (metadata included) with the item's content. A message that does
 * not unarchive is flagged and left as it was.
 */
import { errorMessage, f, registerProcessor, type Batch, type Message } from '@svc/engine';
import { deserializeParts } from './binary-parts.js';
import { csvObjects, jsonDocuments } from './documents.js';
import { readTar } from './tar.js';
import { EntryBudget, type UnarchiveLimits } from './unarchive-limits.js';
import { readZip } from './zip.js';

const FORMATS = ['binary', 'csv', 'json_array', 'json_documents', 'json_map', 'lines', 'tar', 'zip'] as const;

type Unarchiver = (m: Message, budget: EntryBudget) => Batch;

const MiB = 1024 * 1024;
const bound = (name: string, def: number, what: string) =>
  f
    .int()
    .default(def)
    .advanced()
    .svcOnly()
    .validate((n) => (n >= 1 ? undefined : `${name} must be at least 1`))
    .describe(`${what} A message that passes it is flagged with an error and left as it was. Benthos has no such field.`);

registerProcessor('unarchive', {
  summary: 'Unarchives messages according to the selected archive format into multiple messages within a batch.',
  description: [
    'Each message is replaced in the batch by the messages archived in it, copies of it (metadata included)',
    "with each item as content: `binary` (Benthos' blob, as `archive` writes it), `lines` (split on newlines),",
    '`json_array` (one message per element), `json_map` (one per value, its key in the metadata',
    '`archive_key`), `tar` and `zip` (one per file, its name in `archive_filename`). A message that fails to unarchive',
    'stays as it was, flagged with the error. `json_documents`: one message per JSON document of a stream;',
    '`csv`: one object per row after the header row, keyed by the header (values are strings).',
    '',
    'svc bounds what one message may unarchive to (`max_entries`, and for `binary`, `lines`, `tar` and `zip` items',
    '`max_entry_bytes` and `max_total_bytes`): a message that passes a bound is flagged and left as it was, and a',
    'zip entry is refused at the size it declares, before it is inflated. `archive_filename` is the name as',
    "archived, `../` included: the `file` output refuses a path whose interpolated part leaves the template's folder.",
  ].join('\n'),
  config: f.object({
    format: f.enum(FORMATS).describe('The unarchiving format to apply.'),
    max_entries: bound('max_entries', 1_000_000, 'The most messages one message may unarchive to.'),
    max_entry_bytes: bound('max_entry_bytes', 256 * MiB, 'The largest item, in bytes (a zip entry at its declared size).'),
    max_total_bytes: bound('max_total_bytes', 256 * MiB, "The largest sum of one message's items, in bytes."),
  }),
  examples: ['pipeline:\n  processors:\n    - unarchive:\n        format: json_array\n'],
  factory: (conf, ctx) => {
    const unarchive = unarchiverOf(conf.format);
    const limits: UnarchiveLimits = conf;
    const log = ctx.logger;
    return {
      process(batch) {
        const out: Batch = [];
        for (const m of batch) {
          let parts: Batch;
          try {
            parts = unarchive(m, new EntryBudget(limits));
          } catch (err) {
            log.error(`Failed to unarchive message part: ${errorMessage(err)}`);
            m.setError(err);
            out.push(m);
            continue;
          }
          for (const p of parts) out.push(p);
        }
        return out.length > 0 ? [out] : [];
      },
    };
  },
});

function withContent(m: Message, content: Buffer): Message {
  const c = m.copy();
  c.content = content;
  return c;
}

function withJson(m: Message, doc: unknown): Message {
  const c = m.copy();
  c.setJson(doc);
  return c;
}

function typeName(v: unknown): string {
  if (v === null) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'object') return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
  return 'json.Number';
}

function parsed(m: Message, what: string): unknown {
  try {
    return m.json();
  } catch (err) {
    throw new Error(`failed to parse message into JSON ${what}: ${errorMessage(err)}`);
  }
}

function unarchiverOf(format: (typeof FORMATS)[number]): Unarchiver {
  switch (format) {
    case 'binary':
      return (m, budget) =>
        deserializeParts(m.content).map((p) => {
          budget.admit(p.length);
          return withContent(m, p);
        });
    case 'lines':
      return (m, budget) => {
        const b = m.content;
        const out: Batch = [];
        let start = 0;
        for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, start)) {
          budget.admit(i - start);
          out.push(withContent(m, b.subarray(start, i)));
          start = i + 1;
        }
        budget.admit(b.length - start);
        out.push(withContent(m, b.subarray(start)));
        return out;
      };
    case 'json_array':
      return (m, budget) => {
        const doc = parsed(m, 'array');
        if (!Array.isArray(doc)) throw new Error(`failed to parse message into JSON array: invalid type '${typeName(doc)}'`);
        budget.admitCount(doc.length);
        return doc.map((e) => withJson(m, e));
      };
    case 'json_map':
      return (m, budget) => {
        const doc = parsed(m, 'map');
        if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
          throw new Error(`failed to parse message into JSON map: invalid type '${typeName(doc)}'`);
        const entries = Object.entries(doc as Record<string, unknown>);
        budget.admitCount(entries.length);
        return entries.map(([k, v]) => {
          const c = withJson(m, v);
          c.setMeta('archive_key', k);
          return c;
        });
      };
    case 'json_documents':
    case 'csv':
      return (m, budget) => {
        const text = m.content.toString('utf8');
        const docs: unknown[] = format === 'csv' ? csvObjects(text) : jsonDocuments(text);
        budget.admitCount(docs.length);
        return docs.map((d) => withJson(m, d));
      };
    case 'tar':
    case 'zip':
      return (m, budget) =>
        (format === 'tar' ? readTar(m.content, budget) : readZip(m.content, budget)).map((it) => {
          const c = withContent(m, it.content);
          c.setMeta('archive_filename', it.name);
          return c;
        });
    default:
      throw new Error(`unarchive format not recognised: ${format}`);
  }
}
