/**
 * JSON that keeps numbers as they were written: what the engine parses from a message (and from
 * anything else it carries: metadata, worker hops) it writes back byte for byte in its numbers.
 *
 * Fast path: a document whose numbers all round-trip as JS numbers (no number token that looks
 * like trouble: an exponent, a fraction ending in 0, `-0`, 16 or more digits, a tiny or large decimal) is
 * `JSON.parse`d as it is (the test is a quick scan of the text). Anything else goes through a
 * small parser that gives those numbers as {@link JsonNumber}s. Writing is `JSON.stringify`
 * unless it meets a JsonNumber, which makes it write again with a writer that puts the number's
 * text in place.
 */
import { JsonNumber, RAW_NUMBER_MARK, collectRawNumbers, numberFromText } from './json-number.js';

/**
 * Whether the text may hold a number that a JS number would change (false positives only cost the
 * slow path). Such a number token has a digit followed by an exponent (`1e2`), a fraction ending
 * in 0 (`1.10`, `-0.0`) or 15 more digits or points (a 64-bit id, 17 significant digits); or is a
 * fraction of 1e6 or more or below 1e-4 (`1234567.5`, `0.00001`: Go prints those with an exponent,
 * so `.string()` needs the text) or `-0`. V8 scans a pattern
 * that starts with one fixed-length class quickly, and literal searches faster still: this test
 * costs about a tenth of JSON.parse on a 1 KB document.
 */
const SUSPECT = new RegExp(String.raw`\d[eE][-+\d]|\d\.\d*0(?!\d)|\d{7}\.|\d` + String.raw`[\d.]`.repeat(15));

function mayChangeNumbers(text: string): boolean {
  if (SUSPECT.test(text) || text.includes('.0000')) return true;
  for (let i = text.indexOf('-0'); i >= 0; i = text.indexOf('-0', i + 2)) {
    const c = text.charCodeAt(i + 2); // NaN at the end of the text
    if (!(c === 0x2e || c === 0x65 || c === 0x45 || (c >= 0x30 && c <= 0x39))) return true;
  }
  return false;
}

/** `JSON.parse`, keeping every number that a JS number would change as a {@link JsonNumber}. */
export function parseJson(text: string): unknown {
  if (!mayChangeNumbers(text)) return JSON.parse(text);
  try {
    return new Reader(text).document();
  } catch (e) {
    if (e !== BAD) throw e;
    return JSON.parse(text); // invalid JSON: let the native parser throw its usual error
  }
}

const BAD = Symbol('bad json');
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
const WS = /[ \t\n\r]*/y;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f]/;

/** A recursive-descent JSON reader; any syntax error throws BAD (the caller re-parses natively for the message). */
class Reader {
  private i = 0;
  constructor(private readonly s: string) {}

  document(): unknown {
    const v = this.value();
    this.ws();
    if (this.i !== this.s.length) throw BAD;
    return v;
  }

  private ws(): void {
    WS.lastIndex = this.i;
    WS.test(this.s);
    this.i = WS.lastIndex;
  }

  private value(): unknown {
    this.ws();
    const s = this.s;
    const c = s.charCodeAt(this.i);
    switch (c) {
      case 0x7b /* { */: {
        this.i++;
        const out: Record<string, unknown> = {};
        this.ws();
        if (s.charCodeAt(this.i) === 0x7d) {
          this.i++;
          return out;
        }
        for (;;) {
          this.ws();
          if (s.charCodeAt(this.i) !== 0x22) throw BAD;
          const k = this.string();
          this.ws();
          if (s.charCodeAt(this.i++) !== 0x3a) throw BAD;
          const v = this.value();
          if (k === '__proto__') Object.defineProperty(out, k, { value: v, writable: true, enumerable: true, configurable: true });
          else out[k] = v;
          this.ws();
          const d = s.charCodeAt(this.i++);
          if (d === 0x7d) return out;
          if (d !== 0x2c) throw BAD;
        }
      }
      case 0x5b /* [ */: {
        this.i++;
        const out: unknown[] = [];
        this.ws();
        if (s.charCodeAt(this.i) === 0x5d) {
          this.i++;
          return out;
        }
        for (;;) {
          out.push(this.value());
          this.ws();
          const d = s.charCodeAt(this.i++);
          if (d === 0x5d) return out;
          if (d !== 0x2c) throw BAD;
        }
      }
      case 0x22 /* " */:
        return this.string();
      case 0x74 /* t */:
        return this.word('true', true);
      case 0x66 /* f */:
        return this.word('false', false);
      case 0x6e /* n */:
        return this.word('null', null);
      default: {
        NUMBER.lastIndex = this.i;
        const m = NUMBER.exec(s);
        if (m === null) throw BAD;
        this.i = NUMBER.lastIndex;
        return numberFromText(m[0]);
      }
    }
  }

  private word<T>(w: string, v: T): T {
    if (!this.s.startsWith(w, this.i)) throw BAD;
    this.i += w.length;
    return v;
  }

  private string(): string {
    const s = this.s;
    const start = this.i; // at the opening quote
    let j = start + 1;
    let escaped = false;
    for (;;) {
      const q = s.indexOf('"', j);
      if (q < 0) throw BAD;
      const b = s.indexOf('\\', j);
      if (b < 0 || b > q) {
        this.i = q + 1;
        if (!escaped) {
          const raw = s.slice(start + 1, q);
          if (CONTROL.test(raw)) throw BAD; // invalid inside a JSON string: the native parser says why
          return raw;
        }
        return JSON.parse(s.slice(start, q + 1)) as string;
      }
      escaped = true;
      j = b + 2;
    }
  }
}

/** `JSON.stringify` that writes a {@link JsonNumber} as its text (and bytes as base64, as Go does). */
export function stringifyJson(v: unknown, indent?: string): string {
  return stringifyRaw(v, undefined, indent);
}

/** The same for a value that may hold bytes, which Go's encoder writes as base64. */
export function stringifyJsonWithBytes(v: unknown, indent?: string): string {
  return stringifyRaw(v, bytesReplacer, indent);
}

/** `"MARK<index>"` as JSON.stringify writes a JsonNumber's placeholder (see collectRawNumbers). */
const RAW_NUMBER = new RegExp(`"${JSON.stringify(RAW_NUMBER_MARK).slice(1, -1).replace(/\\/g, '\\\\')}(\\d+)"`, 'g');

function stringifyRaw(v: unknown, replacer: ((this: unknown, key: string, value: unknown) => unknown) | undefined, indent: string | undefined): string {
  const texts: string[] = [];
  const prev = collectRawNumbers(texts);
  let s: string;
  try {
    s = JSON.stringify(v, replacer, indent) ?? 'null';
  } finally {
    collectRawNumbers(prev);
  }
  if (texts.length === 0) return s;
  // Placeholders come in the order they were handed out; anything else (a document string that
  // happens to read as one) and the document is written again, the slow way.
  let next = 0;
  const out = s.replace(RAW_NUMBER, (m, i: string) => (Number(i) === next ? texts[next++]! : ((next = -1), m)));
  return next === texts.length ? out : (write(v, indent ?? '', '') ?? 'null');
}

function bytesReplacer(this: unknown, key: string, value: unknown): unknown {
  const orig = (this as Record<string, unknown>)[key];
  if (orig instanceof Uint8Array) return base64(orig);
  if (typeof value === 'symbol') return null;
  return value;
}

function base64(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
}

/** JSON.stringify's algorithm (toJSON, skipped undefined/functions/symbols, indentation) plus raw number text. */
function write(v: unknown, indent: string, at: string): string | undefined {
  if (v instanceof JsonNumber) return v.text;
  if (v instanceof Uint8Array) return JSON.stringify(base64(v));
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    v = (v as { toJSON: () => unknown }).toJSON();
  }
  switch (typeof v) {
    case 'string':
    case 'number':
    case 'boolean':
      return JSON.stringify(v);
    case 'bigint':
      return v.toString();
    case 'object': {
      if (v === null) return 'null';
      const inner = at + indent;
      const open = indent ? '\n' + inner : '';
      const sep = indent ? ',\n' + inner : ',';
      const close = indent ? '\n' + at : '';
      if (Array.isArray(v)) {
        if (v.length === 0) return '[]';
        const parts = new Array<string>(v.length);
        for (let i = 0; i < v.length; i++) parts[i] = write(v[i], indent, inner) ?? 'null';
        return '[' + open + parts.join(sep) + close + ']';
      }
      const parts: string[] = [];
      const colon = indent ? ': ' : ':';
      for (const k of Object.keys(v)) {
        const s = write((v as Record<string, unknown>)[k], indent, inner);
        if (s !== undefined) parts.push(JSON.stringify(k) + colon + s);
      }
      if (parts.length === 0) return '{}';
      return '{' + open + parts.join(sep) + close + '}';
    }
    default:
      return undefined; // undefined, functions, symbols: skipped in objects, null in arrays
  }
}

/** A deep copy of a JSON value: containers are copied, numbers (JsonNumbers too) and other values shared. */
export function cloneJson(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(cloneJson);
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const e = cloneJson((v as Record<string, unknown>)[k]);
    if (k === '__proto__') Object.defineProperty(out, k, { value: e, writable: true, enumerable: true, configurable: true });
    else out[k] = e;
  }
  return out;
}

/** True when a value holds a {@link JsonNumber} anywhere (it must cross a thread as JSON text). */
export function holdsJsonNumber(v: unknown): boolean {
  if (v instanceof JsonNumber) return true;
  if (typeof v !== 'object' || v === null) return false;
  if (Array.isArray(v)) return v.some(holdsJsonNumber);
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k of Object.keys(v)) if (holdsJsonNumber((v as Record<string, unknown>)[k])) return true;
  return false;
}
