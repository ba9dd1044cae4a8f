/**
 * Benthos' scanners: how the `file` input turns a stream of bytes into messages when `scanner`
 * is set (instead of `codec`). Each scanner is an async generator over the stream's chunks that
 * yields the messages complete so far as one batch: nothing is yielded before its bytes were
 * read, and a file's last piece is only yielded at its end. `decompress`, `skip_bom` and `switch`
 * wrap a child scanner. Configs are checked at lint (`parseScanner`), with Benthos' fields and
 * defaults.
 */
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { RE2JS } from 're2js';
// Relative imports, not '@svc/engine': this module is exported by @svc/engine/kit, whose
// declarations must not import the package by name from inside it.
import { f, type Field } from '../../config/spec.js';
import { errorMessage } from '../../errors.js';
import { Message, type Batch } from '../../message/message.js';

/** Turns one file's byte stream into batches of messages. */
export type Scanner = (stream: Readable, path: string) => AsyncGenerator<Batch>;

const MAX_SCAN_TOKEN = 64 * 1024;

type Conf = Record<string, unknown>;

/** What the `scanner` field of an input says, for its description. */
export const SCANNER_DESCRIPTION =
  "How the bytes of a file are split into messages, as Benthos' scanners: `lines` (`custom_delimiter`, `max_buffer_size`, " +
  '`omit_empty`), `csv` (`custom_delimiter`, `parse_header_row`, `lazy_quotes`, `continue_on_error`; metadata `csv_row`), ' +
  '`json_documents`, `re_match` (`pattern`, `max_buffer_size`), `chunker` (`size`), `to_the_end`, `decompress` ' +
  '(`algorithm`: gzip, zlib, flate; `into`), `skip_bom` (`into`), `tar` (metadata `tar_name`) and `switch` (a list of ' +
  '`re_match_name`, `scanner`).';

/** An input's `scanner` field: any value, checked at lint by {@link parseScanner}. */
export function scannerField(): Field<unknown> {
  return f.any().validate((v) => {
    if (v === undefined) return undefined;
    try {
      parseScanner(v);
      return undefined;
    } catch (err) {
      return errorMessage(err);
    }
  });
}

/** Reads a scanner's batches one after the other (`null` at the end), as the codec readers do. */
export class ScannerReader {
  /** A scanner skips nothing (a codec reader may skip long lines). */
  readonly skipped = 0;

  constructor(
    private readonly batches: AsyncGenerator<Batch>,
    /** Stops the stream the scanner reads. */
    private readonly destroy: () => void,
  ) {}

  async read(): Promise<Message[] | null> {
    const r = await this.batches.next();
    return r.done ? null : r.value;
  }

  close(): void {
    this.destroy();
    void this.batches.return(undefined).catch(() => undefined);
  }
}

/** Parses a scanner config (`{lines: {}}`, ...); throws a TypeError naming what is wrong. */
export function parseScanner(conf: unknown, at = 'scanner'): Scanner {
  if (conf === null || typeof conf !== 'object' || Array.isArray(conf)) throw new TypeError(`${at}: expected an object naming one scanner, e.g. {lines: {}}`);
  const keys = Object.keys(conf);
  if (keys.length !== 1) throw new TypeError(`${at}: name exactly one scanner (${SCANNERS.join(', ')}), found ${keys.length ? keys.join(', ') : 'none'}`);
  const name = keys[0]!;
  const raw = (conf as Conf)[name] ?? {};
  if (typeof raw !== 'object' || raw === null) throw new TypeError(`${at}.${name}: expected an object`);
  const c = raw as Conf;
  const known = FIELDS[name];
  if (!known) throw new TypeError(`${at}: unknown scanner "${name}": use one of ${SCANNERS.join(', ')}`);
  if (name !== 'switch')
    for (const k of Object.keys(c)) if (!known.includes(k)) throw new TypeError(`${at}.${name}: unknown field "${k}" (fields: ${known.join(', ') || 'none'})`);
  switch (name) {
    case 'lines':
      return linesScanner(str(c, 'custom_delimiter', at) ?? '', int(c, 'max_buffer_size', MAX_SCAN_TOKEN, at), bool(c, 'omit_empty', false, at));
    case 're_match': {
      const pattern = str(c, 'pattern', at);
      if (pattern === undefined) throw new TypeError(`${at}.re_match: pattern is required`);
      return reMatchScanner(compileRe(pattern, `${at}.re_match.pattern`), int(c, 'max_buffer_size', MAX_SCAN_TOKEN, at));
    }
    case 'chunker': {
      const size = int(c, 'size', 0, at);
      if (size < 1) throw new TypeError(`${at}.chunker: size must be at least 1`);
      return chunkerScanner(size);
    }
    case 'to_the_end':
      return toTheEndScanner;
    case 'json_documents':
      return jsonDocumentsScanner;
    case 'csv':
      return csvScanner({
        delimiter: str(c, 'custom_delimiter', at) ?? ',',
        header: bool(c, 'parse_header_row', true, at),
        lazyQuotes: bool(c, 'lazy_quotes', false, at),
        continueOnError: bool(c, 'continue_on_error', false, at),
      });
    case 'decompress': {
      const algorithm = str(c, 'algorithm', at);
      if (algorithm === undefined) throw new TypeError(`${at}.decompress: algorithm is required (gzip, zlib, flate)`);
      const make = DECOMPRESSORS[algorithm];
      if (!make) throw new TypeError(`${at}.decompress: algorithm "${algorithm}" is not supported here: use gzip, zlib or flate`);
      const child = parseScanner(c.into ?? { to_the_end: {} }, `${at}.decompress.into`);
      return (stream, path) => child(stream.pipe(make()), path);
    }
    case 'skip_bom': {
      const child = parseScanner(c.into ?? { to_the_end: {} }, `${at}.skip_bom.into`);
      return (stream, path) => child(stream.pipe(skipBom()), path);
    }
    case 'switch':
      return switchScanner(raw, at);
    case 'tar':
      return tarScanner;
  }
  throw new TypeError(`${at}: unknown scanner "${name}"`);
}

const FIELDS: Record<string, string[]> = {
  lines: ['custom_delimiter', 'max_buffer_size', 'omit_empty'],
  re_match: ['pattern', 'max_buffer_size'],
  chunker: ['size'],
  to_the_end: [],
  json_documents: [],
  csv: ['custom_delimiter', 'parse_header_row', 'lazy_quotes', 'continue_on_error'],
  decompress: ['algorithm', 'into'],
  skip_bom: ['into'],
  switch: [],
  tar: [],
};
const SCANNERS = Object.keys(FIELDS);

const DECOMPRESSORS: Record<string, () => Transform> = {
  gzip: () => createGunzip(),
  pgzip: () => createGunzip(),
  zlib: () => createInflate(),
  flate: () => createInflateRaw(),
};

function str(c: Conf, k: string, at: string): string | undefined {
  const v = c[k];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new TypeError(`${at}: ${k} must be a string`);
  return v;
}
function int(c: Conf, k: string, def: number, at: string): number {
  const v = c[k];
  if (v === undefined) return def;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new TypeError(`${at}: ${k} must be an integer`);
  return v;
}
function bool(c: Conf, k: string, def: boolean, at: string): boolean {
  const v = c[k];
  if (v === undefined) return def;
  if (typeof v !== 'boolean') throw new TypeError(`${at}: ${k} must be true or false`);
  return v;
}
function compileRe(p: string, at: string): RE2JS {
  try {
    return RE2JS.compile(p);
  } catch (err) {
    throw new TypeError(`${at}: invalid RE2 regex "${p}": ${(err as Error).message}`);
  }
}

/** A message over its own copy of the bytes (chunks are reused by the stream). */
const msg = (b: Buffer): Message => new Message(Buffer.from(b));

/** A token longer than the scanner's buffer: the same words as Go's bufio.Scanner. */
class TokenTooLong extends Error {
  constructor() {
    super('bufio.Scanner: token too long');
  }
}

function linesScanner(custom: string, maxBuffer: number, omitEmpty: boolean): Scanner {
  const delim = Buffer.from(custom === '' ? '\n' : custom);
  const crlf = custom === '';
  return async function* (stream) {
    let rest = Buffer.alloc(0);
    const token = (b: Buffer): Message | undefined => {
      // Go's ScanLines drops a \r before the \n.
      const t = crlf && b.length > 0 && b[b.length - 1] === 0x0d ? b.subarray(0, b.length - 1) : b;
      return omitEmpty && t.length === 0 ? undefined : msg(t);
    };
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let buf = rest.length ? Buffer.concat([rest, chunk]) : chunk;
      const out: Batch = [];
      let at: number;
      while ((at = buf.indexOf(delim)) >= 0) {
        const m = token(buf.subarray(0, at));
        if (m) out.push(m);
        buf = buf.subarray(at + delim.length);
      }
      if (buf.length > maxBuffer) throw new TokenTooLong();
      rest = Buffer.from(buf);
      if (out.length) yield out;
    }
    if (rest.length) {
      const m = token(rest);
      if (m) yield [m];
    }
  };
}

function reMatchScanner(re: RE2JS, maxBuffer: number): Scanner {
  // Segments start where the pattern matches: each token runs from one match to the next.
  return async function* (stream) {
    let text = '';
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      text += chunk.toString('latin1');
      const out: Batch = [];
      for (;;) {
        const starts = matchStarts(re, text, 2);
        if (starts.length < 2) break;
        const cut = starts[0] === 0 ? starts[1]! : starts[0]!;
        out.push(new Message(Buffer.from(text.slice(0, cut), 'latin1')));
        text = text.slice(cut);
      }
      if (text.length > maxBuffer) throw new TokenTooLong();
      if (out.length) yield out;
    }
    const out: Batch = [];
    while (text.length) {
      const starts = matchStarts(re, text, 2);
      const cut = starts.length === 0 || (starts.length === 1 && starts[0] === 0) ? text.length : starts[0] === 0 ? starts[1]! : starts[0]!;
      out.push(new Message(Buffer.from(text.slice(0, cut), 'latin1')));
      text = text.slice(cut);
    }
    if (out.length) yield out;
  };
}

/** The start offsets of up to `n` non-overlapping matches (text is latin1: one char per byte). */
function matchStarts(re: RE2JS, text: string, n: number): number[] {
  const m = re.matcher(text);
  const out: number[] = [];
  while (out.length < n && m.find()) {
    out.push(m.start());
    if (m.end() === m.start() && m.end() >= text.length) break;
  }
  return out;
}

function chunkerScanner(size: number): Scanner {
  return async function* (stream) {
    let rest = Buffer.alloc(0);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let buf = rest.length ? Buffer.concat([rest, chunk]) : chunk;
      const out: Batch = [];
      while (buf.length >= size) {
        out.push(msg(buf.subarray(0, size)));
        buf = buf.subarray(size);
      }
      rest = Buffer.from(buf);
      if (out.length) yield out;
    }
    if (rest.length) yield [msg(rest)];
  };
}

const toTheEndScanner: Scanner = async function* (stream) {
  const parts: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) parts.push(Buffer.from(chunk));
  yield [new Message(Buffer.concat(parts))];
};

/**
 * One message per JSON document of the stream (objects, arrays or scalars, separated by
 * whitespace or nothing), written again as Benthos does (it decodes each into a Go `any` and
 * serialises that): compact, see {@link goJson}. A document that is not valid JSON ends the file
 * with an error.
 */
const jsonDocumentsScanner: Scanner = async function* (stream) {
  let buf = Buffer.alloc(0);
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    buf = buf.length ? Buffer.concat([buf, chunk]) : Buffer.from(chunk);
    const out: Batch = [];
    for (;;) {
      const doc = nextDocument(buf, false);
      if (!doc) break;
      out.push(doc.message);
      buf = buf.subarray(doc.end);
    }
    buf = Buffer.from(buf);
    if (out.length) yield out;
  }
  const out: Batch = [];
  for (;;) {
    const doc = nextDocument(buf, true);
    if (!doc) break;
    out.push(doc.message);
    buf = buf.subarray(doc.end);
  }
  if (out.length) yield out;
};

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The first complete document of `buf` and where it ends, or undefined when it is incomplete. */
function nextDocument(buf: Buffer, atEnd: boolean): { message: Message; end: number } | undefined {
  let i = 0;
  while (i < buf.length && isSpace(buf[i]!)) i++;
  if (i >= buf.length) return undefined;
  const start = i;
  const first = buf[i]!;
  let end = -1;
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    let inString = false;
    for (; i < buf.length; i++) {
      const c = buf[i]!;
      if (inString) {
        if (c === 0x5c) i++;
        else if (c === 0x22) inString = false;
      } else if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (--depth === 0) {
          end = i + 1;
          break;
        }
      }
    }
  } else if (first === 0x22) {
    for (i++; i < buf.length; i++) {
      const c = buf[i]!;
      if (c === 0x5c) i++;
      else if (c === 0x22) {
        end = i + 1;
        break;
      }
    }
  } else {
    while (i < buf.length && !isSpace(buf[i]!) && buf[i] !== 0x7b && buf[i] !== 0x5b && buf[i] !== 0x22) i++;
    if (i < buf.length || atEnd) end = i;
  }
  if (end < 0) {
    if (atEnd) throw new SyntaxError('unexpected EOF');
    return undefined;
  }
  const value: unknown = JSON.parse(buf.toString('utf8', start, end));
  return { message: new Message(Buffer.from(goJson(value))), end };
}

/** Go's encoding/json escapes these even with HTML escaping off; JSON.stringify does not. */
const LINE_SEPARATORS = /[\u2028\u2029]/g;

function goString(s: string): string {
  return JSON.stringify(s).replace(LINE_SEPARATORS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
}

/**
 * A parsed JSON value as Go's encoding/json writes an `any` that it decoded (what Benthos'
 * structured messages serialise as): object keys sorted, numbers as float64 (`2e3` → `2000`,
 * `1.50` → `1.5`, a 20-digit integer rounded; JS and Go print float64 alike, `-0` aside), no
 * whitespace, `<`, `>` and `&` not escaped.
 */
export function goJson(v: unknown): string {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (typeof v === 'string') return goString(v);
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${goString(k)}:${goJson(o[k])}`)
    .join(',')}}`;
}

interface CsvOptions {
  delimiter: string;
  header: boolean;
  lazyQuotes: boolean;
  continueOnError: boolean;
}

/** Rows as messages: objects keyed by the header row (or arrays), metadata `csv_row` from 0. */
function csvScanner(o: CsvOptions): Scanner {
  return async function* (stream) {
    const parser = new CsvParser(o.delimiter, o.lazyQuotes);
    let headers: string[] | undefined;
    let fields = -1;
    let row = 0;
    const toMessages = (records: CsvRecord[]): Batch => {
      const out: Batch = [];
      for (const r of records) {
        if (o.header && headers === undefined) {
          if (r.error) throw new Error(r.error);
          headers = r.fields;
          fields = headers.length;
          continue;
        }
        let error = r.error;
        if (!error) {
          if (fields < 0) fields = r.fields.length;
          else if (r.fields.length !== fields) error = `record on line ${r.line}: wrong number of fields`;
        }
        if (error && !o.continueOnError) throw new Error(error);
        const m = new Message(Buffer.alloc(0));
        m.setMeta('csv_row', row++);
        if (headers) {
          const obj: Record<string, string> = {};
          r.fields.forEach((v, i) => {
            if (i < headers!.length) obj[headers![i]!] = v;
          });
          m.setJson(obj);
        } else m.setJson(r.fields);
        if (error) m.setError(error);
        out.push(m);
      }
      return out;
    };
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const out = toMessages(parser.push(chunk.toString('utf8')));
      if (out.length) yield out;
    }
    const out = toMessages(parser.end());
    if (out.length) yield out;
  };
}

export interface CsvRecord {
  fields: string[];
  line: number;
  error?: string;
}

/** RFC 4180 records as Go's encoding/csv reads them (quotes, doubled quotes, CRLF, lazy_quotes). */
export class CsvParser {
  private text = '';
  private line = 1;

  constructor(
    private readonly delim: string,
    private readonly lazy: boolean,
  ) {}

  push(s: string): CsvRecord[] {
    this.text += s;
    return this.drain(false);
  }

  end(): CsvRecord[] {
    return this.drain(true);
  }

  private drain(atEnd: boolean): CsvRecord[] {
    const out: CsvRecord[] = [];
    for (;;) {
      const r = this.record(atEnd);
      if (!r) break;
      out.push(r);
    }
    return out;
  }

  /** Parses one record from the front of the text, or undefined when it is not complete yet. */
  private record(atEnd: boolean): CsvRecord | undefined {
    const t = this.text;
    if (t.length === 0) return undefined;
    const fields: string[] = [];
    let i = 0;
    let lines = 0;
    let error: string | undefined;
    for (;;) {
      let field = '';
      if (t[i] === '"') {
        i++;
        for (;;) {
          const q = t.indexOf('"', i);
          if (q < 0) {
            if (!atEnd) return undefined;
            if (!this.lazy) error ??= `record on line ${this.line}: extraneous or missing " in quoted-field`;
            field += t.slice(i);
            i = t.length;
            break;
          }
          field += t.slice(i, q);
          if (t[q + 1] === '"') {
            field += '"';
            i = q + 2;
            continue;
          }
          if (q + 1 >= t.length && !atEnd) return undefined;
          i = q + 1;
          if (i < t.length && !t.startsWith(this.delim, i) && t[i] !== '\n' && t[i] !== '\r') {
            if (!this.lazy) error ??= `record on line ${this.line}: extraneous or missing " in quoted-field`;
            field += '"';
            continue;
          }
          break;
        }
      } else {
        let j = i;
        while (j < t.length && !t.startsWith(this.delim, j) && t[j] !== '\n') j++;
        if (j >= t.length && !atEnd) return undefined;
        field = t.slice(i, j);
        if (field.endsWith('\r') && t[j] === '\n') field = field.slice(0, -1);
        if (!this.lazy && field.includes('"')) error ??= `record on line ${this.line}: bare " in non-quoted-field`;
        i = j;
      }
      lines += countNewlines(field);
      fields.push(field);
      if (t.startsWith(this.delim, i)) {
        i += this.delim.length;
        continue;
      }
      if (t[i] === '\r') i++;
      if (i < t.length && t[i] !== '\n') {
        if (!atEnd) return undefined;
      }
      if (i >= t.length && !atEnd) return undefined;
      if (i < t.length) i++;
      break;
    }
    const record: CsvRecord = { fields, line: this.line, ...(error ? { error } : {}) };
    this.line += 1 + lines;
    this.text = t.slice(i);
    // Go skips empty lines.
    if (fields.length === 1 && fields[0] === '' && !error) return this.text.length ? this.record(atEnd) : undefined;
    return record;
  }
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/** Drops UTF-8 byte order marks at the start of the stream. */
function skipBom(): Transform {
  let start = true;
  let held = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (!start) return cb(null, chunk);
      let buf = held.length ? Buffer.concat([held, chunk]) : chunk;
      while (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
      if (buf.length < 3 && [0xef, 0xbb, 0xbf].slice(0, buf.length).every((b, i) => buf[i] === b)) {
        held = Buffer.from(buf);
        return cb();
      }
      start = false;
      held = Buffer.alloc(0);
      cb(null, buf);
    },
    flush(cb) {
      cb(null, held.length ? held : undefined);
    },
  });
}

/** Picks the child scanner of the first case whose `re_match_name` matches the file's path. */
function switchScanner(raw: unknown, at: string): Scanner {
  if (!Array.isArray(raw)) throw new TypeError(`${at}.switch: expected a list of cases ({re_match_name, scanner})`);
  const cases = raw.map((c: unknown, i) => {
    const cc = (c ?? {}) as Conf;
    for (const k of Object.keys(cc))
      if (k !== 're_match_name' && k !== 'scanner') throw new TypeError(`${at}.switch.${i}: unknown field "${k}" (fields: re_match_name, scanner)`);
    const name = str(cc, 're_match_name', `${at}.switch.${i}`);
    return { re: name ? compileRe(name, `${at}.switch.${i}.re_match_name`) : undefined, scanner: parseScanner(cc.scanner, `${at}.switch.${i}.scanner`) };
  });
  return (stream, path) => {
    const c = cases.find((k) => !k.re || k.re.matcher(path).find());
    if (!c) throw new Error('source details did not match against any scanners');
    return c.scanner(stream, path);
  };
}

const BLOCK = 512;

/** A NUL-terminated field of a tar header. */
function tarString(h: Buffer, at: number, len: number): string {
  const f = h.subarray(at, at + len);
  const nul = f.indexOf(0);
  return f.subarray(0, nul < 0 ? len : nul).toString('utf8');
}

/** A numeric field: octal text, or base-256 when its high bit is set (GNU, large files). */
function tarNumber(h: Buffer, at: number, len: number): number {
  if ((h[at]! & 0x80) !== 0) {
    let n = h[at]! & 0x7f;
    for (let i = 1; i < len; i++) n = n * 256 + h[at + i]!;
    return n;
  }
  const t = tarString(h, at, len).trim();
  return t === '' ? 0 : parseInt(t, 8);
}

/** PAX records (`<len> key=value\n`): the `path` one names the next entry. */
function paxPath(body: Buffer): string | undefined {
  let path: string | undefined;
  let i = 0;
  while (i < body.length) {
    const sp = body.indexOf(0x20, i);
    if (sp < 0) break;
    const len = parseInt(body.subarray(i, sp).toString('latin1'), 10);
    if (!(len > 0)) break;
    const rec = body.subarray(sp + 1, i + len - 1).toString('utf8');
    const eq = rec.indexOf('=');
    if (eq > 0 && rec.slice(0, eq) === 'path') path = rec.slice(eq + 1);
    i += len;
  }
  return path;
}

/**
 * One message per entry of a tar archive (its content, metadata `tar_name`), as Go's
 * archive/tar gives them: PAX and GNU long-name headers name the next entry, directories are
 * entries with no content.
 */
const tarScanner: Scanner = async function* (stream) {
  let buf = Buffer.alloc(0);
  let longName: string | undefined;
  let ended = false;
  const entries = (): Batch => {
    const out: Batch = [];
    while (!ended && buf.length >= BLOCK) {
      const h = buf.subarray(0, BLOCK);
      if (h.every((b) => b === 0)) {
        ended = true;
        break;
      }
      const size = tarNumber(h, 124, 12);
      const total = BLOCK + Math.ceil(size / BLOCK) * BLOCK;
      if (buf.length < total) break;
      const body = buf.subarray(BLOCK, BLOCK + size);
      const type = String.fromCharCode(h[156]!);
      buf = buf.subarray(total);
      if (type === 'L') {
        longName = tarString(body, 0, body.length);
        continue;
      }
      if (type === 'x') {
        longName = paxPath(body) ?? longName;
        continue;
      }
      if (type === 'g' || type === 'K') continue;
      const magic = tarString(h, 257, 6);
      const prefix = magic.startsWith('ustar') ? tarString(h, 345, 155) : '';
      const name = longName ?? (prefix ? `${prefix}/${tarString(h, 0, 100)}` : tarString(h, 0, 100));
      longName = undefined;
      const m = new Message(Buffer.from(body));
      m.setMeta('tar_name', name);
      out.push(m);
    }
    return out;
  };
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (ended) continue;
    buf = buf.length ? Buffer.concat([buf, chunk]) : Buffer.from(chunk);
    const out = entries();
    if (out.length) yield out;
  }
  if (!ended && buf.length > 0) throw new Error('unexpected EOF');
};
