/**
 * Go's strconv parsers as kin-openapi parses a parameter's text (`parsePrimitiveCase`):
 * ParseInt(s, 0, 64), ParseFloat(s, 64) and ParseBool, each answering the value or the
 * NumError's reason (`invalid syntax` / `value out of range`).
 */

/** A parse: the value, or Go's reason for refusing the text. */
export type GoParse<T> = { value: T } | { error: 'invalid syntax' | 'value out of range' };

const SYNTAX = { error: 'invalid syntax' } as const;
const RANGE = { error: 'value out of range' } as const;

/** Go's underscoreOK: underscores only between digits, or between a base prefix and a digit. */
function underscoreOK(text: string): boolean {
  let s = text;
  let saw = '^';
  let i = 0;
  if (s.startsWith('-') || s.startsWith('+')) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && 'bBoOxX'.includes(s[1]!)) {
    i = 2;
    saw = '0';
    hex = s[1] === 'x' || s[1] === 'X';
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

const MAX_UINT64 = (1n << 64n) - 1n;

/** strconv.ParseInt(s, 0, 64): sign, base prefix (0x, 0o, 0b, a leading 0 for octal), underscores. */
export function goParseInt(s0: string): GoParse<number> {
  if (s0 === '') return SYNTAX;
  let s = s0;
  const neg = s.startsWith('-');
  if (neg || s.startsWith('+')) s = s.slice(1);
  if (s === '') return SYNTAX;
  let base = 10n;
  if (s[0] === '0') {
    const p = s[1]?.toLowerCase();
    if (s.length >= 3 && p === 'b') [base, s] = [2n, s.slice(2)];
    else if (s.length >= 3 && p === 'o') [base, s] = [8n, s.slice(2)];
    else if (s.length >= 3 && p === 'x') [base, s] = [16n, s.slice(2)];
    else [base, s] = [8n, s.slice(1)];
  }
  const cutoff = MAX_UINT64 / base + 1n;
  let n = 0n;
  let underscores = false;
  for (const c of s) {
    if (c === '_') {
      underscores = true;
      continue;
    }
    const d = BigInt(/[0-9]/.test(c) ? c.charCodeAt(0) - 48 : /[a-z]/i.test(c) ? c.toLowerCase().charCodeAt(0) - 87 : 99);
    if (d >= base) return SYNTAX;
    if (n >= cutoff) return RANGE;
    n = n * base + d;
    if (n > MAX_UINT64) return RANGE;
  }
  if (underscores && !underscoreOK(s0)) return SYNTAX;
  if ((!neg && n >= 1n << 63n) || (neg && n > 1n << 63n)) return RANGE;
  return { value: Number(neg ? -n : n) };
}

const DECIMAL = /^[+-]?(?:[0-9_]+\.?[0-9_]*|\.[0-9_]+)(?:[eE][+-]?[0-9_]+)?$/;
const HEX_FLOAT = /^([+-]?)0[xX]([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?[0-9_]+)$/;

/** strconv.ParseFloat(s, 64): decimal and hexadecimal (with `p` exponent) forms, underscores, Inf/Infinity/NaN. */
export function goParseFloat(s: string): GoParse<number> {
  if (/^[+-]?(inf|infinity)$/i.test(s)) return { value: s.startsWith('-') ? -Infinity : Infinity };
  if (/^nan$/i.test(s)) return { value: NaN };
  if (s.includes('_') && !underscoreOK(s)) return SYNTAX;
  const plain = s.replaceAll('_', '');
  let value: number;
  const hex = HEX_FLOAT.exec(s);
  if (DECIMAL.test(s) && /[0-9]/.test(plain.replace(/[eE].*$/, ''))) value = Number(plain);
  else if (hex !== null) {
    const [, sign, whole = '', frac = '', exp = '0'] = hex;
    const digits = (whole + frac).replaceAll('_', '');
    if (digits === '') return SYNTAX;
    value = Number(BigInt(`0x${digits}`)) * 2 ** (Number(exp.replaceAll('_', '')) - 4 * frac.replaceAll('_', '').length);
    if (sign === '-') value = -value;
  } else return SYNTAX;
  return Number.isFinite(value) ? { value } : RANGE;
}

/** strconv.ParseBool. */
export function goParseBool(s: string): GoParse<boolean> {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return { value: true };
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return { value: false };
  return SYNTAX;
}
