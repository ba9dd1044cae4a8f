/**
 * Go's string primitives where JavaScript's differ: rune-by-rune simple case mapping
 * (strings.ToUpper keeps `ß`, lowercases `İ` to `i`, never adds a final sigma), the title casing of
 * golang.org/x/text/cases (Bloblang's `capitalize`), and strconv.Unquote.
 */

import { HTML_ENTITIES } from './htmlentities.js';

// eslint-disable-next-line no-control-regex -- ASCII is every code point from 0x00 to 0x7f
const ASCII = /^[\x00-\x7f]*$/;

/** Go's unicode.ToUpper: the simple (one rune to one rune) mapping. */
function upperRune(ch: string): string {
  const u = ch.toUpperCase();
  if (u.length === 1 || (u.length === 2 && u.codePointAt(0)! > 0xffff)) return u;
  // Full mappings that expand (ß → SS, ﬁ → FI) have no simple mapping, except Greek letters with
  // ypogegrammeni, whose simple uppercase is the matching prosgegrammeni letter.
  const cp = ch.codePointAt(0)!;
  if ((cp >= 0x1f80 && cp <= 0x1f87) || (cp >= 0x1f90 && cp <= 0x1f97) || (cp >= 0x1fa0 && cp <= 0x1fa7)) return String.fromCodePoint(cp + 8);
  if (cp === 0x1fb3 || cp === 0x1fc3 || cp === 0x1ff3) return String.fromCodePoint(cp + 9);
  return ch;
}

/** Go's unicode.ToLower: the simple mapping (only U+0130 İ expands in the full one). */
function lowerRune(ch: string): string {
  const l = ch.toLowerCase();
  if (l.length === 1 || (l.length === 2 && l.codePointAt(0)! > 0xffff)) return l;
  return ch === '\u0130' ? 'i' : ch;
}

export function goToUpper(s: string): string {
  if (ASCII.test(s)) return s.toUpperCase();
  let out = '';
  for (const ch of s) out += upperRune(ch);
  return out;
}

export function goToLower(s: string): string {
  if (ASCII.test(s)) return s.toLowerCase();
  let out = '';
  for (const ch of s) out += lowerRune(ch);
  return out;
}

const CASED = /\p{Cased}/u;
const CASE_IGNORABLE = /\p{Case_Ignorable}/u;
/** Word_Break MidLetter, MidNumLet and Single_Quote: inside a word unless doubled. */
const MID = /['.:\u00b7\u0387\u055f\u05f4\u2018\u2019\u2024\u2027\ufe13\ufe52\ufe55\uff07\uff0e\uff1a]/u;
/** Letters, numbers, marks, connectors and format characters do not end a word; U+200B (Word_Break Other) does. */
const NOT_BREAK = /(?!\u200b)[\p{L}\p{N}\p{M}\p{Pc}\p{Cf}]/u;
/** Title case of the letter digraphs (the only letters whose title case is not their uppercase). */
const TITLE: Record<string, string> = { Ǆ: 'ǅ', ǅ: 'ǅ', ǆ: 'ǅ', Ǉ: 'ǈ', ǈ: 'ǈ', ǉ: 'ǈ', Ǌ: 'ǋ', ǋ: 'ǋ', ǌ: 'ǋ', Ǳ: 'ǲ', ǲ: 'ǲ', ǳ: 'ǲ' };

function titleRune(ch: string): string {
  const t = TITLE[ch];
  if (t !== undefined) return t;
  const u = ch.toUpperCase();
  const first = String.fromCodePoint(u.codePointAt(0)!);
  return u.length === first.length ? u : first + u.slice(first.length).toLowerCase(); // ß → Ss, ﬁ → Fi
}

/**
 * cases.Title(language.Und): the first cased letter of each word in title case, the rest in
 * lower case (with a final sigma), so `hELLO wORLD` is `Hello World` and `3rd` is `3Rd`.
 */
export function goTitle(s: string): string {
  const runes = Array.from(s);
  let out = '';
  let midWord = false;
  let wasMid = false;
  for (let i = 0; i < runes.length; i++) {
    const ch = runes[i]!;
    const mid = MID.test(ch);
    if (wasMid && mid) midWord = false;
    if (CASED.test(ch)) {
      if (!midWord) {
        out += titleRune(ch);
        midWord = true;
      } else {
        out += ch === 'Σ' ? (finalSigma(runes, i) ? 'ς' : 'σ') : ch.toLowerCase();
      }
    } else {
      out += ch;
      if (!mid && !NOT_BREAK.test(ch)) midWord = false;
    }
    wasMid = mid;
  }
  return out;
}

/** Unicode's Final_Sigma: a cased letter before (skipping case-ignorables) and none after. */
function finalSigma(runes: string[], i: number): boolean {
  let j = i - 1;
  while (j >= 0 && CASE_IGNORABLE.test(runes[j]!)) j--;
  if (j < 0 || !CASED.test(runes[j]!)) return false;
  j = i + 1;
  while (j < runes.length && CASE_IGNORABLE.test(runes[j]!)) j++;
  return j >= runes.length || !CASED.test(runes[j]!);
}

const SIMPLE_ESCAPES: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92 };

/**
 * Go's strconv.Unquote: `"..."` with Go escapes (`\x41`, `\101`, `\u00e9`, `\U0001F600`), a
 * single-rune `'x'`, or a raw `` `...` `` (carriage returns dropped). Undefined when invalid.
 */
export function goUnquote(s: string): Buffer | undefined {
  if (s.length < 2) return undefined;
  const q = s[0]!;
  if (q !== s[s.length - 1]) return undefined;
  const body = s.slice(1, -1);
  if (q === '`') {
    if (body.includes('`')) return undefined;
    return Buffer.from(body.replaceAll('\r', ''), 'utf8');
  }
  if (q !== '"' && q !== "'") return undefined;
  if (body.includes('\n')) return undefined;
  const parts: Buffer[] = [];
  let runes = 0;
  let i = 0;
  while (i < body.length) {
    const c = body[i]!;
    if (c === q) return undefined;
    if (c !== '\\') {
      const cp = body.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      parts.push(Buffer.from(ch, 'utf8'));
      i += ch.length;
      runes++;
      continue;
    }
    const e = body[i + 1];
    if (e === undefined) return undefined;
    i += 2;
    runes++;
    if (e in SIMPLE_ESCAPES) parts.push(Buffer.from([SIMPLE_ESCAPES[e]!]));
    else if (e === q) parts.push(Buffer.from(q));
    else if (e === 'x') {
      const h = body.slice(i, i + 2);
      if (!/^[0-9a-fA-F]{2}$/.test(h)) return undefined;
      parts.push(Buffer.from([parseInt(h, 16)]));
      i += 2;
    } else if (e >= '0' && e <= '7') {
      const o = body.slice(i - 1, i + 2);
      if (!/^[0-7]{3}$/.test(o) || parseInt(o, 8) > 255) return undefined;
      parts.push(Buffer.from([parseInt(o, 8)]));
      i += 2;
    } else if (e === 'u' || e === 'U') {
      const n = e === 'u' ? 4 : 8;
      const h = body.slice(i, i + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(h)) return undefined;
      const cp = parseInt(h, 16);
      if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return undefined;
      parts.push(Buffer.from(String.fromCodePoint(cp), 'utf8'));
      i += n;
    } else return undefined;
  }
  if (q === "'" && runes !== 1) return undefined;
  return Buffer.concat(parts);
}

let entities: Map<string, string> | undefined;
let longestLegacy = 0;

function entityTable(): Map<string, string> {
  if (entities === undefined) {
    entities = new Map();
    for (const pair of HTML_ENTITIES.split('\u0001')) {
      const at = pair.indexOf('=');
      if (at <= 0) continue;
      const name = pair.slice(0, at);
      entities.set(name, pair.slice(at + 1));
      if (!name.endsWith(';')) longestLegacy = Math.max(longestLegacy, name.length);
    }
  }
  return entities;
}

/** Windows-1252 meanings of the C1 range, as HTML (and Go) read `&#128;` ... `&#159;`. */
const C1: Record<number, number> = {
  0x80: 0x20ac,
  0x82: 0x201a,
  0x83: 0x0192,
  0x84: 0x201e,
  0x85: 0x2026,
  0x86: 0x2020,
  0x87: 0x2021,
  0x88: 0x02c6,
  0x89: 0x2030,
  0x8a: 0x0160,
  0x8b: 0x2039,
  0x8c: 0x0152,
  0x8e: 0x017d,
  0x91: 0x2018,
  0x92: 0x2019,
  0x93: 0x201c,
  0x94: 0x201d,
  0x95: 0x2022,
  0x96: 0x2013,
  0x97: 0x2014,
  0x98: 0x02dc,
  0x99: 0x2122,
  0x9a: 0x0161,
  0x9b: 0x203a,
  0x9c: 0x0153,
  0x9e: 0x017e,
  0x9f: 0x0178,
};

/** Go's html.UnescapeString: every HTML5 named entity, numeric references, legacy names without `;`. */
export function goUnescapeHTML(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#[xX][0-9a-fA-F]+;?|#[0-9]+;?|[A-Za-z0-9]+;?)/g, (m, body: string) => {
    if (body.startsWith('#')) {
      const hex = body[1] === 'x' || body[1] === 'X';
      const digits = body.slice(hex ? 2 : 1).replace(/;$/, '');
      let cp = parseInt(digits.slice(0, 16), hex ? 16 : 10);
      if (digits.length > 16) cp = 0x110000;
      cp = C1[cp] ?? cp;
      if (cp === 0 || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return '\ufffd';
      return String.fromCodePoint(cp);
    }
    const table = entityTable();
    const hit = table.get(body);
    if (hit !== undefined) return hit;
    // A legacy entity may be a prefix (`&notit;` is `¬it;`).
    for (let j = Math.min(body.length - 1, longestLegacy); j > 1; j--) {
      const x = table.get(body.slice(0, j));
      if (x !== undefined) return x + body.slice(j);
    }
    return m;
  });
}
