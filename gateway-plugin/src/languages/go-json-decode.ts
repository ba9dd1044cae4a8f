/**
 * A request body decoded as Go's json.Decoder decodes it (what gojsonschema and kin-openapi use in
 * Tyk): the first JSON value (what follows it is not read), or Go's error text: `EOF` for no value,
 * `unexpected EOF` for a value cut short, `invalid character 'x' <where>` (encoding/json's
 * scanner words) for a syntax error, `invalid character '[' exceeded max depth` for a value nested
 * more than Go's 10,000 deep (JSON.parse alone would take any depth, and the schema checks after
 * it must not meet a value deeper than Tyk's decoder lets through).
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

/** encoding/json's maxNestingDepth: a value nested deeper is a syntax error, as Go's scanner reports it. */
export const MAX_NESTING_DEPTH = 10_000;

/**
 * Scans one value of `b` from `i` (after spaces); returns the offset after it. Throws SyntaxFailure,
 * or 'eof' when cut short. Iterative, with the open containers on a list: a body nested 100,000
 * deep is Go's `exceeded max depth`, never this thread's stack.
 */
function scanValue(b: Buffer, i: number): number {
  const bad = (at: number, context: string): never => {
    if (b[at] === undefined) throw 'eof';
    throw new SyntaxFailure(`invalid character ${quoteChar(b[at])} ${context}`);
  };
  /** After `{` or `,` in an object: the key and its colon; returns the offset of the value. */
  const key = (at: number): number => {
    while (isSpace(b[at])) at++;
    if (b[at] !== 0x22) bad(at, 'looking for beginning of object key string');
    at = scanString(b, at);
    while (isSpace(b[at])) at++;
    if (b[at] !== 0x3a) bad(at, 'after object key');
    return at + 1;
  };
  const open: number[] = [];
  for (;;) {
    // A value begins at i.
    while (isSpace(b[i])) i++;
    const c = b[i];
    if (c === undefined) throw 'eof';
    if (c === 0x7b || c === 0x5b) {
      if (open.length >= MAX_NESTING_DEPTH) throw new SyntaxFailure(`invalid character ${quoteChar(c)} exceeded max depth`);
      i++;
      while (isSpace(b[i])) i++;
      if (b[i] !== (c === 0x7b ? 0x7d : 0x5d)) {
        open.push(c);
        if (c === 0x7b) i = key(i);
        continue;
      }
      i++;
    } else i = scanScalar(b, i, c, bad);
    // A value ended at i: close what it ends, or go on to the next element.
    for (;;) {
      const top = open[open.length - 1];
      if (top === undefined) return i;
      while (isSpace(b[i])) i++;
      if (b[i] === 0x2c) {
        i = top === 0x7b ? key(i + 1) : i + 1;
        break;
      }
      if (b[i] !== (top === 0x7b ? 0x7d : 0x5d)) bad(i, top === 0x7b ? 'after object key:value pair' : 'after array element');
      open.pop();
      i++;
    }
  }
}

/** A string, number or literal beginning with `c` at `i`; returns the offset after it. */
function scanScalar(b: Buffer, i: number, c: number, bad: (at: number, context: string) => never): number {
  if (c === 0x22) return scanString(b, i);
  if (c === 0x2d || isDigit(c)) return scanNumber(b, i, bad);
  for (const word of ['true', 'false', 'null']) {
    if (c !== word.charCodeAt(0)) continue;
    for (let k = 1; k < word.length; k++) if (b[i + k] !== word.charCodeAt(k)) bad(i + k, `in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
    return i + word.length;
  }
  return bad(i, 'looking for beginning of value');
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
