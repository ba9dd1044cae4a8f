/**
 * The `stdout` output: writes messages to the process's standard output with a codec.
 *
 * One write call per batch: runs of messages that are adjacent slices of the same chunk separated
 * by the delimiter (what the `stdin` and `file` readers produce) are written from that chunk
 * itself, corked into one writev, so `stdin → stdout` copies no byte in this process; other
 * batches are copied into one Buffer.
 */
import type { Writable } from 'node:stream';
import { ErrorCode, SvcError, errorMessage, f, registerOutput, type Batch, type ComponentContext, type Infer, type Output } from '@svc/engine';
import { batchViews, encodeBatch, writeCodec, writeCodecField } from './codec.js';

export const stdoutSpec = f.object({
  codec: writeCodecField('for stdout the same as `append`: the raw bytes of each message'),
});
export type StdoutConfig = Infer<typeof stdoutSpec>;

export interface StdoutOptions {
  /** The stream to write instead of `process.stdout` (tests). */
  stream?: Writable;
  /** Its name in errors. */
  name?: string;
}

/** Writes batches to a Writable: one write per batch, resolved once the bytes left the stream's buffer. */
export class StdoutOutput implements Output {
  private readonly stream: Writable;
  private readonly name: string;
  private readonly suffix: Buffer;
  /** Set once the stream failed (EPIPE: the reader went away): every later write is rejected. */
  private broken: Error | undefined;
  private inFlight: Promise<void> = Promise.resolve();
  private readonly exitOnBrokenPipe: boolean;
  private readonly log: ComponentContext['logger'] | undefined;

  constructor(conf: StdoutConfig, ctx?: ComponentContext, opts: StdoutOptions = {}) {
    this.stream = opts.stream ?? process.stdout;
    this.exitOnBrokenPipe = opts.stream === undefined;
    this.log = ctx?.logger;
    this.name = opts.name ?? (opts.stream ? 'the output stream' : 'stdout');
    this.suffix = writeCodec(conf.codec).suffix;
    // Without a listener an EPIPE would be thrown as an uncaught exception and crash the process.
    this.stream.on('error', this.onError);
  }

  private readonly onError = (err: Error): void => {
    this.broken ??= this.describe(err);
    if (this.exitOnBrokenPipe && (err as NodeJS.ErrnoException).code === 'EPIPE') {
      // A Unix filter whose reader went away (`engine ... | head`) stops, as Go's SIGPIPE
      // would stop Benthos: nothing can be written any more, and replays would spin forever.
      this.log?.warn('stdout was closed by its reader (EPIPE): exiting');
      process.exit(141);
    }
  };

  private describe(err: unknown): SvcError {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END') {
      const why = code === 'EPIPE' ? 'EPIPE: the reader went away' : errorMessage(err);
      return new SvcError(ErrorCode.Write, `${this.name} is closed (${why}): the batch was not written`, { cause: err });
    }
    return new SvcError(ErrorCode.Write, `failed to write to ${this.name}: ${errorMessage(err)}`, { cause: err });
  }

  write(batch: Batch): Promise<void> {
    if (this.broken) return Promise.reject(this.broken);
    const s = this.stream;
    if (s.destroyed || s.writableEnded) {
      this.broken = new SvcError(ErrorCode.Write, `${this.name} is closed: the batch was not written`);
      return Promise.reject(this.broken);
    }
    const views = batchViews(batch, this.suffix);
    const last = views ? views.pop()! : encodeBatch(batch, this.suffix);
    if (last.length === 0) return Promise.resolve();
    const p = new Promise<void>((resolve, reject) => {
      if (views) s.cork();
      if (views) for (const v of views) s.write(v);
      // The callback of the last part fires once every byte of the batch was handed to the OS (or
      // failed): that is both the delivery guarantee and the back-pressure (a full pipe delays it,
      // as 'drain' would).
      s.write(last, (err) => {
        if (!err) return resolve();
        this.broken ??= this.describe(err);
        reject(this.broken);
      });
      if (views) s.uncork();
    });
    this.inFlight = p.catch(() => {});
    return p;
  }

  /**
   * Batches one after another write the same bytes as their messages in one batch (Benthos writes
   * stdout message by message, with nothing between batches), so they are written as one.
   */
  writeBatches(batch: Batch): Promise<void> {
    return this.write(batch);
  }

  /** Waits for the write in flight; the stream is not ended (stdout is not ours to close). */
  async close(): Promise<void> {
    await this.inFlight;
  }
}

registerOutput('stdout', {
  summary: 'Writes messages to the standard output, one per line by default.',
  description: [
    'Writes each message followed by a newline (`lines`, the default), by a custom delimiter (`delim:X`)',
    'or as raw bytes (`append`, `all-bytes`). A batch is written with one write call, and the write',
    'completes once its bytes were handed to the OS, which is also how a slow reader applies back-pressure.',
    '',
    'When the reader goes away (EPIPE, e.g. `| head`) the failing write and every later one are rejected',
    'with an error saying so (their transactions are nacked); the process does not crash.',
  ].join('\n'),
  config: stdoutSpec,
  examples: [
    `output:
  stdout: {}`,
    `output:
  stdout:
    codec: "delim:\\n---\\n" # YAML double quotes: real newlines`,
  ],
  factory: (conf, ctx) => new StdoutOutput(conf, ctx),
});
