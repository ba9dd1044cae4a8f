import { createReadStream } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import { END_OF_INPUT, Message, f, registerInput, type EndOfInput, type Transaction } from '@svc/engine';
import { expandGlobs } from './glob.js';
import { CsvParser, type CsvRecord } from './scanner.js';

const spec = f.object({
  paths: f
    .array(f.string())
    .describe(
      'A list of file paths to read from. Each file will be read sequentially until the list is exhausted, at which point the input will close. Glob patterns are supported, including super globs (double star).',
    ),
  parse_header_row: f
    .bool()
    .default(true)
    .describe(
      'Whether to reference the first row as a header row. If set to true the output structure for messages will be an object where field keys are determined by the header row. Otherwise, each message will consist of an array of values from the corresponding CSV row.',
    ),
  delimiter: f
    .string()
    .default(',')
    .validate((d) => ([...d].length === 1 ? undefined : 'delimiter value must be exactly one character'))
    .describe('The delimiter to use for splitting values in each record. It must be a single character.'),
  lazy_quotes: f
    .bool()
    .default(false)
    .describe('If set to `true`, a quote may appear in an unquoted field and a non-doubled quote may appear in a quoted field.'),
  delete_on_finish: f.bool().default(false).advanced().describe('Whether to delete input files from the disk once they are fully consumed.'),
  batch_count: f
    .int()
    .default(1)
    .advanced()
    .validate((n) => (n >= 1 ? undefined : 'batch_count must be at least 1'))
    .describe('Optionally process records in batches. This can help to speed up the consumption of exceptionally large CSV files.'),
  auto_replay_nacks: f
    .bool()
    .default(true)
    .describe('Whether messages that are rejected (nacked) at the output level should be automatically replayed indefinitely.'),
});

/** One file being read: its records, parsed a chunk at a time as the chunks arrive. */
interface OpenFile {
  path: string;
  /** Its metadata, the same for every row. */
  modTimeUnix: number;
  modTime: string;
  chunks: AsyncIterator<CsvRecord[]>;
  /** The records of the last chunk, and the next one to hand out. */
  records: CsvRecord[];
  at: number;
}

async function* recordsOf(path: string, parser: CsvParser): AsyncGenerator<CsvRecord[]> {
  for await (const chunk of createReadStream(path, { encoding: 'utf8' })) yield parser.push(chunk as string);
  yield parser.end();
}

/**
 * The `csv` input: the rows of CSV files, one file after another, each row a message (an object
 * keyed by the header row, or an array), as Benthos' csv input: Go's encoding/csv, a row with more
 * fields than the header an array, metadata `header`, `path`, `mod_time_unix` and `mod_time`.
 */
class CsvInput {
  private remaining: string[] | undefined;
  private file: OpenFile | undefined;
  private header: string[] | undefined;
  private closed = false;

  constructor(
    private readonly conf: {
      paths: string[];
      parse_header_row: boolean;
      delimiter: string;
      lazy_quotes: boolean;
      delete_on_finish: boolean;
      batch_count: number;
    },
  ) {}

  async connect(): Promise<void> {
    if (this.remaining !== undefined) return;
    this.remaining = await expandGlobs(this.conf.paths);
    if (this.remaining.length === 0) throw new Error('requires at least one input file path');
  }

  private async open(): Promise<OpenFile | undefined> {
    const path = this.remaining!.shift();
    if (path === undefined) return undefined;
    const modTime = (await stat(path)).mtime;
    this.header = undefined;
    return {
      path,
      modTimeUnix: Math.floor(modTime.getTime() / 1000),
      modTime: modTime.toISOString().replace(/\.\d+Z$/, 'Z'),
      chunks: recordsOf(path, new CsvParser(this.conf.delimiter, this.conf.lazy_quotes))[Symbol.asyncIterator](),
      records: [],
      at: 0,
    };
  }

  /** The open file's next record already parsed, or undefined when it has none ready. */
  private buffered(): { record: CsvRecord; file: OpenFile } | undefined {
    const file = this.file;
    if (file === undefined || file.at === file.records.length) return undefined;
    const record = file.records[file.at++]!;
    // Go's reader reports a row of another length but still gives it: Benthos keeps it
    if (record.error !== undefined && !record.error.endsWith('wrong number of fields') && record.fields.length === 0) throw new Error(record.error);
    return { record, file };
  }

  /** The next record of the files, 'file end' after each file's last, undefined when every file is read. */
  private async next(): Promise<{ record: CsvRecord; file: OpenFile } | 'file end' | undefined> {
    this.file ??= await this.open();
    const file = this.file;
    if (file === undefined) return undefined;
    while (file.at === file.records.length) {
      const r = await file.chunks.next();
      if (r.done) break;
      file.records = r.value;
      file.at = 0;
    }
    const got = this.buffered();
    if (got !== undefined) return got;
    this.file = undefined;
    if (this.conf.delete_on_finish) await unlink(file.path);
    return 'file end';
  }

  async read(): Promise<Transaction | EndOfInput> {
    const batch: Message[] = [];
    while (batch.length < this.conf.batch_count && !this.closed) {
      // Records of a chunk already parsed are taken without a wait each.
      let got = this.buffered() ?? (await this.next());
      // a batch never holds rows of two files (Benthos reconnects to the next file)
      if (got === 'file end' && batch.length === 0) continue;
      if (got === undefined || got === 'file end') break;
      if (this.conf.parse_header_row && this.header === undefined) {
        this.header = got.record.fields;
        got = this.buffered() ?? (await this.next());
        if (got === 'file end') continue;
        if (got === undefined) break;
      }
      batch.push(this.message(got.record.fields, got.file));
    }
    if (batch.length === 0) return END_OF_INPUT;
    return { batch, ack: () => {} };
  }

  private message(fields: string[], file: OpenFile): Message {
    const m = new Message(Buffer.alloc(0));
    const header = this.header;
    if (header === undefined || header.length === 0 || header.length < fields.length) {
      m.setJson(fields.slice());
    } else {
      const obj: Record<string, string> = {};
      for (let i = 0; i < fields.length; i++) {
        const key = header[i]!;
        // an own `__proto__` key must be defined, not assigned; other keys are assigned, which keeps the object fast
        if (key === '__proto__') Object.defineProperty(obj, key, { value: fields[i], enumerable: true, writable: true, configurable: true });
        else obj[key] = fields[i]!;
      }
      m.setJson(obj);
      m.setMeta('header', header.slice());
    }
    m.setMeta('path', file.path);
    m.setMeta('mod_time_unix', file.modTimeUnix);
    m.setMeta('mod_time', file.modTime);
    return m;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.file?.chunks.return?.();
  }
}

registerInput('csv', {
  summary: 'Reads one or more CSV files as structured records following the format described in RFC 4180.',
  description:
    'This input offers more control over CSV parsing than the `file` input. When parsing with a header row each line of the file will be consumed as a structured object, where the key names are determined from the header row, otherwise each message will consist of an array of values from the corresponding CSV row. A row with more fields than the header is an array. Metadata: `header`, `path`, `mod_time_unix`, `mod_time`.',
  config: spec,
  examples: ['input:\n  csv:\n    paths: [ ./data/*.csv ]\n    parse_header_row: true\n'],
  factory: (conf) => new CsvInput(conf),
});
