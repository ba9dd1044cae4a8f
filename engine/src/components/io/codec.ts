/**
 * The byte codecs shared by the `stdin` and `file` inputs and the `stdout` and `file` outputs.
 *
 * Reading (`lines`, `delim:X`, `all-bytes`) is built for speed: chunks are read big, delimiters
 * are found with `Buffer.indexOf`, every message's content is a `subarray` of the chunk it came
 * from (no copy), only the unterminated tail of a chunk is copied over to the next one, and all
 * complete pieces currently buffered are handed out as one batch (up to {@link MAX_BATCH}).
 *
 * Writing (`lines`, `delim:X`, `append`, `all-bytes`) builds one Buffer per batch; consecutive
 * messages that are adjacent slices of one chunk, separated by exactly the delimiter (what the
 * readers produce), are copied as one run.
 */
import type { Readable } from 'node:stream';
import { Message, f, type Batch, type Field } from '@svc/engine';

/** The most messages one read hands out as a batch. */
export const MAX_BATCH = 4096;
/** The size of the chunks the `file` input reads. */
export const CHUNK_SIZE = 256 * 1024;
/** Bytes a chunk source buffers ahead before it pauses its stream (back-pressure). */
const READ_AHEAD = 1024 * 1024;

const EMPTY = Buffer.alloc(0);
const NEWLINE = Buffer.from('\n');

// ---------------------------------------------------------------------------------------------
// Codec names
// ---------------------------------------------------------------------------------------------

/** How an input splits a stream into messages. */
export interface ReadCodec {
  readonly kind: 'lines' | 'delim' | 'all-bytes';
  /** The delimiter (`\n` for `lines`; empty for `all-bytes`). */
  readonly delim: Buffer;
}

/** How an output joins messages into a stream. */
export interface WriteCodec {
  readonly kind: 'lines' | 'delim' | 'append' | 'all-bytes';
  /** Written after every message (`\n` for `lines`; empty for `append` and `all-bytes`). */
  readonly suffix: Buffer;
}

const READ_NAMES = 'lines, delim:<delimiter> (e.g. delim:|| ) or all-bytes';
const WRITE_NAMES = 'lines, delim:<delimiter> (e.g. delim:|| ), append or all-bytes';

/** Parses an input codec name; returns an error message for an unsupported one. */
export function parseReadCodec(name: string): ReadCodec | string {
  if (name === 'lines') return { kind: 'lines', delim: NEWLINE };
  if (name === 'all-bytes') return { kind: 'all-bytes', delim: EMPTY };
  if (name.startsWith('delim:')) {
    const d = name.slice('delim:'.length);
    if (d === '') return `codec "${name}" has an empty delimiter: write delim:<delimiter>, e.g. delim:|`;
    return { kind: 'delim', delim: Buffer.from(d) };
  }
  return `unsupported codec "${name}": this input supports ${READ_NAMES}`;
}

/** Parses an output codec name; returns an error message for an unsupported one. */
export function parseWriteCodec(name: string): WriteCodec | string {
  if (name === 'lines') return { kind: 'lines', suffix: NEWLINE };
  if (name === 'append') return { kind: 'append', suffix: EMPTY };
  if (name === 'all-bytes') return { kind: 'all-bytes', suffix: EMPTY };
  if (name.startsWith('delim:')) {
    const d = name.slice('delim:'.length);
    if (d === '') return `codec "${name}" has an empty delimiter: write delim:<delimiter>, e.g. delim:|`;
    return { kind: 'delim', suffix: Buffer.from(d) };
  }
  return `unsupported codec "${name}": this output supports ${WRITE_NAMES}`;
}

/** Like {@link parseReadCodec} but throws on an unsupported name (for factories). */
export function readCodec(name: string): ReadCodec {
  const c = parseReadCodec(name);
  if (typeof c === 'string') throw new TypeError(c);
  return c;
}

/** Like {@link parseWriteCodec} but throws on an unsupported name (for factories). */
export function writeCodec(name: string): WriteCodec {
  const c = parseWriteCodec(name);
  if (typeof c === 'string') throw new TypeError(c);
  return c;
}

/** The `codec` field of an input (lint rejects unsupported names). */
export function readCodecField(): Field<string> {
  return f
    .string()
    .default('lines')
    .validate((v) => {
      const c = parseReadCodec(v);
      return typeof c === 'string' ? c : undefined;
    })
    .describe(
      'How the bytes are split into messages: `lines` (one message per `\\n`-terminated line, the `\\n` removed and ' +
        'nothing else: a `\\r` stays), `delim:X` (split on the delimiter X, which may be several characters) or ' +
        '`all-bytes` (the whole stream is one message). A final unterminated piece is a message too; an empty ' +
        'piece after a final delimiter is not.',
    );
}

/** The `codec` field of an output (lint rejects unsupported names). */
export function writeCodecField(allBytes: string): Field<string> {
  return f
    .string()
    .default('lines')
    .validate((v) => {
      const c = parseWriteCodec(v);
      return typeof c === 'string' ? c : undefined;
    })
    .describe(
      'How messages are written: `lines` (each message followed by `\\n`), `delim:X` (each message followed by the ' +
        `delimiter X), \`append\` (the raw bytes, nothing in between) or \`all-bytes\` (${allBytes}).`,
    );
}

/** The `max_buffer` field of the line-reading inputs. */
export function maxBufferField(): Field<number> {
  return f
    .int()
    .default(1_000_000)
    .advanced()
    .validate((v) => (v >= 1 ? undefined : 'max_buffer must be at least 1'))
    .describe(
      'The longest line (or delimited piece), in bytes. A longer one ends the stream with an error (exit 1) once ' +
        'the lines before it were delivered, unless `skip_long_lines` is true. Not applied to `all-bytes`.',
    );
}

/** The `skip_long_lines` field of the line-reading inputs. */
export function skipLongLinesField(): Field<boolean> {
  return f
    .bool()
    .default(false)
    .advanced()
    .svcOnly()
    .describe(
      'What to do with a line (or delimited piece) longer than `max_buffer`: false (the default) stops the input ' +
        'there and ends the stream with an error (exit 1) once the lines before it were delivered; true skips the ' +
        'line, logs a warning, reads on, and logs how many lines were skipped when the input ends.',
    );
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/** A piece longer than `max_buffer`. */
export class LineTooLongError extends Error {
  constructor(
    readonly maxBuffer: number,
    /** The stream offset of its first byte. */
    readonly offset: number,
    /** Its number in the stream, from 1 (pieces skipped before it included). */
    readonly line: number,
  ) {
    super(`line ${line} (starting at byte ${offset}) is longer than max_buffer (${maxBuffer} bytes)`);
    this.name = 'LineTooLongError';
  }
}

/** Told of each piece skipped for being longer than `max_buffer` (with `skip_long_lines`). */
export type OnSkip = (skipped: LineTooLongError) => void;

/**
 * Splits a stream of chunks on a delimiter. Pieces are views into the chunk they lie in (no
 * copy); a piece spanning chunks is copied once, when its end arrives (a delimiter may span
 * chunks too). The unterminated tail is kept as views of its chunks until then, so a long line
 * arriving in many small chunks is still copied only once.
 *
 * A piece longer than `maxBuffer` stops the splitter (`tooLong`), or, with `onSkip`, is dropped
 * as it arrives (only its last `delim.length - 1` bytes are kept, to find a delimiter that spans
 * chunks) and splitting goes on after it.
 *
 *   s.push(chunk); s.take(out, max) ... until !s.pending; then push the next chunk;
 *   at the end: s.finish() gives the final unterminated piece, if any.
 */
export class Splitter {
  private readonly d: number;
  private readonly byte: number;
  private chunk: Buffer = EMPTY;
  private pos = 0;
  /** The unterminated piece carried over from earlier chunks: views of them, in order. */
  private tail: Buffer[] = [];
  private tailLen = 0;
  /** A piece completed by push() (tail + the head of the new chunk), not yet taken. */
  private first: Buffer | undefined;
  /** The stream offset of `chunk[0]`, for error messages. */
  private chunkOffset = 0;
  /** Pieces handed out so far (for the line number of a long one). */
  private produced = 0;
  /** While dropping a long piece whose end has not arrived: its last `d - 1` bytes (a copy). */
  private dropping: Buffer | undefined;
  /** Pieces dropped for being longer than maxBuffer (with onSkip). */
  skipped = 0;
  /** Set when a piece longer than maxBuffer was found (without onSkip); nothing more is produced. */
  tooLong: LineTooLongError | undefined;

  constructor(
    readonly delim: Buffer,
    readonly maxBuffer: number,
    private readonly onSkip?: OnSkip,
  ) {
    if (delim.length === 0) throw new TypeError('empty delimiter');
    this.d = delim.length;
    this.byte = delim[0]!;
  }

  /** True while pieces of the current chunk may remain to be taken. */
  get pending(): boolean {
    return this.tooLong === undefined && (this.first !== undefined || this.pos < this.chunk.length);
  }

  /** Feeds the next chunk. Call only when `pending` is false. */
  push(chunk: Buffer): void {
    if (this.tooLong) return;
    this.chunkOffset += this.chunk.length;
    this.chunk = chunk;
    this.pos = 0;
    if (this.dropping !== undefined) return this.drop();
    const tailLen = this.tailLen;
    if (tailLen === 0) return;
    const d = this.d;
    // A delimiter straddling the boundary starts in the tail's last d-1 bytes (the tail holds
    // no whole delimiter), so look in that seam first: it comes before any in the chunk.
    if (d > 1) {
      const fromTail = Math.min(tailLen, d - 1);
      const seam = Buffer.concat([this.tailEnd(fromTail), chunk.subarray(0, d - 1)]);
      const p = seam.indexOf(this.delim);
      if (p >= 0) {
        const keep = tailLen - fromTail + p;
        if (keep > this.maxBuffer) return this.long(this.chunkOffset - tailLen, p + d - fromTail);
        this.complete(this.joinTail().subarray(0, keep), p + d - fromTail);
        return;
      }
    }
    const i = d === 1 ? chunk.indexOf(this.byte) : chunk.indexOf(this.delim);
    if (i < 0) {
      this.tail.push(chunk);
      this.tailLen += chunk.length;
      this.chunk = EMPTY;
      this.chunkOffset += chunk.length;
      if (this.tailLen > this.maxBuffer) {
        this.long(this.chunkOffset - this.tailLen, Buffer.from(this.tailEnd(Math.min(d - 1, this.tailLen))));
      }
      return;
    }
    if (tailLen + i > this.maxBuffer) return this.long(this.chunkOffset - tailLen, i + d);
    this.complete(i === 0 ? this.joinTail() : this.joinTail(chunk.subarray(0, i)), i + d);
  }

  /** In a dropped piece: looks for its end in the new chunk; splitting resumes after it. */
  private drop(): void {
    const chunk = this.chunk;
    const d = this.d;
    const seen = this.dropping!;
    if (seen.length > 0) {
      const p = Buffer.concat([seen, chunk.subarray(0, d - 1)]).indexOf(this.delim);
      if (p >= 0) {
        this.dropping = undefined;
        this.pos = p + d - seen.length;
        return;
      }
    }
    const i = d === 1 ? chunk.indexOf(this.byte) : chunk.indexOf(this.delim);
    if (i >= 0) {
      this.dropping = undefined;
      this.pos = i + d;
      return;
    }
    const k = d - 1;
    this.dropping = Buffer.from(chunk.length >= k ? chunk.subarray(chunk.length - k) : Buffer.concat([seen, chunk]).subarray(-k));
    this.chunkOffset += chunk.length;
    this.chunk = EMPTY;
  }

  /**
   * A piece longer than maxBuffer starts at stream offset `offset`. `next` is where splitting
   * resumes in the current chunk (after its delimiter), or, when its end has not arrived yet, the
   * last `d - 1` bytes seen of it.
   */
  private long(offset: number, next: number | Buffer): void {
    const err = new LineTooLongError(this.maxBuffer, offset, this.produced + this.skipped + 1);
    this.tail = [];
    this.tailLen = 0;
    this.first = undefined;
    if (this.onSkip === undefined) {
      this.tooLong = err;
      this.chunk = EMPTY;
      this.pos = 0;
      return;
    }
    this.skipped++;
    this.onSkip(err);
    if (typeof next === 'number') {
      this.pos = next;
      return;
    }
    this.dropping = next;
    this.chunkOffset += this.chunk.length;
    this.chunk = EMPTY;
    this.pos = 0;
  }

  /** The tail as one Buffer (one copy; none when it is a single view), plus `extra`. */
  private joinTail(extra?: Buffer): Buffer {
    const t = this.tail;
    if (extra === undefined) return t.length === 1 ? t[0]! : Buffer.concat(t, this.tailLen);
    return Buffer.concat([...t, extra], this.tailLen + extra.length);
  }

  /** The last k bytes of the tail. */
  private tailEnd(k: number): Buffer {
    const t = this.tail;
    const parts: Buffer[] = [];
    for (let j = t.length - 1; j >= 0 && k > 0; j--) {
      const p = t[j]!;
      if (p.length >= k) {
        parts.unshift(p.subarray(p.length - k));
        k = 0;
      } else {
        parts.unshift(p);
        k -= p.length;
      }
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  private complete(piece: Buffer, next: number): void {
    this.tail = [];
    this.tailLen = 0;
    this.first = piece;
    this.pos = next;
  }

  /**
   * Appends up to `max - out.length` complete pieces to `out`, as messages whose content is a
   * lazy slice of the chunk (no Buffer view is made per line unless someone reads it).
   */
  take(out: Message[], max: number): void {
    if (this.first !== undefined) {
      if (out.length >= max) return;
      out.push(new Message(this.first));
      this.produced++;
      this.first = undefined;
    }
    const chunk = this.chunk;
    const d = this.d;
    const byte = this.byte;
    const delim = this.delim;
    const maxBuffer = this.maxBuffer;
    // Buffer.from(arrayBuffer, offset, length) is a view like subarray(), but cheaper.
    const ab = chunk.buffer as ArrayBuffer;
    const base = chunk.byteOffset;
    let pos = this.pos;
    let start = out.length;
    while (out.length < max) {
      const i = d === 1 ? chunk.indexOf(byte, pos) : chunk.indexOf(delim, pos);
      if (i < 0) {
        this.produced += out.length - start;
        // No more delimiters in this chunk: the rest is the start of the next piece.
        const rest = chunk.length - pos;
        if (rest > maxBuffer) {
          return this.long(this.chunkOffset + pos, Buffer.from(chunk.subarray(Math.max(pos, chunk.length - (d - 1)))));
        }
        if (rest > 0) {
          this.tail = [Buffer.from(ab, base + pos, rest)];
          this.tailLen = rest;
        }
        this.chunkOffset += chunk.length;
        this.chunk = EMPTY;
        this.pos = 0;
        return;
      }
      if (i - pos > maxBuffer) {
        this.produced += out.length - start;
        start = out.length;
        this.long(this.chunkOffset + pos, i + d);
        if (this.tooLong) return;
        pos = i + d;
        continue;
      }
      out.push(Message.slice(chunk, pos, i));
      pos = i + d;
    }
    this.produced += out.length - start;
    this.pos = pos;
  }

  /** At the end of the stream: the final unterminated piece, if there is one. */
  finish(): Buffer | undefined {
    if (this.tailLen === 0 || this.tooLong !== undefined) return undefined;
    const t = this.joinTail();
    this.tail = [];
    this.tailLen = 0;
    this.produced++;
    return t;
  }
}

/** A source of chunks: `null` at the end of the stream. */
export interface ChunkSource {
  next(): Buffer | null | Promise<Buffer | null>;
  /** Stops reading: a pending `next()` resolves `null`. */
  close(): void;
}

/**
 * The chunks of a Readable, as they come (no concatenation), with back-pressure: the stream is
 * paused while more than ~1 MiB is buffered here.
 */
export class StreamChunks implements ChunkSource {
  private readonly queue: Buffer[] = [];
  private head = 0;
  private queued = 0;
  private paused = false;
  private ended = false;
  private closed = false;
  private error: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly stream: Readable,
    private readonly destroyOnClose = true,
  ) {
    stream.on('data', this.onData);
    stream.on('end', this.onEnd);
    stream.on('close', this.onEnd);
    stream.on('error', this.onError);
  }

  private readonly onData = (c: Buffer | string): void => {
    const chunk = typeof c === 'string' ? Buffer.from(c) : c;
    if (chunk.length === 0) return;
    this.queue.push(chunk);
    this.queued += chunk.length;
    if (this.queued >= READ_AHEAD && !this.paused) {
      this.paused = true;
      this.stream.pause();
    }
    this.notify();
  };

  private readonly onEnd = (): void => {
    this.ended = true;
    this.notify();
  };

  private readonly onError = (err: Error): void => {
    this.error ??= err;
    this.ended = true;
    this.notify();
  };

  private notify(): void {
    const w = this.wake;
    if (w) {
      this.wake = undefined;
      w();
    }
  }

  next(): Buffer | null | Promise<Buffer | null> {
    if (this.head < this.queue.length) {
      const c = this.queue[this.head]!;
      this.queue[this.head++] = EMPTY;
      if (this.head === this.queue.length) {
        this.queue.length = 0;
        this.head = 0;
      }
      this.queued -= c.length;
      if (this.paused && this.queued < READ_AHEAD / 2 && !this.closed) {
        this.paused = false;
        this.stream.resume();
      }
      return c;
    }
    if (this.closed) return null;
    if (this.error) throw this.error;
    if (this.ended) return null;
    return new Promise<void>((resolve) => (this.wake = resolve)).then(() => this.next());
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.head = 0;
    this.stream.off('data', this.onData);
    this.stream.off('end', this.onEnd);
    this.stream.off('close', this.onEnd);
    // Keep an error listener: an error after close must not crash the process.
    this.stream.on('error', () => {});
    this.stream.off('error', this.onError);
    if (this.destroyOnClose) this.stream.destroy();
    else this.stream.pause();
    this.notify();
  }
}

/**
 * Reads pieces from a chunk source with a codec. `read()` gives the complete pieces currently
 * buffered (at most {@link MAX_BATCH}) synchronously when it has some, else waits for the next
 * chunk; `null` at the end. It throws a {@link LineTooLongError} (once the pieces before the long
 * one were handed out) or the stream's error; with `onSkip` a long piece is skipped instead.
 */
export class CodecReader {
  private readonly splitter: Splitter | undefined;
  private ended = false;
  private closed = false;

  constructor(
    private readonly source: ChunkSource,
    codec: ReadCodec,
    maxBuffer: number,
    private readonly maxBatch = MAX_BATCH,
    onSkip?: OnSkip,
  ) {
    this.splitter = codec.kind === 'all-bytes' ? undefined : new Splitter(codec.delim, maxBuffer, onSkip);
  }

  /** Pieces skipped for being longer than max_buffer (with `onSkip`). */
  get skipped(): number {
    return this.splitter?.skipped ?? 0;
  }

  read(): Message[] | null | Promise<Message[] | null> {
    if (this.ended || this.closed) return null;
    const s = this.splitter;
    if (!s) return this.readAll();
    const out: Message[] = [];
    for (;;) {
      const r = this.take(s, out);
      if (r !== undefined) return r;
      const c = this.source.next();
      if (c instanceof Promise) return c.then((chunk) => this.resume(s, chunk));
      if (c === null) return this.atEnd(s);
      s.push(c);
    }
  }

  /** Takes the buffered pieces: what read() returns, or undefined when it needs another chunk. */
  private take(s: Splitter, out: Message[]): Message[] | undefined {
    if (s.pending) {
      s.take(out, this.maxBatch);
      if (out.length >= this.maxBatch) return out;
    }
    if (s.tooLong) {
      // Hand out the pieces before the long one first; the next read throws, then the reader ends.
      if (out.length > 0) return out;
      this.ended = true;
      throw s.tooLong;
    }
    return out.length > 0 ? out : undefined;
  }

  private resume(s: Splitter, chunk: Buffer | null): Message[] | null | Promise<Message[] | null> {
    if (this.closed) return null;
    if (chunk === null) return this.atEnd(s);
    s.push(chunk);
    return this.read();
  }

  private atEnd(s: Splitter): Message[] | null {
    this.ended = true;
    const last = s.finish();
    return last ? [new Message(last)] : null;
  }

  private async readAll(): Promise<Message[] | null> {
    const parts: Buffer[] = [];
    for (;;) {
      const c = await this.source.next();
      if (this.closed) return null;
      if (c === null) break;
      parts.push(c);
    }
    this.ended = true;
    return [new Message(parts.length === 1 ? parts[0]! : Buffer.concat(parts))];
  }

  close(): void {
    this.closed = true;
    this.source.close();
  }
}

/**
 * Lets `close()` end a pending read. (Not `Promise.race` with a long-lived "closed" promise:
 * every race would stay attached to it and retain its result, i.e. every batch ever read.)
 */
export class CloseGate {
  private end: (() => void) | undefined;
  closed = false;

  /** `p`, or `onClose` as soon as close() is called. */
  wrap<T, E>(p: Promise<T>, onClose: E): Promise<T | E> {
    if (this.closed) return Promise.resolve(onClose);
    return new Promise<T | E>((resolve, reject) => {
      const end = (): void => resolve(onClose);
      this.end = end;
      p.then(
        (v) => {
          if (this.end === end) this.end = undefined;
          resolve(v);
        },
        (err: unknown) => {
          if (this.end === end) this.end = undefined;
          reject(err);
        },
      );
    });
  }

  close(): void {
    this.closed = true;
    const e = this.end;
    this.end = undefined;
    e?.();
  }
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/**
 * The bytes of a batch: each message followed by `suffix` unless it already ends with it (as
 * Benthos' writers: `"a\n"` is written once, not followed by an empty line), in ONE Buffer.
 * Consecutive messages that are adjacent slices of the same memory, separated by exactly
 * `suffix`, are copied as a single run (so re-joining what a reader split is one memcpy per chunk).
 */
export function encodeBatch(batch: Batch, suffix: Buffer): Buffer {
  const n = batch.length;
  const d = suffix.length;
  if (n === 0) return EMPTY;
  if (n === 1 && d === 0) return batch[0]!.content;
  let total = 0;
  for (let i = 0; i < n; i++) total += batch[i]!.byteLength + d;
  const out = Buffer.allocUnsafe(total);
  let pos = 0;
  for (let i = 0; i < n;) {
    const j = runAfter(batch, i, suffix);
    const src = batch[i]!.rangeSource;
    const end = batch[j - 1]!.rangeEnd;
    pos += src.copy(out, pos, batch[i]!.rangeStart, end);
    if (d > 0 && !endsWithAt(src, batch[j - 1]!.rangeStart, end, suffix)) {
      if (d === 1) out[pos++] = suffix[0]!;
      else pos += suffix.copy(out, pos);
    }
    i = j;
  }
  return pos === total ? out : out.subarray(0, pos);
}

/** True when `buf[start, end)` ends with `suffix` (a non-empty one). */
function endsWithAt(buf: Buffer, start: number, end: number, suffix: Buffer): boolean {
  return suffix.length > 0 && end - start >= suffix.length && hasAt(buf, end - suffix.length, suffix);
}

/**
 * The bytes of a batch as views of the memory its messages already share, with no copy: when the
 * batch is at most `maxRuns` runs of adjacent slices, each followed in that memory by `suffix`
 * (what the `stdin` and `file` readers make of a chunk; a line joined across two chunks is its
 * own run, its suffix a view of `suffix`). Undefined when it is not, or when a view would be
 * smaller than a copy is worth: encodeBatch then copies.
 */
export function batchViews(batch: Batch, suffix: Buffer, maxRuns = 64): Buffer[] | undefined {
  const n = batch.length;
  const d = suffix.length;
  const views: Buffer[] = [];
  let bytes = 0;
  for (let i = 0; i < n;) {
    const j = runAfter(batch, i, suffix);
    const src = batch[i]!.rangeSource;
    const start = batch[i]!.rangeStart;
    const end = batch[j - 1]!.rangeEnd;
    if (endsWithAt(src, batch[j - 1]!.rangeStart, end, suffix)) views.push(src.subarray(start, end));
    else if (end + d <= src.length && hasAt(src, end, suffix)) views.push(src.subarray(start, end + d));
    else views.push(src.subarray(start, end), suffix);
    bytes += end - start + d;
    if (views.length > maxRuns) return undefined;
    i = j;
  }
  // Many small views cost more (a buffer each, an iovec each) than one copy.
  return views.length > 0 && bytes / views.length >= 4096 ? views : undefined;
}

/**
 * The index after the run that starts at message `i`: the messages that follow it as adjacent
 * slices of the same memory, each starting right after the previous one's end plus a delimiter
 * that is exactly `suffix` there (what a reader splitting one chunk makes).
 */
function runAfter(batch: Batch, i: number, suffix: Buffer): number {
  const src = batch[i]!.rangeSource;
  let end = batch[i]!.rangeEnd;
  let j = i + 1;
  for (; j < batch.length; j++) {
    const next = batch[j]!;
    if (next.rangeSource !== src || next.rangeStart !== end + suffix.length || !hasAt(src, end, suffix)) break;
    end = next.rangeEnd;
  }
  return j;
}

/** True when `buf` holds `bytes` at `at`. */
function hasAt(buf: Buffer, at: number, bytes: Buffer): boolean {
  for (let k = 0; k < bytes.length; k++) if (buf[at + k] !== bytes[k]) return false;
  return true;
}
