/**
 * Tokens of the mapping language. Newlines are tokens because Bloblang is line-oriented:
 * a newline ends a statement, and an operator must sit on the same line as its left operand.
 */
import { JsonNumber } from '../message/json-number.js';
import { type WholeFloat, float64 } from './values.js';
import { InterpError } from './errors.js';

export type TokKind = 'ident' | 'number' | 'string' | 'var' | 'meta' | 'op' | 'nl' | 'eof';

export interface Token {
  kind: TokKind;
  /** Identifier or operator text; the decoded value of a string; the name of `$var` / `@meta`. */
  text: string;
  /** Numbers only. */
  num?: number | JsonNumber | WholeFloat;
  /** Offset in the source, and its 1-based line and column. */
  pos: number;
  line: number;
  col: number;
  /** Offset just past the token. */
  end: number;
  /** True when spaces or tabs precede the token on its line. */
  spaced: boolean;
}

const OPS2 = new Set(['==', '!=', '<=', '>=', '&&', '||', '->', '=>']);
const OPS1 = new Set(['(', ')', '{', '}', '[', ']', ',', ':', '.', '=', '<', '>', '+', '-', '*', '/', '%', '!', '|']);

function isIdentChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Maps offsets to 1-based line/column. */
export class Positions {
  private readonly starts: number[] = [0];
  constructor(src: string) {
    for (let i = 0; i < src.length; i++) if (src.charCodeAt(i) === 10) this.starts.push(i + 1);
  }
  at(pos: number): { line: number; col: number } {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: pos - this.starts[lo]! + 1 };
  }
}

/**
 * Produces tokens of `src[start, end)` on demand: the parser pulls them one by one, so an
 * interpolation can stop at the `}` that closes its expression and leave the rest as text.
 */
export class Lexer {
  private i: number;
  private spaced = false;
  private prev: Token | undefined;

  constructor(
    private readonly src: string,
    private readonly positions: Positions = new Positions(src),
    start = 0,
    private readonly end = src.length,
  ) {
    this.i = start;
  }

  private err(msg: string, at: number): never {
    const p = this.positions.at(at);
    throw new InterpError(msg, p.line, p.col);
  }

  private make(kind: TokKind, text: string, from: number, to: number, num?: number | JsonNumber | WholeFloat): Token {
    const p = this.positions.at(from);
    const t: Token = { kind, text, pos: from, line: p.line, col: p.col, end: to, spaced: this.spaced };
    if (num !== undefined) t.num = num;
    this.spaced = false;
    this.i = to;
    this.prev = t;
    return t;
  }

  next(): Token {
    const { src, end } = this;
    let i = this.i;
    while (i < end) {
      const c = src.charCodeAt(i);
      if (c === 32 || c === 9 || c === 13) {
        this.spaced = true;
        i++;
        continue;
      }
      if (c === 35) {
        // '#' comment to end of line
        while (i < end && src.charCodeAt(i) !== 10) i++;
        continue;
      }
      if (c === 10) {
        if (this.prev === undefined || this.prev.kind === 'nl') {
          i++;
          this.spaced = false;
          continue;
        }
        const t = this.make('nl', '\n', i, i + 1);
        this.spaced = false;
        return t;
      }
      const prev = this.prev;
      const afterDot = prev !== undefined && prev.kind === 'op' && prev.text === '.';
      if (isIdentChar(c) && (afterDot || !isDigit(c))) {
        let j = i + 1;
        while (j < end && isIdentChar(src.charCodeAt(j))) j++;
        return this.make('ident', src.slice(i, j), i, j);
      }
      if (isDigit(c)) {
        let j = i + 1;
        while (j < end && isDigit(src.charCodeAt(j))) j++;
        if (j + 1 < end && src.charCodeAt(j) === 46 && isDigit(src.charCodeAt(j + 1))) {
          j += 2;
          while (j < end && isDigit(src.charCodeAt(j))) j++;
        }
        const text = src.slice(i, j);
        // An integer literal is an int64 in Go: one beyond its range is a parse error, not a float.
        if (!text.includes('.') && BigInt(text) > 9223372036854775807n) {
          this.err(`failed to parse '${text}' as integer: strconv.ParseInt: parsing "${text}": value out of range`, i);
        }
        // an int64 beyond 2^53 stays exact (a JsonNumber), as Go's int64 literal does
        return this.make('number', text, i, j, text.includes('.') ? float64(Number(text)) : JsonNumber.ofInt(BigInt(text)));
      }
      if (c === 34) {
        const r = readString(src, i, end, (m, at) => this.err(m, at));
        return this.make('string', r.value, i, r.end);
      }
      if (c === 36) {
        // $var
        let j = i + 1;
        while (j < end && isIdentChar(src.charCodeAt(j))) j++;
        if (j === i + 1) this.err('expected a variable name after $', i);
        return this.make('var', src.slice(i + 1, j), i, j);
      }
      if (c === 64) {
        // @ / @key / @"quoted key"
        let j = i + 1;
        let name: string;
        if (j < end && src.charCodeAt(j) === 34) {
          const r = readString(src, j, end, (m, at) => this.err(m, at));
          name = r.value;
          j = r.end;
        } else {
          while (j < end && isIdentChar(src.charCodeAt(j))) j++;
          name = src.slice(i + 1, j);
        }
        return this.make('meta', name, i, j);
      }
      const two = src.slice(i, i + 2);
      if (two.length === 2 && i + 2 <= end && OPS2.has(two)) return this.make('op', two, i, i + 2);
      const one = src[i]!;
      if (OPS1.has(one)) return this.make('op', one, i, i + 1);
      this.err(`unexpected character ${JSON.stringify(one)}`, i);
    }
    this.i = i;
    const p = this.positions.at(end);
    return { kind: 'eof', text: '', pos: end, line: p.line, col: p.col, end, spaced: this.spaced };
  }
}

/** Reads a quoted string at `i` (`"..."` with Go escapes, or `"""raw"""`). */
export function readString(src: string, i: number, end: number, err: (msg: string, at: number) => never): { value: string; end: number } {
  if (src.startsWith('"""', i)) {
    const close = src.indexOf('"""', i + 3);
    if (close === -1 || close + 3 > end) err('required: end of triple-quoted string', i);
    return { value: src.slice(i + 3, close), end: close + 3 };
  }
  let out = '';
  let j = i + 1;
  while (true) {
    if (j >= end) return err('required: end of quoted string', i);
    const c = src[j]!;
    if (c === '"') return { value: out, end: j + 1 };
    if (c === '\n') return err('required: end of quoted string', i);
    if (c !== '\\') {
      out += c;
      j++;
      continue;
    }
    const e = src[j + 1];
    j += 2;
    switch (e) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case "'":
        out += "'";
        break;
      case 'a':
        out += '\x07';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'v':
        out += '\v';
        break;
      case '/':
        out += '/';
        break;
      case 'x':
      case 'u':
      case 'U': {
        const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        const hex = src.slice(j, j + n);
        if (hex.length !== n || !/^[0-9a-fA-F]+$/.test(hex)) return err(`invalid escape \\${e}${hex}`, j - 2);
        const cp = parseInt(hex, 16);
        if (e === 'x') out += Buffer.from([cp]).toString('latin1');
        else if (cp > 0x10ffff) return err(`invalid escape \\${e}${hex}`, j - 2);
        else out += String.fromCodePoint(cp);
        j += n;
        break;
      }
      default:
        if (e !== undefined && e >= '0' && e <= '7') {
          const oct = src.slice(j - 1, j + 2);
          if (!/^[0-7]{3}$/.test(oct)) return err(`invalid escape \\${oct}`, j - 2);
          out += String.fromCharCode(parseInt(oct, 8));
          j += 2;
          break;
        }
        return err(`invalid escape \\${e ?? ''}`, j - 2);
    }
  }
}
