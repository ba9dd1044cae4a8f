/**
 * The `file` output: appends messages to a file with a codec (lines by default).
 *
 * The file is opened lazily in append mode (its directories created), and each batch is one
 * write of one Buffer.
 */
import { mkdir, open, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ErrorCode, SvcError, errorMessage, f, registerOutput, type Batch, type ComponentContext, type Infer, type Output } from '@svc/engine';
import { encodeBatch, writeCodec, writeCodecField, type WriteCodec } from './codec.js';

export const fileOutputSpec = f.object({
  path: f
    .string()
    .validate((v) => (v.trim() === '' ? 'path must name a file' : undefined))
    .describe('The file to write to. Interpolations (`${! ... }`) arrive with the expression language: for now the path is taken literally.'),
  codec: writeCodecField('each message replaces the whole file, as in Benthos: the file holds the last message written'),
});
export type FileOutputConfig = Infer<typeof fileOutputSpec>;

export class FileOutput implements Output {
  private readonly path: string;
  private readonly codec: WriteCodec;
  private handle: FileHandle | undefined;
  private opening: Promise<FileHandle> | undefined;
  /** Writes run one after the other. */
  private queue: Promise<void> = Promise.resolve();

  constructor(conf: FileOutputConfig, ctx?: ComponentContext) {
    this.path = conf.path;
    this.codec = writeCodec(conf.codec);
    if (conf.path.includes('${!')) {
      ctx?.logger.warn(`file output path "${conf.path}" contains an interpolation, which this build does not evaluate yet: it is used literally`);
    }
  }

  private open(): Promise<FileHandle> {
    if (this.handle) return Promise.resolve(this.handle);
    return (this.opening ??= (async () => {
      try {
        await mkdir(dirname(this.path), { recursive: true });
        this.handle = await open(this.path, 'a');
        return this.handle;
      } finally {
        this.opening = undefined;
      }
    })());
  }

  write(batch: Batch): Promise<void> {
    const p = this.queue.then(() => this.writeNow(batch));
    this.queue = p.catch(() => {});
    return p;
  }

  private async writeNow(batch: Batch): Promise<void> {
    if (batch.length === 0) return;
    try {
      if (this.codec.kind === 'all-bytes') {
        // Each message is the whole file: the last one of the batch is what remains.
        await mkdir(dirname(this.path), { recursive: true });
        await writeFile(this.path, batch[batch.length - 1]!.content);
        return;
      }
      const buf = encodeBatch(batch, this.codec.suffix);
      const fh = await this.open();
      let off = 0;
      while (off < buf.length) {
        const { bytesWritten } = await fh.write(buf, off, buf.length - off);
        off += bytesWritten;
      }
    } catch (err) {
      // Reopen on the next write (the file may have been removed or its disk fixed).
      const fh = this.handle;
      this.handle = undefined;
      await fh?.close().catch(() => {});
      throw new SvcError(ErrorCode.Write, `failed to write to file "${this.path}": ${errorMessage(err)}`, { cause: err });
    }
  }

  async close(): Promise<void> {
    await this.queue;
    const fh = this.handle ?? (await this.opening?.catch(() => undefined));
    this.handle = undefined;
    await fh?.close();
  }
}

registerOutput('file', {
  summary: 'Appends messages to a file, one per line by default.',
  description: [
    'Writes each message followed by a newline (`lines`, the default), by a custom delimiter (`delim:X`) or',
    'as raw bytes (`append`). The file is opened in append mode on the first write, its parent directories',
    'created; each batch is one write. With `all-bytes` every message replaces the file\'s content.',
    '',
    'A failed write is rejected (its transaction nacked) and the file reopened on the next write.',
  ].join('\n'),
  config: fileOutputSpec,
  examples: [
    `output:
  file:
    path: ./out/events.jsonl
    codec: lines`,
  ],
  factory: (conf, ctx) => new FileOutput(conf, ctx),
});
