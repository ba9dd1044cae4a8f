/**
 * How Go's json.Decoder reads the first JSON value of a text, for its error texts: Benthos parses
 * with a decoder, so users match on `invalid character 'a' looking for beginning of value`,
 * `unexpected EOF` (the text ends inside the value) and `EOF` (it holds no value) in `catch` and
 * `switch`. A decoder stops at the end of the first value: `1 2` reads as 1 and `01` as 0.
 *
 * This is a port of the states of encoding/json's scanner (scanner.go): one pass, no recursion
 * (a container stack), so the work is linear in the text.
 */

/** The first value ends at `end` (the text after it is not read), or reading it fails with `error`. */
export type FirstValue = { end: number; error?: undefined } | { error: string };

const OBJECT = 0;
const ARRAY = 1;
/** Go's scanner refuses deeper nesting (maxNestingDepth). */
const MAX_DEPTH = 10000;

class Syntax {
  constructor(readonly message: string) {}
}

const EOF = new Syntax('unexpected EOF');

/** Go's quoteChar: the byte as a Go character literal (`'a'`, `'\x01'`, `'"'`). */
function quoteChar(s: string, i: number): string {
  let c = s.charCodeAt(i);
  if (c >= 0x80) c = Buffer.from(String.fromCodePoint(s.codePointAt(i)!), 'utf8')[0]!; // Go reads bytes
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  if (c >= 0x20 && c < 0x7f) return `'${String.fromCharCode(c)}'`;
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };
  if (named[c] !== undefined) return `'${named[c]}'`;
  if (c < 0x80) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  if (c < 0xa0 || c === 0xad) return `'\\u00${c.toString(16)}'`; // C1 controls and the soft hyphen are not printable
  return `'${String.fromCharCode(c)}'`;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/** Reads the first JSON value of `s` as Go's json.Decoder does. */
export function readFirstValue(s: string): FirstValue {
  let i = 0;
  const n = s.length;
  const fail = (context: string): never => {
    if (i >= n) throw EOF;
    throw new Syntax(`invalid character ${quoteChar(s, i)} ${context}`);
  };
  const skipSpace = (): void => {
    while (i < n && isSpace(s.charCodeAt(i))) i++;
  };
  const literal = (word: string): void => {
    for (let k = 1; k < word.length; k++) {
      i++;
      if (s.charCodeAt(i) !== word.charCodeAt(k)) fail(`in literal ${word} (expecting '${word[k]}')`);
    }
    i++;
  };
  const digits = (): void => {
    while (i < n && isDigit(s.charCodeAt(i))) i++;
  };
  const number = (): void => {
    if (s.charCodeAt(i) === 0x2d) {
      i++;
      if (!isDigit(s.charCodeAt(i))) fail('in numeric literal');
    }
    if (s.charCodeAt(i) === 0x30) i++;
    else digits();
    if (s.charCodeAt(i) === 0x2e) {
      i++;
      if (!isDigit(s.charCodeAt(i))) fail('after decimal point in numeric literal');
      digits();
    }
    const e = s.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i++;
      const sign = s.charCodeAt(i);
      if (sign === 0x2b || sign === 0x2d) i++;
      if (!isDigit(s.charCodeAt(i))) fail('in exponent of numeric literal');
      digits();
    }
  };
  const string = (): void => {
    i++; // the opening quote
    for (;;) {
      if (i >= n) throw EOF;
      const c = s.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c === 0x5c) {
        i++;
        const e = s.charCodeAt(i);
        if (e === 0x75) {
          for (let k = 0; k < 4; k++) {
            i++;
            if (!isHex(s.charCodeAt(i))) fail('in \\u hexadecimal character escape');
          }
        } else if (!(e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74)) {
          fail('in string escape code');
        }
      } else if (c < 0x20) {
        fail('in string literal');
      }
      i++;
    }
  };

  try {
    skipSpace();
    if (i >= n) return { error: 'EOF' };
    const stack: number[] = [];
    for (;;) {
      // a value begins here
      skipSpace();
      const c = s.charCodeAt(i);
      let opened = false;
      if (c === 0x7b || c === 0x5b) {
        if (stack.length >= MAX_DEPTH) fail('exceeded max depth');
        i++;
        skipSpace();
        const close = s.charCodeAt(i);
        if (c === 0x7b && close === 0x7d) i++;
        else if (c === 0x5b && close === 0x5d) i++;
        else {
          stack.push(c === 0x7b ? OBJECT : ARRAY);
          opened = true;
          if (c === 0x7b) {
            if (close !== 0x22) fail('looking for beginning of object key string');
            string();
            skipSpace();
            if (s.charCodeAt(i) !== 0x3a) fail('after object key');
            i++;
          }
        }
      } else if (c === 0x22) string();
      else if (c === 0x2d || isDigit(c)) number();
      else if (c === 0x74) literal('true');
      else if (c === 0x66) literal('false');
      else if (c === 0x6e) literal('null');
      else fail('looking for beginning of value');
      if (opened) continue;
      // the value ended: close containers, or go on to the next element
      for (;;) {
        if (stack.length === 0) {
          if (i > n) throw EOF;
          return { end: i };
        }
        skipSpace();
        const d = s.charCodeAt(i);
        const top = stack[stack.length - 1];
        if (top === OBJECT) {
          if (d === 0x7d) {
            stack.pop();
            i++;
            continue;
          }
          if (d !== 0x2c) fail('after object key:value pair');
          i++;
          skipSpace();
          if (s.charCodeAt(i) !== 0x22) fail('looking for beginning of object key string');
          string();
          skipSpace();
          if (s.charCodeAt(i) !== 0x3a) fail('after object key');
          i++;
          break;
        }
        if (d === 0x5d) {
          stack.pop();
          i++;
          continue;
        }
        if (d !== 0x2c) fail('after array element');
        i++;
        break;
      }
    }
  } catch (e) {
    if (e instanceof Syntax) return { error: e.message };
    throw e;
  }
}

/**
 * Why a message's content is not one JSON document, in Benthos' words (message.AsStructured reads
 * a value and then checks that no second one follows), or undefined when it is one.
 */
export function documentError(s: string): string | undefined {
  const first = readFirstValue(s);
  if (first.error !== undefined) return first.error;
  const second = readFirstValue(s.slice(first.end));
  if (second.error === 'EOF') return undefined;
  return second.error ?? 'message contains multiple valid documents';
}
