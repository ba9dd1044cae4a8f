/**
 * The pieces both syslog formats share, read from the message's bytes (as a latin1 string, so an
 * index is a byte column, as the errors of influxdata/go-syslog, the parser Benthos uses, count).
 */
import { dayInRange, type WallTime } from './syslog-time.js';

/** A parse failure: the text and the byte column of go-syslog's error. */
export class SyslogError extends Error {}

export function fail(text: string, col: number): never {
  throw new SyslogError(`${text} [col ${col}]`);
}

export const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
/** US-ASCII graphic characters (33-126). */
export const isGraph = (c: string | undefined): boolean => c !== undefined && c > ' ' && c <= '~';

export const PRI_ERROR = 'expecting a priority value within angle brackets';
export const PRIVAL_ERROR = 'expecting a priority value in the range 1-191 or equal to 0';

/** `<prival>`: the priority (0, or 1-191 without leading zeros) and where it ends. */
export function readPriority(s: string): { priority: number; end: number } {
  if (s[0] !== '<') fail(PRI_ERROR, 0);
  const m = /^(?:0|1(?:9[01]?|[0-8]\d?)?|[2-9]\d?)/.exec(s.slice(1, 5));
  if (!m) fail(PRIVAL_ERROR, 1);
  const end = 1 + m[0].length;
  if (s[end] !== '>') fail(PRIVAL_ERROR, end);
  return { priority: Number(m[0]), end: end + 1 };
}

/** One position of a fixed-shape token: whether `c`, at `at` in `s`, may come there (the token starts at `start`). */
export type ShapeStep = (c: string, s: string, at: number, start: number) => boolean;

/**
 * Matches a fixed-shape token at `p` position by position: each step says which characters may
 * come next given what came before. Gives the end, or the column of the first character that
 * cannot be there.
 */
export function scanShape(s: string, p: number, steps: readonly ShapeStep[]): number | { bad: number } {
  for (let i = 0; i < steps.length; i++) {
    const c = s[p + i];
    if (c === undefined || !steps[i]!(c, s, p + i, p)) return { bad: p + i };
  }
  return p + steps.length;
}

const one = (set: string) => (c: string) => set.includes(c);
const digit = (c: string) => isDigit(c);
/** Two digits with the first from `first` and the second limited by the first. */
const twoDigits = (first: string, second: (d: string) => string): ShapeStep[] => [one(first), (c, s, at) => second(s[at - 1]!).includes(c)];

export const HHMMSS = [...twoDigits('012', (d) => (d === '2' ? '0123' : '0123456789')), one(':'), one('012345'), digit, one(':'), one('012345'), digit];

export const FULL_DATE = [
  digit,
  digit,
  digit,
  digit,
  one('-'),
  ...twoDigits('01', (d) => (d === '0' ? '123456789' : '012')),
  one('-'),
  ...twoDigits('0123', (d) => (d === '0' ? '123456789' : d === '3' ? '01' : '0123456789')),
];

/** `YYYY-MM-DDThh:mm:ss`. */
export const DATE_TIME = [...FULL_DATE, one('T'), ...HHMMSS];
const OFFSET = [...HHMMSS.slice(0, 2), one(':'), one('012345'), digit];

/** Reads `[+-]hh:mm` or `Z` at p: the offset in minutes and where it ends. */
export function scanOffset(s: string, p: number): { offset: number; end: number } | { bad: number } {
  if (s[p] === 'Z') return { offset: 0, end: p + 1 };
  if (s[p] !== '+' && s[p] !== '-') return { bad: p };
  const end = scanShape(s, p + 1, OFFSET);
  if (typeof end !== 'number') return end;
  const offset = Number(s.slice(p + 1, p + 3)) * 60 + Number(s.slice(p + 4, p + 6));
  return { offset: s[p] === '-' ? -offset : offset, end };
}

/** The wall time of `YYYY-MM-DDThh:mm:ss` at p (the shape already checked). */
export function dateTimeAt(s: string, p: number): WallTime {
  const n = (i: number, w: number) => Number(s.slice(p + i, p + i + w));
  return { year: n(0, 4), month: n(5, 2), day: n(8, 2), hour: n(11, 2), minute: n(14, 2), second: n(17, 2), fraction: '', offset: 0 };
}

/** Go's time.Parse error for a day the month does not have, at the column where the timestamp ended. */
export function checkDay(t: WallTime, text: string, end: number): void {
  if (!dayInRange(t)) fail(`parsing time ${JSON.stringify(text)}: day out of range`, end);
}

/** A run of graphic characters of at most `max` at p, then a space: the run and where the space is. */
export function readField(s: string, p: number, max: number, error: string): string {
  let q = p;
  while (isGraph(s[q]) && q - p < max) q++;
  if (q === p || s[q] !== ' ') fail(error, q);
  return s.slice(p, q);
}

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;

/** Bytes read as latin1, back to the text they hold. */
export function utf8(latin1: string): string {
  return ASCII.test(latin1) ? latin1 : Buffer.from(latin1, 'latin1').toString('utf8');
}
