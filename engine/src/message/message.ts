import { MessageContext } from './context.js';
import { cloneJson, parseJson, stringifyJson } from './json.js';
import type { JsonNumber } from './json-number.js';

/**
 * A metadata value: a string, or any structured (JSON-like) value. A number read from JSON keeps
 * its text (a {@link JsonNumber}) here as in documents.
 */
export type MetaValue = string | number | JsonNumber | boolean | null | MetaValue[] | { [key: string]: MetaValue };

const EMPTY = Buffer.alloc(0);
const UNPARSED = Symbol('unparsed');

/** Messages newly flagged with an error on this thread (see {@link flaggedCount}). */
let flagged = 0;

/**
 * How many messages were newly flagged with an error on this thread so far. The runtime reads it
 * before and after a processor call to count the messages that processor failed on, without
 * scanning the batch.
 */
export function flaggedCount(): number {
  return flagged;
}

/**
 * A message: bytes, metadata, a lazily parsed structured view, an error flag and a ctx.
 *
 * Contents are immutable by convention: processors replace `content` with a new Buffer and
 * never write into the bytes, so copies (broker fan-out, replay snapshots) share buffers
 * safely. Metadata is copied on the first write after a copy.
 */
export class Message {
  private _content: Buffer | undefined;
  /** A lazy slice: the content is `_src[_start, _end)`, made into a Buffer only when read. */
  private _src: Buffer | undefined;
  private _start = 0;
  private _end = 0;
  private _json: unknown = UNPARSED;
  private _meta: Map<string, MetaValue> | undefined;
  private _metaShared = false;
  private _error: string | undefined = undefined;
  private _ctx: MessageContext | undefined;

  constructor(content?: Buffer | string, metadata?: Record<string, MetaValue> | Map<string, MetaValue>) {
    this._content = content === undefined ? EMPTY : typeof content === 'string' ? Buffer.from(content) : content;
    if (metadata !== undefined) {
      this._meta = metadata instanceof Map ? new Map(metadata) : new Map(Object.entries(metadata));
    }
  }

  /**
   * A message with `metadata` shared copy-on-write (no copy now; the first write copies it): for
   * an input that gives many messages the same metadata, or builds a Map for a message anyway.
   * The caller must not change the map afterwards.
   */
  static sharingMeta(content: Buffer | string, metadata: Map<string, MetaValue>): Message {
    const m = new Message(content);
    m._meta = metadata;
    m._metaShared = true;
    return m;
  }

  /**
   * A message whose content is `buf[start, end)`, without making a Buffer view for it until
   * someone reads `content` (inputs that split big chunks, and the thread codec, use it).
   */
  static slice(buf: Buffer, start: number, end: number, metadata?: Record<string, MetaValue>): Message {
    const m = new Message(undefined, metadata);
    m._content = undefined;
    m._src = buf;
    m._start = start;
    m._end = end;
    return m;
  }

  /** The raw bytes. Replace, never mutate in place. */
  get content(): Buffer {
    if (this._content === undefined) {
      if (this._src !== undefined) {
        this._content = this._src.subarray(this._start, this._end);
        this._src = undefined;
      } else {
        this._content = Buffer.from(stringifyJson(this._json));
      }
    }
    return this._content;
  }

  set content(value: Buffer) {
    this._content = value;
    this._src = undefined;
    this._json = UNPARSED;
  }

  /**
   * Where the content lies, without making a view: bytes `[rangeStart, rangeEnd)` of
   * `rangeSource` (a lazy slice's source buffer, or the content itself). Writers use it to copy
   * runs of adjacent messages at once.
   */
  get rangeSource(): Buffer {
    return this._content === undefined && this._src !== undefined ? this._src : this.content;
  }

  get rangeStart(): number {
    return this._content === undefined && this._src !== undefined ? this._start : 0;
  }

  get rangeEnd(): number {
    return this._content === undefined && this._src !== undefined ? this._end : this.content.length;
  }

  /** Takes `other`'s metadata, shared copy-on-write (cheap: for many messages with the same keys). */
  shareMetaOf(other: Message): void {
    if (other._meta === undefined) {
      this._meta = undefined;
      return;
    }
    this._meta = other._meta;
    this._metaShared = true;
    other._metaShared = true;
  }

  /** Copies the content into `target` at `offset` (no intermediate view); returns its length. */
  copyContentTo(target: Buffer, offset: number): number {
    if (this._content === undefined && this._src !== undefined) return this._src.copy(target, offset, this._start, this._end);
    return this.content.copy(target, offset);
  }

  /** The content as a UTF-8 string. */
  text(): string {
    return this.content.toString('utf8');
  }

  /**
   * The content parsed as JSON, parsed once and cached. Throws a SyntaxError on invalid JSON.
   * Numbers that a JS number would change (64-bit ids, `1.10`, `1e2`) are JsonNumbers that keep
   * their text, so writing the document back gives the same numbers.
   */
  json(): unknown {
    if (this._json === UNPARSED) {
      // a lazy slice is decoded straight from its source (no Buffer view made for it)
      const text = this._content === undefined && this._src !== undefined ? this._src.toString('utf8', this._start, this._end) : this.content.toString('utf8');
      this._json = parseJson(text);
    }
    return this._json;
  }

  /** Sets the structured view; the bytes are re-serialised lazily on the next read of `content`. */
  setJson(value: unknown): void {
    this._json = value;
    this._content = undefined;
    this._src = undefined;
  }

  /** True when a structured view is cached (parsed or set). */
  hasJson(): boolean {
    return this._json !== UNPARSED;
  }

  /** Byte length of the content, metadata excluded (what batch policies count). */
  get byteLength(): number {
    if (this._content === undefined && this._src !== undefined) return this._end - this._start;
    return this.content.length;
  }

  /** The error text when a processor failed on this message, else undefined. */
  get error(): string | undefined {
    return this._error;
  }

  set error(value: string | undefined) {
    if (value !== undefined && this._error === undefined) flagged++;
    this._error = value;
  }

  /**
   * Sets a flag the message already had (a copy's, or one carried across threads) without counting
   * it as a new failure. For the runtime.
   */
  static restoreError(m: Message, error: string | undefined): void {
    m._error = error;
  }

  /**
   * In-process values under typed keys (see `contextKey`), created on first use. Copies share
   * it: a value set on any copy is seen by all of them and by the input that read the message.
   */
  get ctx(): MessageContext {
    return (this._ctx ??= new MessageContext());
  }

  /** Makes this message share `other`'s ctx (creating it): a message the runtime rebuilt after a thread hop. */
  shareCtxOf(other: Message): void {
    this._ctx = other.ctx;
  }

  /** True when this message carries a ctx (without creating one). */
  hasCtx(): boolean {
    return this._ctx !== undefined;
  }

  getMeta(key: string): MetaValue | undefined {
    return this._meta?.get(key);
  }

  /** The metadata value as a string ('' when absent); structured values are JSON-encoded. */
  getMetaString(key: string): string {
    const v = this._meta?.get(key);
    if (v === undefined || v === null) return '';
    return typeof v === 'string' ? v : stringifyJson(v);
  }

  setMeta(key: string, value: MetaValue): void {
    this.ownMeta().set(key, value);
  }

  deleteMeta(key: string): void {
    if (this._meta?.has(key)) this.ownMeta().delete(key);
  }

  clearMeta(): void {
    this._meta = undefined;
    this._metaShared = false;
  }

  hasMeta(): boolean {
    return this._meta !== undefined && this._meta.size > 0;
  }

  /** Iterates the metadata entries. */
  metaEntries(): IterableIterator<[string, MetaValue]> {
    return (this._meta ?? new Map<string, MetaValue>()).entries();
  }

  /** Metadata as a plain object (a snapshot). */
  metaObject(): Record<string, MetaValue> {
    const out: Record<string, MetaValue> = {};
    if (this._meta) for (const [k, v] of this._meta) out[k] = v;
    return out;
  }

  /** Marks the message as failed with the error text; later processors can see it. */
  setError(err: unknown): void {
    this.error = err instanceof Error ? err.message : String(err);
  }

  /**
   * A cheap copy: shares the content buffer, the metadata (copied on first write) and the ctx.
   * Use it wherever one message goes two ways (broker fan-out, replay snapshots).
   */
  copy(): Message {
    const m = new Message(this._content);
    if (this._content === undefined && this._src !== undefined) {
      m._content = undefined;
      m._src = this._src;
      m._start = this._start;
      m._end = this._end;
    } else if (this._content === undefined) {
      m._content = undefined;
      m._json = cloneJson(this._json);
    } else if (this._json !== UNPARSED && (this._json === null || typeof this._json !== 'object')) m._json = this._json;
    if (this._meta !== undefined) {
      m._meta = this._meta;
      m._metaShared = true;
      this._metaShared = true;
    }
    m._error = this._error;
    m._ctx = this._ctx;
    return m;
  }

  private ownMeta(): Map<string, MetaValue> {
    if (this._meta === undefined) {
      this._meta = new Map();
    } else if (this._metaShared) {
      this._meta = new Map(this._meta);
      this._metaShared = false;
    }
    return this._meta;
  }
}

/** A batch: inputs produce them, outputs consume them; a single message is a batch of one. */
export type Batch = Message[];

/** Copies every message of a batch (see {@link Message.copy}). */
export function copyBatch(batch: Batch): Batch {
  const out = new Array<Message>(batch.length);
  for (let i = 0; i < batch.length; i++) out[i] = batch[i]!.copy();
  return out;
}

/** Sum of content bytes of a batch, metadata excluded. */
export function batchBytes(batch: Batch): number {
  let n = 0;
  for (let i = 0; i < batch.length; i++) n += batch[i]!.byteLength;
  return n;
}
