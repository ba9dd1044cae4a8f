/**
 * A request body decoded as Go's json.Decoder decodes it (what gojsonschema and kin-openapi use in
 * Tyk): the first JSON value (what follows it is not read), or Go's error text: `EOF` for no value,
 * `unexpected EOF` for a value cut short, `invalid character 'x' <where>` (encoding/json's
 * scanner words) for a syntax error.
 */

/** Go's quoteChar in encoding/json's scanner, for one byte. */
function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x5c: '\\\\' };
  if (named[c] !== undefined) return `'${named[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  if (c >= 0x80 && (c < 0xa0 || c === 0xad)) return `'\\u${c.toString(16).padStart(4, '0')}'`;
  return `'${String.fromCharCode(c)}'`;
}

class SyntaxFailure {
  constructor(readonly text: string) {}
}

const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39;
const isHex = (c: number | undefined): boolean => c !== undefined && (isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46));

/** Scans one value of `b` from `i` (after spaces); returns the offset after it. Throws SyntaxFailure, or 'eof' when cut short. */
function scanValue(b: Buffer, i: number, where = 'looking for beginning of value'): number {
  while (isSpace(b[i])) i++;
  const c = b[i];
  if (c === undefined) throw 'eof';
  const bad = (at: number, context: string): never => {
    if (b[at] === undefined) throw 'eof';
    throw new SyntaxFailure(`invalid character ${quoteChar(b[at])} ${context}`);
  };
  if (c === 0x7b) {
    i++;
    while (isSpace(b[i])) i++;
    if (b[i] === 0x7d) return i + 1;
    for (;;) {
      while (isSpace(b[i])) i++;
      if (b[i] !== 0x22) bad(i, 'looking for beginning of object key string');
      i = scanString(b, i);
      while (isSpace(b[i])) i++;
      if (b[i] !== 0x3a) bad(i, 'after object key');
      i = scanValue(b, i + 1);
      while (isSpace(b[i])) i++;
      if (b[i] === 0x2c) {
        i++;
        continue;
      }
      if (b[i] === 0x7d) return i + 1;
      bad(i, 'after object key:value pair');
    }
  }
  if (c === 0x5b) {
    i++;
    while (isSpace(b[i])) i++;
    if (b[i] === 0x5d) return i + 1;
    for (;;) {
      i = scanValue(b, i);
      while (isSpace(b[i])) i++;
      if (b[i] === 0x2c) {
        i++;
        continue;
      }
      if (b[i] === 0x5d) return i + 1;
      bad(i, 'after array element');
    }
  }
  if (c === 0x22) return scanString(b, i);
  if (c === 0x2d || isDigit(c)) return scanNumber(b, i, bad);
  for (const word of ['true', 'false', 'null']) {
    if (c !== word.charCodeAt(0)) continue;
    for (let k = 1; k < word.length; k++) if (b[i + k] !== word.charCodeAt(k)) bad(i + k, `in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
    return i + word.length;
  }
  return bad(i, where);
}

function scanString(b: Buffer, i: number): number {
  i++;
  for (;;) {
    const c = b[i];
    if (c === undefined) throw 'eof';
    if (c === 0x22) return i + 1;
    if (c < 0x20) throw new SyntaxFailure(`invalid character ${quoteChar(c)} in string literal`);
    if (c === 0x5c) {
      const e = b[i + 1];
      if (e === undefined) throw 'eof';
      if (e === 0x75) {
        for (let k = 2; k < 6; k++) {
          if (b[i + k] === undefined) throw 'eof';
          if (!isHex(b[i + k])) throw new SyntaxFailure(`invalid character ${quoteChar(b[i + k]!)} in \\u hexadecimal character escape`);
        }
        i += 6;
        continue;
      }
      if (!'"\\/bfnrt'.includes(String.fromCharCode(e))) throw new SyntaxFailure(`invalid character ${quoteChar(e)} in string escape code`);
      i += 2;
      continue;
    }
    i++;
  }
}

function scanNumber(b: Buffer, i: number, bad: (at: number, context: string) => never): number {
  if (b[i] === 0x2d) {
    i++;
    if (!isDigit(b[i])) bad(i, 'in numeric literal');
  }
  if (b[i] === 0x30) i++;
  else while (isDigit(b[i])) i++;
  if (b[i] === 0x2e) {
    i++;
    if (!isDigit(b[i])) bad(i, 'after decimal point in numeric literal');
    while (isDigit(b[i])) i++;
  }
  if (b[i] === 0x65 || b[i] === 0x45) {
    i++;
    if (b[i] === 0x2b || b[i] === 0x2d) i++;
    if (!isDigit(b[i])) bad(i, 'in exponent of numeric literal');
    while (isDigit(b[i])) i++;
  }
  // A number at the end of the body is complete (the decoder sees EOF as its end).
  return i;
}

/** The first JSON value of `body` as Go's json.Decoder reads it, or Go's error text. */
export function decodeBody(body: Buffer): { value: unknown } | { error: string } {
  let start = 0;
  while (isSpace(body[start])) start++;
  if (start === body.length) return { error: 'EOF' };
  let end: number;
  try {
    end = scanValue(body, start);
  } catch (err) {
    if (err instanceof SyntaxFailure) return { error: err.text };
    return { error: 'unexpected EOF' };
  }
  return { value: JSON.parse(body.subarray(start, end).toString('utf8')) as unknown };
}
