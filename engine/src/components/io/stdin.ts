/**
 * The `stdin` input: reads the process's standard input with a codec (lines by default).
 *
 * Reads chunks as the stream gives them, with back-pressure (nothing is buffered beyond ~1 MiB),
 * and hands out every complete line currently buffered as one transaction (up to 4096
 * messages) whose messages are each a batch of their own (a line is a message, as Benthos reads
 * it), each message's content a slice of its chunk.
 */
import type { Readable } from 'node:stream';
import {
  END_OF_INPUT,
  InputFailedError,
  Message,
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
import {
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
import { LongLineLog } from './long-lines.js';
import { SCANNER_DESCRIPTION, ScannerReader, parseScanner, scannerField, type Scanner } from './scanner.js';

export const stdinSpec = f.object({
  codec: readCodecField(),
  scanner: scannerField()
    .optional()
    .describe(`${SCANNER_DESCRIPTION} When set it replaces \`codec\` (Benthos' field; \`benthos create\` writes \`scanner: {lines: {}}\`).`),
  max_buffer: maxBufferField(),
  skip_long_lines: skipLongLinesField(),
  auto_replay_nacks: f.bool().default(true).describe('Whether a rejected batch is delivered again (true) or dropped (false).'),
});
export type StdinConfig = Infer<typeof stdinSpec>;

const NOOP_ACK: Ack = () => {};

export interface StdinOptions {
  /** The stream to read instead of `process.stdin` (tests). */
  stream?: Readable;
}

export class StdinInput implements Input {
  private reader: CodecReader | ScannerReader | undefined;
  private readonly stream: Readable | undefined;
  private readonly codec: ReadCodec;
  private readonly scanner: Scanner | undefined;
  private readonly maxBuffer: number;
  private readonly log: Logger | undefined;
  private readonly path: string;
  /** With skip_long_lines: logs the skipped lines. */
  private readonly longLines: LongLineLog | undefined;
  private closed = false;
  /** Set once the stream failed: the input has ended. */
  private ended = false;
  private readonly gate = new CloseGate();

  constructor(conf: StdinConfig, ctx?: ComponentContext, opts: StdinOptions = {}) {
    this.stream = opts.stream;
    this.codec = readCodec(conf.codec);
    this.scanner = conf.scanner === undefined ? undefined : parseScanner(conf.scanner);
    this.maxBuffer = conf.max_buffer;
    this.log = ctx?.logger;
    this.path = ctx?.path ?? 'input';
    if (conf.skip_long_lines) this.longLines = new LongLineLog('stdin', conf.max_buffer, this.log);
  }

  /** Starts reading the stream (process.stdin is only touched from here on). */
  async connect(): Promise<void> {
    this.open();
  }

  private open(): CodecReader | ScannerReader {
    if (this.reader) return this.reader;
    const stream = this.stream ?? process.stdin;
    this.reader = this.scanner
      ? new ScannerReader(this.scanner(stream, ''), () => stream.destroy())
      : new CodecReader(new StreamChunks(stream), this.codec, this.maxBuffer, undefined, this.longLines?.onSkip);
    return this.reader;
  }

  read(): Promise<Transaction | EndOfInput> | Transaction | EndOfInput {
    if (this.closed || this.ended) return END_OF_INPUT;
    let r: Message[] | null | Promise<Message[] | null>;
    try {
      r = this.open().read();
    } catch (err) {
      return this.failed(err);
    }
    if (r instanceof Promise) {
      return this.gate.wrap(
        r.then<Transaction | EndOfInput, EndOfInput>(
          (pieces) => this.toTransaction(pieces),
          (err: unknown) => this.failed(err),
        ),
        END_OF_INPUT,
      );
    }
    return this.toTransaction(r);
  }

  private toTransaction(batch: Message[] | null): Transaction | EndOfInput {
    if (batch === null) {
      if (!this.closed) this.longLines?.summary(this.reader?.skipped ?? 0);
      return END_OF_INPUT;
    }
    if (this.closed) return END_OF_INPUT;
    return { batch, ack: NOOP_ACK, parts: eachMessage(batch.length) };
  }

  /**
   * A line over max_buffer ends the stream with an error (exit 1, once the lines before it were
   * delivered); a stream error ends the input.
   */
  private failed(err: unknown): EndOfInput {
    this.ended = true;
    if (err instanceof LineTooLongError) {
      throw new InputFailedError(
        `stdin input (${this.path}): ${err.message}: the input stopped there; the ${err.line - 1} line(s) before it ` +
          'are delivered, that line and the rest of stdin were skipped (not read). Raise max_buffer, or set ' +
          'skip_long_lines: true to skip such lines and read on',
        { cause: err },
      );
    } else {
      this.log?.error(`Failed to read stdin, stopping the input: ${errorMessage(err)}`);
    }
    return END_OF_INPUT;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.reader?.close();
    this.gate.close();
  }
}

registerInput('stdin', {
  summary: 'Reads messages from the standard input, one per line by default.',
  description: [
    "Consumes the process's standard input and splits it into messages with `codec`: `lines` (the default),",
    '`delim:X` or `all-bytes` (the whole input is one message), or with a Benthos `scanner`. The input ends at',
    'the end of the stream.',
    '',
    'Each message is a batch of its own, as Benthos gives them (what `batch_size()`, `archive` or a batching',
    'policy sees). Reading is still done in bulk: every complete line currently buffered (up to 4096) is',
    'handed over at once, and a rejected read (with `auto_replay_nacks: true`) is replayed as a whole. A',
    'final line without a newline is a message too; empty lines are empty messages.',
    '',
    'A line longer than `max_buffer` is an error: the lines before it are',
    'delivered, then the stream ends with exit code 1 and an error naming the input, the limit and the line.',
    'With `skip_long_lines: true` such lines are skipped instead (each logged as a warning, the first 10 of',
    'them, and their count when the input ends) and the input reads on.',
  ].join('\n'),
  config: stdinSpec,
  examples: [
    `input:
  stdin: {}`,
    `input:
  stdin:
    codec: delim:||
    max_buffer: 10000000`,
  ],
  factory: (conf, ctx) => new StdinInput(conf, ctx),
});
