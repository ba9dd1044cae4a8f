/**
 * The `file` input: reads files one after the other with a codec (lines by default).
 *
 * Each file is read in 256 KiB chunks; every complete line currently buffered is handed over as
 * one transaction (up to 4096 messages) whose messages are each a batch of their own (a line is a
 * message, as Benthos reads it), each message's content a slice of its chunk, with the metadata
 * `path`, `mod_time_unix` and `mod_time`.
 */
import { createReadStream } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import {
  END_OF_INPUT,
  InputFailedError,
  Message,
  NotConnectedError,
  eachMessage,
  errorMessage,
  f,
  registerInput,
  type Ack,
  type ComponentContext,
  type EndOfInput,
  type Infer,
  type Input,
  type Logger,
  type Transaction,
} from '@svc/engine';
import { trackAck } from '@svc/engine/kit';
import {
  CHUNK_SIZE,
  CloseGate,
  CodecReader,
  LineTooLongError,
  StreamChunks,
  maxBufferField,
  readCodec,
  readCodecField,
  skipLongLinesField,
  type ReadCodec,
} from './codec.js';
import { expandGlobs } from './glob.js';
import { LongLineLog } from './long-lines.js';
import { SCANNER_DESCRIPTION, ScannerReader, parseScanner, scannerField, type Scanner } from './scanner.js';

export const fileSpec = f.object({
  paths: f
    .array(f.string())
    .validate((v) => (v.length > 0 ? undefined : 'paths must list at least one file'))
    .describe('A list of paths to consume sequentially. Glob patterns are supported, including super globs (double star).'),
  codec: readCodecField(),
  scanner: scannerField().optional().describe(`${SCANNER_DESCRIPTION} When set it replaces \`codec\`.`),
  max_buffer: maxBufferField(),
  skip_long_lines: skipLongLinesField(),
  delete_on_finish: f.bool().default(false).describe('Whether to delete a file once it was read to its end and every message from it was acknowledged.'),
  auto_replay_nacks: f.bool().default(true).describe('Whether a rejected batch is delivered again (true) or dropped (false).'),
});
export type FileConfig = Infer<typeof fileSpec>;

const NOOP_ACK: Ack = () => {};
const EMPTY = Buffer.alloc(0);

/** One file being read: what delete_on_finish needs to know. */
interface FileState {
  readonly path: string;
  /** Transactions handed out and not yet acked. */
  outstanding: number;
  /** Read to its end. */
  eof: boolean;
  /** Some of it was dropped (a nack without replay) or could not be read: keep the file. */
  incomplete: boolean;
  deleted: boolean;
}

/** What reads one file's messages: a codec or a scanner. */
interface PieceReader {
  read(): Message[] | null | Promise<Message[] | null>;
  close(): void;
  readonly skipped: number;
}

interface Current {
  state: FileState;
  reader: PieceReader;
  /** A message carrying the file's metadata: every message is a copy (metadata shared). */
  proto: Message;
}

/** Go's time.RFC3339 (whole seconds), in UTC. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function describeMissing(path: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  const why = code === 'ENOENT' ? 'no such file or directory' : errorMessage(err);
  return `file input: cannot read "${path}": ${why}`;
}

export class FileInput implements Input {
  private paths: string[];
  private expanded = false;
  private readonly codec: ReadCodec;
  private readonly scanner: Scanner | undefined;
  private readonly maxBuffer: number;
  private readonly deleteOnFinish: boolean;
  private readonly log: Logger | undefined;
  private readonly path: string;
  /** With skip_long_lines: logs the skipped lines. */
  private readonly longLines: LongLineLog | undefined;
  private index = 0;
  private current: Current | undefined;
  private closed = false;
  private readonly gate = new CloseGate();
  private readonly deletions = new Set<Promise<void>>();

  constructor(conf: FileConfig, ctx?: ComponentContext) {
    this.paths = [...conf.paths];
    this.codec = readCodec(conf.codec);
    this.scanner = conf.scanner === undefined ? undefined : parseScanner(conf.scanner);
    this.maxBuffer = conf.max_buffer;
    this.deleteOnFinish = conf.delete_on_finish;
    this.log = ctx?.logger;
    this.path = ctx?.path ?? 'input';
    if (conf.skip_long_lines) this.longLines = new LongLineLog('file', conf.max_buffer, this.log);
  }

  /** Checks that every file still to read exists (and is not a directory). */
  async connect(): Promise<void> {
    if (!this.expanded) {
      this.paths = await expandGlobs(this.paths);
      this.expanded = true;
    }
    for (let i = this.index; i < this.paths.length; i++) {
      const path = this.paths[i]!;
      let s;
      try {
        s = await stat(path);
      } catch (err) {
        throw new Error(describeMissing(path, err));
      }
      if (s.isDirectory()) throw new Error(`file input: cannot read "${path}": it is a directory`);
    }
  }

  read(): Promise<Transaction | EndOfInput> | Transaction | EndOfInput {
    for (;;) {
      if (this.closed) return END_OF_INPUT;
      const cur = this.current;
      if (!cur) {
        if (this.index >= this.paths.length) return END_OF_INPUT;
        return this.raceClose(this.open().then(() => this.read()));
      }
      let r: Message[] | null | Promise<Message[] | null>;
      try {
        r = cur.reader.read();
      } catch (err) {
        this.failed(cur, err);
        continue;
      }
      if (r instanceof Promise) {
        return this.raceClose(
          r.then(
            (pieces) => (pieces === null ? this.next(cur) : this.transaction(cur, pieces)),
            (err: unknown) => {
              this.failed(cur, err);
              return this.read();
            },
          ),
        );
      }
      if (r !== null) return this.transaction(cur, r);
      this.finished(cur);
    }
  }

  private raceClose(p: Promise<Transaction | EndOfInput>): Promise<Transaction | EndOfInput> {
    return this.gate.wrap(p, END_OF_INPUT);
  }

  private next(cur: Current): Promise<Transaction | EndOfInput> | Transaction | EndOfInput {
    this.finished(cur);
    return this.read();
  }

  private async open(): Promise<void> {
    const path = this.paths[this.index]!;
    let s;
    try {
      s = await stat(path);
    } catch (err) {
      throw new NotConnectedError(describeMissing(path, err), { cause: err });
    }
    if (s.isDirectory()) throw new NotConnectedError(`file input: cannot read "${path}": it is a directory`);
    if (this.closed) return;
    this.index++;
    const stream = createReadStream(path, { highWaterMark: CHUNK_SIZE });
    const proto = new Message(EMPTY, {
      path,
      mod_time_unix: Math.floor(s.mtimeMs / 1000),
      mod_time: rfc3339(s.mtimeMs),
    });
    this.longLines?.reset(`file "${path}"`);
    this.current = {
      state: { path, outstanding: 0, eof: false, incomplete: false, deleted: false },
      reader: this.scanner
        ? new ScannerReader(this.scanner(stream, path), () => stream.destroy())
        : new CodecReader(new StreamChunks(stream), this.codec, this.maxBuffer, undefined, this.longLines?.onSkip),
      proto,
    };
  }

  private transaction(cur: Current, batch: Message[]): Transaction | EndOfInput {
    if (this.closed) return END_OF_INPUT;
    const proto = cur.proto;
    for (let i = 0; i < batch.length; i++) {
      const m = batch[i]!;
      if (!m.hasMeta()) m.shareMetaOf(proto);
      else for (const [k, v] of proto.metaEntries()) m.setMeta(k, v);
    }
    return { batch, ack: this.deleteOnFinish ? this.trackAck(cur.state) : NOOP_ACK, parts: eachMessage(batch.length) };
  }

  private trackAck(state: FileState): Ack {
    state.outstanding++;
    return trackAck((err) => {
      state.outstanding--;
      if (err) state.incomplete = true;
      this.maybeDelete(state);
    });
  }

  /** The file was read to its end. */
  private finished(cur: Current): void {
    if (this.current === cur) this.current = undefined;
    const skipped = cur.reader.skipped;
    if (skipped > 0) {
      // Skipped lines are dropped parts: delete_on_finish keeps the file.
      cur.state.incomplete = true;
      if (!this.closed) this.longLines?.summary(skipped);
    }
    cur.reader.close();
    cur.state.eof = true;
    this.maybeDelete(cur.state);
  }

  /**
   * The file cannot be read further. A line over max_buffer ends the stream with an error (exit
   * 1, once the lines before it were delivered; the file is kept); a read error is logged and the
   * next file read.
   */
  private failed(cur: Current, err: unknown): void {
    cur.state.incomplete = true;
    if (err instanceof LineTooLongError) {
      const unread = this.paths.length - this.index;
      this.index = this.paths.length;
      this.finished(cur);
      throw new InputFailedError(
        `file input (${this.path}): "${cur.state.path}": ${err.message}: the input stopped there; the ${err.line - 1} ` +
          `line(s) before it are delivered, that line and the rest of the file` +
          (unread > 0 ? ` and ${unread} more file(s)` : '') +
          ' were skipped (not read). Raise max_buffer, or set skip_long_lines: true to skip such lines and read on',
        { cause: err },
      );
    }
    this.log?.error(`Failed to read file "${cur.state.path}", skipping the rest of it: ${errorMessage(err)}`);
    this.finished(cur);
  }

  private maybeDelete(state: FileState): void {
    if (!this.deleteOnFinish || !state.eof || state.outstanding > 0 || state.deleted) return;
    state.deleted = true;
    if (state.incomplete) {
      this.log?.warn(`Not deleting "${state.path}": some of it was not read or not delivered`);
      return;
    }
    const p = unlink(state.path).then(
      () => this.log?.debug(`Deleted "${state.path}"`),
      (err: unknown) => this.log?.error(`Failed to delete "${state.path}": ${errorMessage(err)}`),
    );
    this.deletions.add(p);
    void p.finally(() => this.deletions.delete(p));
  }

  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.current?.reader.close();
      this.gate.close();
    }
    await Promise.all([...this.deletions]);
  }
}

registerInput('file', {
  summary: 'Reads files, one after the other, one message per line by default.',
  description: [
    'Reads each file of `paths` in order and splits it into messages with `codec`: `lines` (the default),',
    '`delim:X` or `all-bytes` (the whole file is one message), or with a Benthos `scanner`. The input ends',
    'after the last file. A path may be a glob (`./data/*.csv`, `./logs/**/*.log`): its matches are read in',
    'sorted order; a glob that matches nothing reads nothing, a plain path that does not exist is an error.',
    '',
    'Each message is a batch of its own, as Benthos gives them (what `batch_size()`, `archive` or a batching',
    'policy sees). Reading is still done in bulk: every complete line currently buffered (up to 4096, from',
    '256 KiB reads) is handed over at once. A final line without a newline is a message too; empty lines are',
    'empty messages.',
    '',
    'Each message carries the metadata `path` (as listed in `paths`), `mod_time_unix` (seconds) and',
    '`mod_time` (RFC 3339, UTC).',
    '',
    'A file that does not exist is an error when the input connects (retried with back-off), naming the',
    'path. A read error is logged and the rest of that file skipped. A line longer than `max_buffer` is an',
    'error: the lines before it are delivered, then the stream ends with exit code 1 and an error naming the',
    'input, the file, the limit and the line (the files after it are not read). With `skip_long_lines: true`',
    'such lines are skipped instead (the first 10 of each file logged as warnings, then their count at the',
    'end of the file) and reading goes on.',
    'With `delete_on_finish` a file is deleted once it was read to its end and every transaction from it',
    'was acknowledged; a file with dropped, skipped or unread parts is kept.',
  ].join('\n'),
  config: fileSpec,
  examples: [
    `input:
  file:
    paths: [ ./data/a.jsonl, ./data/b.jsonl ]
    codec: lines`,
    `input:
  file:
    paths: [ ./data/*.csv ]
    scanner:
      csv: {}`,
    `input:
  file:
    paths: [ ./inbox/batch.csv ]
    delete_on_finish: true`,
  ],
  factory: (conf, ctx) => new FileInput(conf, ctx),
});
