/**
 * The `file` output: appends messages to a file with a codec (lines by default).
 *
 * The file is opened lazily in append mode (its directories created), and each batch is one
 * write of one Buffer.
 */
import { mkdir, open, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  BatchError,
  ErrorCode,
  SvcError,
  compileInterpolation,
  containedPath,
  errorMessage,
  f,
  registerOutput,
  type Batch,
  type ComponentContext,
  type Infer,
  type Interpolation,
  type Output,
} from '@svc/engine';
import { encodeBatch, writeCodec, writeCodecField, type WriteCodec } from './codec.js';

export const fileOutputSpec = f.object({
  path: f
    .string()
    .validate((v) => (v.trim() === '' ? 'path must name a file' : undefined))
    .interpolated()
    .describe('The file to write to; may be an interpolation (`./out/${! meta("topic") }.jsonl`), evaluated per message.'),
  codec: writeCodecField('each message replaces the whole file, as in Benthos: the file holds the last message written'),
});
export type FileOutputConfig = Infer<typeof fileOutputSpec>;

/** At most this many files are kept open by an interpolated path; the oldest is closed first. */
const MAX_OPEN = 64;

export class FileOutput implements Output {
  private readonly path: Interpolation;
  private readonly codec: WriteCodec;
  private readonly handles = new Map<string, FileHandle>();
  /** Writes run one after the other. */
  private queue: Promise<void> = Promise.resolve();

  constructor(conf: FileOutputConfig, _ctx?: ComponentContext) {
    this.path = compileInterpolation(conf.path);
    this.codec = writeCodec(conf.codec);
  }

  private async open(path: string): Promise<FileHandle> {
    const open_ = this.handles.get(path);
    if (open_) return open_;
    await mkdir(dirname(path), { recursive: true });
    const fh = await open(path, 'a');
    if (this.handles.size >= MAX_OPEN) {
      const [oldest, h] = this.handles.entries().next().value as [string, FileHandle];
      this.handles.delete(oldest);
      await h.close().catch(() => {});
    }
    this.handles.set(path, fh);
    return fh;
  }

  write(batch: Batch): Promise<void> {
    const p = this.queue.then(() => this.writeAll(batch));
    this.queue = p.catch(() => {});
    return p;
  }

  /**
   * Groups the batch by the path each message resolves to, and writes each group. A message whose
   * path is refused (it leaves the path's folder, see containedPath) is not written: it fails alone.
   */
  private async writeAll(batch: Batch): Promise<void> {
    if (this.path.isStatic) return this.writeNow(this.path.value(batch[0]!, { batch, index: 0 }), batch);
    const groups = new Map<string, Batch>();
    const refused = new Map<number, Error>();
    for (let i = 0; i < batch.length; i++) {
      let path: string;
      try {
        path = containedPath(this.path, batch[i]!, { batch, index: i }, 'file output');
      } catch (err) {
        if (!(err instanceof SvcError)) throw err;
        refused.set(i, err);
        continue;
      }
      if (path.trim() === '') throw new SvcError(ErrorCode.Write, `file output: the path resolved to nothing for message ${i}`);
      let g = groups.get(path);
      if (!g) groups.set(path, (g = []));
      g.push(batch[i]!);
    }
    for (const [path, group] of groups) await this.writeNow(path, group);
    if (refused.size > 0) {
      const [first] = refused.values();
      const e = new BatchError(batch.length, `${refused.size} of ${batch.length} messages not written: ${first!.message}`);
      for (const [i, err] of refused) e.failed(i, err);
      throw e;
    }
  }

  private async writeNow(path: string, batch: Batch): Promise<void> {
    if (batch.length === 0) return;
    try {
      if (this.codec.kind === 'all-bytes') {
        // Each message is the whole file: the last one of the batch is what remains.
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, batch[batch.length - 1]!.content);
        return;
      }
      const buf = encodeBatch(batch, this.codec.suffix);
      const fh = await this.open(path);
      let off = 0;
      while (off < buf.length) {
        const { bytesWritten } = await fh.write(buf, off, buf.length - off);
        off += bytesWritten;
      }
    } catch (err) {
      // Reopen on the next write (the file may have been removed or its disk fixed).
      const fh = this.handles.get(path);
      this.handles.delete(path);
      await fh?.close().catch(() => {});
      throw new SvcError(ErrorCode.Write, `failed to write to file "${path}": ${errorMessage(err)}`, { cause: err });
    }
  }

  async close(): Promise<void> {
    await this.queue;
    const handles = [...this.handles.values()];
    this.handles.clear();
    await Promise.all(handles.map((h) => h.close()));
  }
}

registerOutput('file', {
  summary: 'Appends messages to a file, one per line by default.',
  description: [
    'Writes each message followed by a newline (`lines`, the default), by a custom delimiter (`delim:X`) or',
    'as raw bytes (`append`). The file is opened in append mode on the first write, its parent directories',
    "created; each batch is one write. With `all-bytes` every message replaces the file's content.",
    '',
    'A failed write is rejected (its transaction nacked) and the file reopened on the next write.',
    '',
    'An interpolated `path` must stay inside the folder its literal text names (`./out/` of',
    '`./out/${! meta("archive_filename") }`, the working directory when it starts with an interpolation): a message',
    'whose path would leave it (`../x`), or that makes a `..` segment or a leading `/`, is not written and fails alone.',
  ].join('\n'),
  config: fileOutputSpec,
  examples: [
    `output:
  file:
    path: ./out/events.jsonl
    codec: lines`,
    `# One file per value of a metadata key.
output:
  file:
    path: './out/\${! meta("kind") }.jsonl'`,
  ],
  factory: (conf, ctx) => new FileOutput(conf, ctx),
});
